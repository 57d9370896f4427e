import CEvdev
import Glibc
import TouchSystem

/// Writes a recording in evemu's format, as `evemu-record` does: the device's description as the
/// `N:`, `I:`, `P:`, `B:` and `A:` header, then one `E:` line per event (`seconds type code value`).
/// `touchbridgectl replay --mirror` writes what a pass-through mirror would be sent with it; the file
/// reads back with `Recording.load` and plays with `evemu-play`.
public final class EvemuWriter: MirrorSink {
    public let path: String
    private let fd: FileDescriptor
    private var buffer: [UInt8] = []

    /// Creates (or truncates) `path` and writes the header, after `comments` as `#` lines.
    public init(path: String, device: DeviceDescription, comments: [String] = []) throws {
        fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, permissions: 0o644)
        self.path = path
        buffer.reserveCapacity(1 << 16)
        append("# EVEMU 1.3\n")
        for c in comments { append("# \(c)\n") }
        append(EvemuWriter.header(device))
    }

    deinit { fd.close() }

    /// The description as evemu's header lines.
    public static func header(_ d: DeviceDescription) -> String {
        var s = "N: \(d.name)\n"
        s += "I: \(hex4(d.bustype)) \(hex4(d.vendor)) \(hex4(d.product)) \(hex4(d.version))\n"
        s += "P: " + maskBytes(Set(d.properties.map { UInt16($0) }), bytes: 8).joined(separator: " ") + "\n"
        // Each type's bit mask in lines of eight bytes, as evemu prints them; EV_SYN's lists the types.
        let types = Set(d.codes.filter { !$0.value.isEmpty }.map(\.key)).union([EventType.syn])
        let sizes: [(UInt16, Int)] = [(EventType.syn, 8), (EventType.key, 96), (EventType.rel, 8), (EventType.abs, 8)]
        for (type, size) in sizes {
            let bits = type == EventType.syn ? types : (d.codes[type] ?? [])
            let bytes = maskBytes(bits, bytes: size)
            for line in stride(from: 0, to: bytes.count, by: 8) {
                s += "B: " + hex2(UInt8(type)) + " " + bytes[line..<min(line + 8, bytes.count)].joined(separator: " ") + "\n"
            }
        }
        for code in (d.codes[EventType.abs] ?? []).sorted() {
            guard let a = d.absInfo[code] else { continue }
            s += "A: \(hex2(UInt8(truncatingIfNeeded: code))) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        return s
    }

    /// Appends the events, each stamped with its own time; written out in large pieces.
    public func write(_ events: UnsafeBufferPointer<input_event>) throws {
        for e in events {
            let usec = String(e.time.tv_usec)
            let time = "\(e.time.tv_sec)." + String(repeating: "0", count: max(0, 6 - usec.count)) + usec
            append("E: \(time) \(hex4(e.type)) \(hex4(e.code)) \(EvemuWriter.value(e.value))\n")
        }
        if buffer.count > 1 << 15 { try drain() }
    }

    /// Appends events with the times they carry.
    public func write(_ events: [InputEvent]) throws {
        let kernel = events.map { e -> input_event in
            let us = Int((max(0, e.time) * 1_000_000).rounded())
            return input_event(time: timeval(tv_sec: us / 1_000_000, tv_usec: us % 1_000_000), type: e.type, code: e.code, value: e.value)
        }
        try kernel.withUnsafeBufferPointer { try write($0) }
    }

    /// Writes out what is buffered.
    public func close() throws { try drain() }

    private func drain() throws {
        do { try fd.writeAll(buffer) } catch { throw SystemError("write", path, error) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func append(_ s: String) { buffer.append(contentsOf: s.utf8) }

    /// evemu's "%04d": "0042", "-001".
    static func value(_ v: Int32) -> String {
        let digits = String(v.magnitude)
        let width = v < 0 ? 3 : 4
        return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func maskBytes(_ bits: Set<UInt16>, bytes: Int) -> [String] {
        var mask = [UInt8](repeating: 0, count: bytes)
        for b in bits where Int(b) / 8 < bytes { mask[Int(b) / 8] |= 1 << (b % 8) }
        return mask.map(hex2)
    }
}

func hex2(_ v: UInt8) -> String {
    let s = String(v, radix: 16)
    return s.count < 2 ? "0" + s : s
}
