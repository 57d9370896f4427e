import CLinux
import Glibc

/// Text for a terminal or the journal: every character that is not printable — C0 controls but the
/// newline and the tab, DEL, C1 controls — is written as an escape (`\x1b`, `\x00`, `\u{9b}`), so that
/// what a file or a peer sent (a recording's line, a name) cannot set a terminal's title or colours,
/// and NUL bytes do not reach the log. Bytes that are not UTF-8 arrive here already as U+FFFD.
public enum Terminal {
    /// Text of several lines (usage, help): line breaks and tabs kept, every other control escaped.
    public static func printable(_ text: String) -> String {
        escaped(text) { (u: Unicode.Scalar) in (u.value < 0x20 && u != "\n" && u != "\t") || (u.value >= 0x7f && u.value < 0xa0) }
    }

    /// One line of the log, or one message on standard error: the newline, the carriage return, the tab
    /// and every other control escaped too (`\n`, `\r`, `\t`), so that what a peer sent (a scene's name,
    /// an MQTT payload) cannot start a line of its own in the journal, a `<0>` priority included. The
    /// value is still shown, escaped.
    public static func oneLine(_ text: String) -> String {
        escaped(text) { (u: Unicode.Scalar) in u.value < 0x20 || (u.value >= 0x7f && u.value < 0xa0) }
    }

    private static func escaped(_ text: String, _ needsEscape: (Unicode.Scalar) -> Bool) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for u in text.unicodeScalars {
            if !needsEscape(u) { out.unicodeScalars.append(u); continue }
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let hex = String(u.value, radix: 16)
                out += u.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
            }
        }
        return out
    }
}

/// An error as the lines it is told in: one for most, one a problem for an error of several (a
/// configuration's ConfigErrors).
public func errorLines(_ error: Error) -> [String] {
    (error as? MultilineError)?.lines ?? ["\(error)"]
}

/// "1 view", "3 views": a count with its noun agreeing (nouns that take an s).
public func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// Writes to standard error without Foundation.
public enum FileHandleStandardError {
    /// One message: written as one line (`Terminal.oneLine`), whatever its values hold; a newline at its
    /// end is the line's own.
    public static func write(_ text: String) {
        var body = Substring(text)
        while body.hasSuffix("\n") { body.removeLast() }
        emit(Terminal.oneLine(String(body)) + "\n")
    }

    /// Text of the program's own of several lines (usage): line breaks kept, other controls escaped.
    public static func writeText(_ text: String) {
        emit(Terminal.printable(text))
    }

    private static func emit(_ text: String) {
        var bytes = Array(text.utf8)
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

/// An error told in several lines, each a problem of its own (a configuration file's errors).
public protocol MultilineError: Error {
    var lines: [String] { get }
}
