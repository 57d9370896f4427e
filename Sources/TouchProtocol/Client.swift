import Glibc
import TouchInput
import TouchSystem

/// A blocking client of the gesture socket, for touchbridgectl's commands (`listen`, `bind`, `set`…).
public final class SocketClient {
    public let fd: FileDescriptor
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16384)

    /// Connects to the daemon at `path`; an error says what to do when it is not running there or the
    /// socket is not ours to use.
    public init(path: String) throws {
        do {
            fd = try UnixSocket.connect(to: try UnixSocketAddress(path))
        } catch {
            switch error.errno {
            case .noSuchFile where !SocketClient.directoryExists(of: path):
                // A mistyped path, more often than a daemon that is not running.
                throw SocketError("\(path): there is no directory \(SocketClient.directory(of: path)): is the path right? "
                                  + "(the default is \(DaemonSocket.defaultPath() ?? "/run/touchbridge/touchbridge.sock"); --socket PATH names another)")
            case .noSuchFile, .connectionRefused:
                throw SocketError("\(path): touchbridged is not running there (start it: systemctl start touchbridged, or `make run`; or pass --socket PATH)")
            case .accessDenied, .notPermitted:
                var st = stat()
                let group = stat(path, &st) == 0 ? getgrgid(st.st_gid).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } : nil
                let g = group ?? "touchbridge"
                throw SocketError("\(path): permission denied (the socket is for group \"\(g)\": sudo usermod -aG \(g) $USER, then log in again)")
            default:
                throw SocketError("\(path): cannot connect: \(error.errno)")
            }
        }
    }

    deinit { fd.close() }

    /// The directory of a socket path ("." for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    package static func directoryExists(of path: String) -> Bool {
        var st = stat()
        return stat(directory(of: path), &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// `{"subscribe":[…]}`: the topics whose lines this client gets (`ClientCommand.topicNames`).
    public func subscribe(_ topics: [String]) throws {
        var w = JSONWriter()
        w.beginObject(); w.key("subscribe"); w.beginArray()
        for t in topics { w.string(t) }
        w.endArray(); w.endObject()
        try send(String(decoding: w.bytes, as: UTF8.self))
    }

    public func send(_ line: String) throws {
        try UnixSocket.sendAll(fd, Array((line + "\n").utf8), to: "the daemon's socket")
    }

    /// Reads what is waiting (one recv) and hands out the complete lines; false at the end of the
    /// stream. For a caller that polls the descriptor itself.
    public func readAvailable(_ line: ([UInt8]) -> Void) -> Bool {
        // One buffer for every read (a client that reads each wakeup's lines allocated 16 KiB a wakeup).
        switch chunk.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0, dontWait: true) }) {
        case .failure: return false
        case .success(nil): return true
        case .success(0?): return false
        case .success(let n?):
            buffer.append(contentsOf: chunk[0..<n])
            while let nl = buffer.firstIndex(of: 0x0a) {
                line(Array(buffer[..<nl]))
                buffer.removeSubrange(...nl)
            }
            return true
        }
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
            guard case .success(let n?) = chunk.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0) }), n > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
