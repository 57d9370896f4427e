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
        // An abstract name is written "@name" (UnixSocketAddress).
        guard let address = try? UnixSocketAddress(path) else { return false }
        return UnixSocket.sendDatagram(Array(state.utf8), to: address)
    }
}
