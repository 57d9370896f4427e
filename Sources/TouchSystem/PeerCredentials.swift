import CLinux
import Glibc

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
    public static func of(_ socket: FileDescriptor) -> PeerCredentials? {
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
