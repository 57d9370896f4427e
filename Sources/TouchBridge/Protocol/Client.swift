import CLinux
import Glibc

/// A blocking client of the gesture socket, for `touchbridgectl listen` and `bind`.
public final class SocketClient {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw ServerError("\(path): socket path too long") }
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in for (i, b) in bytes.enumerated() { buf[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            switch e {
            case ENOENT, ECONNREFUSED:
                throw ServerError("\(path): touchbridged is not running there (start it: systemctl start touchbridged, or `make run`; or pass --socket PATH)")
            case EACCES, EPERM:
                var st = stat()
                let group = stat(path, &st) == 0 ? getgrgid(st.st_gid).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } : nil
                let g = group ?? "touchbridge"
                throw ServerError("\(path): permission denied (the socket is for group \"\(g)\": sudo usermod -aG \(g) $USER, then log in again)")
            default:
                throw ServerError("\(path): cannot connect: \(String(cString: strerror(e)))")
            }
        }
    }

    deinit { close(fd) }

    public func send(_ line: String) throws {
        var bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; throw ServerError("send: \(String(cString: strerror(errno)))") }
            offset += n
        }
    }

    /// Reads what is waiting (one recv) and hands out the complete lines; false at the end of the
    /// stream. For a caller that polls the descriptor itself.
    public func readAvailable(_ line: ([UInt8]) -> Void) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        var n: Int
        repeat { n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) } }
        while n < 0 && errno == EINTR
        if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK }
        if n == 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        while let nl = buffer.firstIndex(of: 0x0a) {
            line(Array(buffer[..<nl]))
            buffer.removeSubrange(...nl)
        }
        return true
    }

    /// The next line without its newline, or nil at the end of the stream.
    public func readLine() -> [UInt8]? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0a) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 16384)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
