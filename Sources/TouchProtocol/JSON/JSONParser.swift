import TouchSystem

/// Parses JSON text. `lines` records the line on which each value starts, by JSON path.
public struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0
    /// The line of each value, by path ("views[0].frame").
    public private(set) var lines: [String: Int] = [:]
    private let maxDepth = 64
    /// Whether `lines` is kept: a file's errors name lines; a client's line needs none, and building a
    /// path string and a table entry per value would be most of its parsing.
    private let recordsLines: Bool

    public init(_ text: String) {
        bytes = Array(text.utf8)
        recordsLines = true
    }

    public init(bytes: [UInt8], recordsLines: Bool = true) {
        self.bytes = bytes
        self.recordsLines = recordsLines
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
        if recordsLines { lines[path] = line }
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
            items.append(try value(path: recordsLines ? "\(path)[\(items.count)]" : "", depth: depth + 1))
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
        // Duplicate keys are found with a set once an object is past a few keys: a search per key
        // would make one object of thousands of keys (a hostile client's line) quadratic.
        var seen: Set<String> = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let key = try string()
            let duplicate: Bool
            if members.count < 8 {
                duplicate = members.contains { $0.0 == key }
            } else {
                if seen.isEmpty { seen = Set(members.map(\.0)) }
                duplicate = !seen.insert(key).inserted
            }
            guard !duplicate else { throw error("duplicate key \"\(key)\"") }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            i += 1
            skipSpace()
            members.append((key, try value(path: !recordsLines ? "" : path.isEmpty ? key : "\(path).\(key)", depth: depth + 1)))
            skipSpace()
            guard i < bytes.count else { throw error("unterminated object, expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("expected ',' or '}' in object")
        }
    }
}
