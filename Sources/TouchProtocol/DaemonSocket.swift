import Glibc
import TouchSystem

/// Where the daemon's socket is: the one answer the daemon (where it listens) and every client (where
/// it connects) share.
public enum DaemonSocket {
    /// The default socket: $TOUCHBRIDGE_SOCKET when set (daemon, touchbridgectl and the examples alike);
    /// else /run/touchbridge/touchbridge.sock as root, else $XDG_RUNTIME_DIR/touchbridge.sock.
    public static func defaultPath() -> String? {
        if let path = getenv("TOUCHBRIDGE_SOCKET"), path.pointee != 0 { return String(cString: path) }
        if getuid() == 0 { return "/run/touchbridge/touchbridge.sock" }
        guard let dir = getenv("XDG_RUNTIME_DIR") else { return nil }
        return String(cString: dir) + "/touchbridge.sock"
    }

    /// `--socket PATH`, shared by the commands that talk to the daemon.
    public static let option = OptionSpec.option("socket", "PATH",
        "the daemon's socket (default: $TOUCHBRIDGE_SOCKET; else $XDG_RUNTIME_DIR/touchbridge.sock\nwhen it exists, else /run/touchbridge/touchbridge.sock)")

    /// The daemon's socket: --socket, else $TOUCHBRIDGE_SOCKET, else the user's own daemon's socket
    /// when it exists, else the system service's.
    public static func path(_ a: Arguments) throws -> String {
        if let p = a["socket"] { return p }
        if let p = getenv("TOUCHBRIDGE_SOCKET"), p.pointee != 0 { return String(cString: p) }
        if let p = defaultPath(), access(p, F_OK) == 0 { return p }
        if access("/run/touchbridge/touchbridge.sock", F_OK) == 0 { return "/run/touchbridge/touchbridge.sock" }
        guard let p = defaultPath() else {
            throw SocketError("no socket path: pass --socket PATH or set TOUCHBRIDGE_SOCKET (XDG_RUNTIME_DIR is not set)")
        }
        return p
    }
}

/// The gesture socket could not be made or used: what went wrong, with the remedy where there is one.
public struct SocketError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
