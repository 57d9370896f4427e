import CLinux
import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

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
