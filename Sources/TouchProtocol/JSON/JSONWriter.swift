import TouchSystem

/// A fixed piece of a line, kept as bytes for reuse: a pointer and a count, so writing it costs no
/// reference counting (a `[UInt8]` property is retained and released around every use). Its owner
/// frees it, once.
package struct LinePiece {
    package let bytes: UnsafeBufferPointer<UInt8>

    package init(_ array: [UInt8]) {
        self = array.withUnsafeBufferPointer { LinePiece($0) }
    }

    /// A copy of `source`'s bytes.
    package init(_ source: UnsafeBufferPointer<UInt8>) {
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Swift.max(source.count, 1))
        _ = storage.initialize(from: source)
        bytes = UnsafeBufferPointer(start: storage.baseAddress, count: source.count)
    }

    package func free() { UnsafeMutableRawPointer(mutating: bytes.baseAddress)?.deallocate() }
}

/// Appends compact JSON to a byte buffer. It is on the hot path (a line per gesture update), so it
/// writes through a pointer into storage it grows itself, and never formats through String. The
/// pieces a line is made of are inlined into it: under emulation every call and return is a
/// jump-target lookup, and after each context switch a cold one (BENCHMARKS.md).
public struct JSONWriter {
    /// A class, so that copies of the writer share nothing surprising (see `bytes`).
    private let storage: ByteBuffer
    /// Nesting: whether the current object or array needs a comma before its next member (bit per level).
    private var commas: UInt64 = 0
    private var depth = 0

    public init(capacity: Int = 256) {
        storage = ByteBuffer(capacity: capacity)
    }

    /// The bytes written so far (a copy).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage.base, count: storage.count)) }

