import CLinux
import Glibc
import TouchInput

/// Who a connection is, from the kernel (SO_PEERCRED, SO_PEERGROUPS): read once, at accept.
public struct PeerCredentials: Equatable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// Supplementary groups; empty when the kernel cannot say.
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// The peer of a connected Unix socket; nil when the kernel does not say.
    static func of(_ socket: FileDescriptor) -> PeerCredentials? {
        let fd = socket.rawValue
        var cred: (Int32, UInt32, UInt32) = (0, 0, 0)
        var len = socklen_t(12)
        let rc = withUnsafeMutableBytes(of: &cred) { getsockopt(fd, SOL_SOCKET, clinux_so_peercred(), $0.baseAddress, &len) }
        guard rc == 0 else { return nil }
        var groups = [UInt32](repeating: 0, count: 256)
        var glen = socklen_t(groups.count * 4)
        let grc = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, clinux_so_peergroups(), $0.baseAddress, &glen) }
        return PeerCredentials(pid: cred.0, uid: cred.1, gid: cred.2,
                               groups: grc == 0 ? Array(groups.prefix(Int(glen) / 4)) : [])
    }

    /// "pid 123, uid 1000", for the log.
    public var description: String { "pid \(pid), uid \(uid)" }
}

/// Who may send control commands (`set`, `scene`): uid 0, the daemon's own user, and the members of
/// `touchbridged --control-group` (primary or supplementary). Everyone who may connect may subscribe.
public struct ControlPolicy: Sendable {
    public var daemonUID: UInt32
    /// The control group, resolved when the daemon starts.
    public var group: (name: String, gid: UInt32)?

    public init(daemonUID: UInt32 = UInt32(geteuid()), group: (name: String, gid: UInt32)? = nil) {
        self.daemonUID = daemonUID
        self.group = group
    }

    /// The group named `name`, for `--control-group`; nil when there is none.
    public static func group(named name: String) -> (name: String, gid: UInt32)? {
        guard let g = getgrnam(name) else { return nil }
        return (name, UInt32(g.pointee.gr_gid))
    }

    public func permits(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let group else { return false }
        return peer.gid == group.gid || peer.groups.contains(group.gid)
    }

    /// The error line's message for a peer that may not control: what would let it.
    public func refusal(of peer: PeerCredentials, command: String) -> String {
        let groupPart = group.map { "members of group \"\($0.name)\" (touchbridged --control-group)" }
            ?? "a group named with touchbridged --control-group GROUP (none is set)"
        return "not permitted: \"\(command)\" changes the daemon for everyone and is for uid 0, the daemon's own user "
            + "(uid \(daemonUID)) and \(groupPart); this connection is uid \(peer.uid) (pid \(peer.pid))"
    }
}
