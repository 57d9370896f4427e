/// A small JSON reader and writer (no Foundation): scene files, the socket protocol and `bind` maps.
///
/// The reader keeps object keys in order and remembers the line of every value, so that errors can
/// name both the line and the JSON path of the culprit.
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [(String, JSON)]? { if case .object(let o) = self { o } else { nil } }

    /// A short name of the value's kind, for messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The compact JSON text of the value.
    public var text: String {
        var w = JSONWriter()
        w.value(self)
        return w.string
    }
}

/// A JSON syntax error with its line and column.
public struct JSONSyntaxError: Error, CustomStringConvertible, Equatable {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// Parses JSON text. `lines` records the line on which each value starts, by JSON path.
public struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0
    /// The line of each value, by path ("views[0].frame").
    public private(set) var lines: [String: Int] = [:]
    private let maxDepth = 64

    public init(_ text: String) {
        bytes = Array(text.utf8)
    }

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a whole document: one value and nothing but white space after it.
    public mutating func parse() throws -> JSON {
        skipSpace()
        let v = try value(path: "", depth: 0)
        skipSpace()
        guard i == bytes.count else { throw error("unexpected text after the JSON value") }
        return v
    }

    public static func parse(_ text: String) throws -> JSON {
        var p = JSONParser(text)
        return try p.parse()
    }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: i - lineStart + 1, message: message)
    }

    private mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0d: i += 1
            case 0x0a: i += 1; line += 1; lineStart = i
            default: return
            }
        }
    }

    private mutating func value(path: String, depth: Int) throws -> JSON {
        guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        guard i < bytes.count else { throw error("unexpected end of input, expected a value") }
        lines[path] = line
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(path: path, depth: depth)
        case UInt8(ascii: "["): return try array(path: path, depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[i])))', expected a value")
        }
    }

    private mutating func literal(_ word: String) throws {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { throw error("invalid literal, expected \(word)") }
        i += w.count
    }

    private mutating func number() throws -> Double {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits() -> Int {
            let s = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            return i - s
        }
        guard digits() > 0 else { throw error("invalid number") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw error("invalid number: digits must follow '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw error("invalid number: digits must follow the exponent") }
        }
        guard let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)), d.isFinite else {
            throw error("number out of range")
        }
        return d
    }

    private mutating func string() throws -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw error("unterminated string") }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw error("control character in string (escape it)") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw error("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5c)
            case UInt8(ascii: "/"): out.append(0x2f)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
            throw error("invalid \\u escape")
        }
        i += 4
        return v
    }

    private mutating func array(path: String, depth: Int) throws -> JSON {
        i += 1
        var items: [JSON] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(path: "\(path)[\(items.count)]", depth: depth + 1))
            skipSpace()
            guard i < bytes.count else { throw error("unterminated array, expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("expected ',' or ']' in array")
        }
    }

    private mutating func object(path: String, depth: Int) throws -> JSON {
        i += 1
        var members: [(String, JSON)] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let key = try string()
            guard !members.contains(where: { $0.0 == key }) else { throw error("duplicate key \"\(key)\"") }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            i += 1
            skipSpace()
            members.append((key, try value(path: path.isEmpty ? key : "\(path).\(key)", depth: depth + 1)))
            skipSpace()
            guard i < bytes.count else { throw error("unterminated object, expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("expected ',' or '}' in object")
        }
    }
}

/// Appends compact JSON to a byte buffer; used on the hot path, so it avoids String interpolation.
public struct JSONWriter {
    public var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
    }

    private mutating func separator() {
        if let last = needsComma.last {
            if last { bytes.append(UInt8(ascii: ",")) }
            needsComma[needsComma.count - 1] = true
        }
    }

    public mutating func beginObject() { separator(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { separator(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); bytes.append(UInt8(ascii: "]")) }

    /// A key inside an object; the value follows.
    public mutating func key(_ k: StaticString) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma[needsComma.count - 1] = false
    }

    public mutating func key(_ k: String) {
        separator()
        rawString(k)
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    public mutating func string(_ s: String) { separator(); rawString(s) }

    public mutating func staticString(_ s: StaticString) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func bool(_ b: Bool) {
        separator()
        bytes.append(contentsOf: b ? Array("true".utf8) : Array("false".utf8))
    }

    public mutating func null() { separator(); bytes.append(contentsOf: [0x6e, 0x75, 0x6c, 0x6c]) }

    public mutating func int(_ v: Int) {
        separator()
        appendInt(v)
    }

    /// A number rounded to 6 decimals, written without a trailing ".0"; non-finite values are null.
    public mutating func number(_ v: Double) {
        separator()
        guard v.isFinite else { bytes.append(contentsOf: [0x6e, 0x75, 0x6c, 0x6c]); return }
        let scaled = (v * 1_000_000).rounded()
        if abs(scaled) < 9e15 {
            var n = Int64(scaled)
            if n < 0 { bytes.append(UInt8(ascii: "-")); n = -n }
            let whole = n / 1_000_000
            var frac = n % 1_000_000
            appendInt(Int(whole))
            if frac != 0 {
                bytes.append(UInt8(ascii: "."))
                var digits = 6
                while frac % 10 == 0 { frac /= 10; digits -= 1 }
                var buf = [UInt8](repeating: UInt8(ascii: "0"), count: digits)
                var f = frac
                for k in stride(from: digits - 1, through: 0, by: -1) { buf[k] = UInt8(ascii: "0") + UInt8(f % 10); f /= 10 }
                bytes.append(contentsOf: buf)
            }
        } else {
            bytes.append(contentsOf: Array(v.description.utf8))
        }
    }

    private mutating func appendInt(_ v: Int) {
        if v == 0 { bytes.append(UInt8(ascii: "0")); return }
        var n = v.magnitude
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buf in
            var count = 0
            while n > 0 { buf[count] = UInt8(ascii: "0") + UInt8(n % 10); n /= 10; count += 1 }
            for k in stride(from: count - 1, through: 0, by: -1) { bytes.append(buf[k]) }
        }
    }

    private mutating func rawString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case 0x22: bytes.append(contentsOf: [0x5c, 0x22])
            case 0x5c: bytes.append(contentsOf: [0x5c, 0x5c])
            case 0x0a: bytes.append(contentsOf: [0x5c, UInt8(ascii: "n")])
            case 0x0d: bytes.append(contentsOf: [0x5c, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5c, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5c, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(c >> 4)], hex[Int(c & 15)]])
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes any JSON value.
    public mutating func value(_ v: JSON) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let a):
            beginArray()
            for x in a { value(x) }
            endArray()
        case .object(let o):
            beginObject()
            for (k, x) in o { key(k); value(x) }
            endObject()
        }
    }
}