    /// The bytes written so far, without copying; valid until the next write.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(unsafeBytes)
    }

    /// The bytes written so far, without copying; valid while the writer is neither written to nor
    /// dropped.
    public var unsafeBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage.base, count: storage.count) }

    public var string: String { String(decoding: UnsafeBufferPointer(start: storage.base, count: storage.count), as: UTF8.self) }

    /// How many bytes have been written.
    public var count: Int { storage.count }

    public mutating func reset() {
        storage.count = 0
        commas = 0
        depth = 0
    }

    /// Appends a newline (the end of an NDJSON line).
    @inline(__always)
    public mutating func newline() { storage.append(0x0a) }

    @inline(__always)
    private mutating func separator() {
        guard depth > 0 else { return }
        let bit: UInt64 = 1 << UInt64(depth - 1)
        if commas & bit != 0 { storage.append(UInt8(ascii: ",")) }
        commas |= bit
    }

    @inline(__always)
    private mutating func noComma() {
        commas &= ~(1 << UInt64(depth - 1))
    }

    public mutating func beginObject() { separator(); storage.append(UInt8(ascii: "{")); depth += 1; noComma() }
    public mutating func endObject() { depth -= 1; storage.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { separator(); storage.append(UInt8(ascii: "[")); depth += 1; noComma() }
    public mutating func endArray() { depth -= 1; storage.append(UInt8(ascii: "]")) }

    /// A key inside an object; the value follows.
    public mutating func key(_ k: StaticString) {
        separator()
        storage.append(UInt8(ascii: "\""))
        append(k)
        storage.append(UInt8(ascii: "\""))
        storage.append(UInt8(ascii: ":"))
        noComma()
    }

    /// Appends text verbatim: for fixed pieces of a line such as `,"time":`. Outside an object
    /// (`beginObject`) values take no separators, so a line can be written as fragments and values.
    @inline(__always)
    public mutating func fragment(_ s: StaticString) { append(s) }

    @inline(__always)
    private mutating func append(_ s: StaticString) {
        storage.append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    public mutating func key(string k: String) {
        separator()
        rawString(k)
        storage.append(UInt8(ascii: ":"))
        noComma()
    }

    public mutating func string(_ s: String) { separator(); rawString(s) }

    public mutating func staticString(_ s: StaticString) {
        separator()
        storage.append(UInt8(ascii: "\""))
        append(s)
        storage.append(UInt8(ascii: "\""))
    }

    public mutating func bool(_ b: Bool) {
        separator()
        append(b ? "true" : "false")
    }

    public mutating func null() {
        separator()
        append("null")
    }

    @inline(__always)
    public mutating func int(_ v: Int) {
        separator()
        appendInt(v)
    }

    /// A number rounded to 6 decimals, written without a trailing ".0"; non-finite values are null.
    /// Gesture lines carry about ten numbers each, on every frame of a continuous gesture, so the
    /// digits go straight into the buffer, two per division, with no call into libm.
    @inline(__always)
    public mutating func number(_ v: Double) {
        separator()
        guard v.isFinite else { append("null"); return }
        if v == 0 { storage.append(UInt8(ascii: "0")); return }      // force and radius, on most panels
        let scaled = v * 1_000_000
        guard abs(scaled) < 9e15 else { return largeNumber(v) }
        // Rounded half away from zero, as `rounded()` does: the truncation and the remainder (both
        // exact below 2^52) decide.
        var millionths = Int64(scaled)
        let remainder = scaled - Double(millionths)
        if remainder >= 0.5 { millionths += 1 } else if remainder <= -0.5 { millionths -= 1 }
        let n = millionths.magnitude
        let whole = n / 1_000_000
        let fraction = Int(n - whole * 1_000_000)
        storage.reserve(32)
        var p = storage.base + storage.count
        if millionths < 0 { p.pointee = UInt8(ascii: "-"); p += 1 }
        // Screen points and scales have one to four whole digits: written without a loop.
        if whole < 10 {
            p.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: whole)
            p += 1
        } else if whole < 100 {
            JSONWriter.writePair(Int(whole), at: p)
            p += 2
        } else if whole < 10_000 {
            let high = Int(whole / 100)
            if high < 10 {
                p.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: high)
                p += 1
            } else {
                JSONWriter.writePair(high, at: p)
                p += 2
            }
            JSONWriter.writePair(Int(whole) - high * 100, at: p)
            p += 2
        } else {
            let wholeDigits = JSONWriter.digitCount(whole)
            JSONWriter.writeDigits(whole, count: wholeDigits, endingAt: p + wholeDigits)
            p += wholeDigits
        }
        if fraction != 0 {
            // Six digits, three pairs, then the trailing zeros dropped (one digit at least is not 0).
            p.pointee = UInt8(ascii: ".")
            let first = fraction / 10_000
            let rest = fraction - first * 10_000
            let second = rest / 100
            JSONWriter.writePair(first, at: p + 1)
            JSONWriter.writePair(second, at: p + 3)
            JSONWriter.writePair(rest - second * 100, at: p + 5)
            p += 7
            while p[-1] == UInt8(ascii: "0") { p -= 1 }
        }
        storage.count = p - storage.base
    }

    /// Beyond the fixed-point range (|v| ≥ 9e9): Swift's shortest form.
    @inline(never)
    private mutating func largeNumber(_ v: Double) {
        for b in v.description.utf8 { storage.append(b) }
    }

    /// Writes `v` (0…99) as two digits at `p`.
    @inline(__always)
    private static func writePair(_ v: Int, at p: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs.utf8Start
        p[0] = pairs[2 &* v]
        p[1] = pairs[2 &* v &+ 1]
    }

    private mutating func appendInt(_ v: Int) {
        storage.reserve(24)
        var p = storage.base + storage.count
        if v < 0 { p.pointee = UInt8(ascii: "-"); p += 1 }
        let n = UInt64(v.magnitude)
        let digits = JSONWriter.digitCount(n)
        JSONWriter.writeDigits(n, count: digits, endingAt: p + digits)
        storage.count = p + digits - storage.base
    }

    /// Appends bytes verbatim (a piece of a line prepared earlier).
    @inline(__always)
    public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) { storage.append(bytes) }

    /// "00" "01" … "99": two digits per division.
    private static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    @inline(__always)
    private static func digitCount(_ v: UInt64) -> Int {
        var count = 1
        var rest = v
        while rest >= 100 { rest /= 100; count += 2 }
        return rest >= 10 ? count + 1 : count
    }

    /// Writes the last `count` decimal digits of `v` (zero-padded) into the `count` bytes before `end`.
    @inline(__always)
    private static func writeDigits(_ v: UInt64, count: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        var rest = v
        var p = end
        var left = count
        while left >= 2 {
            p -= 2
            writePair(Int(rest % 100), at: p)
            rest /= 100
            left -= 2
        }
        if left == 1 { (p - 1).pointee = UInt8(ascii: "0") + UInt8(rest % 10) }
    }

    private mutating func rawString(_ s: String) {
        storage.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Names are plain text: copied at once unless something needs an escape.
            if !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5c }) {
                storage.append(utf8)
                return
            }
            for c in utf8 {
                switch c {
                case 0x22: storage.append(0x5c); storage.append(0x22)
                case 0x5c: storage.append(0x5c); storage.append(0x5c)
                case 0x0a: storage.append(0x5c); storage.append(UInt8(ascii: "n"))
                case 0x0d: storage.append(0x5c); storage.append(UInt8(ascii: "r"))
                case 0x09: storage.append(0x5c); storage.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    let hex: StaticString = "0123456789abcdef"
                    hex.withUTF8Buffer { h in
                        for b in [0x5c, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), h[Int(c >> 4)], h[Int(c & 15)]] {
                            storage.append(b)
                        }
                    }
                default: storage.append(c)
                }
            }
        }
        storage.append(UInt8(ascii: "\""))
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
            for (k, x) in o { key(string: k); value(x) }
            endObject()
        }
    }
}
