import CLinux
import Glibc

/// sd_notify(3) without libsystemd: a datagram to $NOTIFY_SOCKET ("READY=1", "STOPPING=1",
/// "RELOADING=1", "WATCHDOG=1", "STATUS=…"). Does nothing when not started by systemd.
public struct SystemdNotifier {
    private let path: String?

    public init() {
        path = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
    }

    public var isActive: Bool { path != nil }

    /// The watchdog interval systemd asked for (WATCHDOG_USEC, for this pid), in seconds.
    public var watchdogInterval: Double? {
        guard let usec = getenv("WATCHDOG_USEC").flatMap({ Double(String(cString: $0)) }), usec > 0 else { return nil }
        if let pid = getenv("WATCHDOG_PID").flatMap({ Int32(String(cString: $0)) }), pid != getpid() { return nil }
        return usec / 1e6
    }

    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let path, !path.isEmpty else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }        // abstract namespace
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in for (i, b) in bytes.enumerated() { buf[i] = b } }
        let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, len) }
            }
        }
        return sent == message.count
    }
}
