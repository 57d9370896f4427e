import CLinux
import Glibc

/// Writes to standard error without Foundation.
public enum FileHandleStandardError {
    public static func write(_ text: String) {
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
