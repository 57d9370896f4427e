import CLinux
import Glibc

/// Text for a terminal or the journal: every character that is not printable — C0 controls but the
/// newline and the tab, DEL, C1 controls — is written as an escape (`\x1b`, `\x00`, `\u{9b}`), so that
/// what a file or a peer sent (a recording's line, a name) cannot set a terminal's title or colours,
/// and NUL bytes do not reach the log. Bytes that are not UTF-8 arrive here already as U+FFFD.
public enum Terminal {
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for u in text.unicodeScalars {
            if !needsEscape(u) { out.unicodeScalars.append(u); continue }
            let hex = String(u.value, radix: 16)
            out += u.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
        }
        return out
    }

    private static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        (u.value < 0x20 && u != "\n" && u != "\t") || (u.value >= 0x7f && u.value < 0xa0)
    }
}

/// Writes to standard error without Foundation; what is not printable is escaped (`Terminal`).
public enum FileHandleStandardError {
    public static func write(_ text: String) {
        var bytes = Array(Terminal.printable(text).utf8)
        bytes.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// Buffered standard output for line-heavy commands (replay, listen).
public struct StandardOutput {
    private var buffer: [UInt8] = []

    public init() { buffer.reserveCapacity(65536) }

    public mutating func line(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0a)
        if buffer.count > 60000 { flush() }
    }

    public mutating func line(_ text: String) { line(Array(text.utf8)) }

    public mutating func line(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0a)
        if buffer.count > 60000 { flush() }
    }

    public mutating func flush() {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { if errno == EINTR { continue }; break }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
