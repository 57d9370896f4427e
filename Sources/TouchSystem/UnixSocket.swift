import CLinux
import Glibc

/// A Unix socket address: a path, or an abstract name written "@name" (as systemd's NOTIFY_SOCKET may
/// be). The one place a `sockaddr_un` is built.
public struct UnixSocketAddress: CustomStringConvertible {
    public let path: String
    private var storage = sockaddr_un()
    private let length: socklen_t

    /// The longest path a `sockaddr_un` holds (its terminating NUL left out).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The address of `path`; an error that names the path and the limit when it is too long.
    public init(_ path: String) throws(SystemError) {
        self.path = path
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count <= UnixSocketAddress.maximumPathLength else {
            throw SystemError("sockaddr_un", path, Errno(ENAMETOOLONG))
        }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { buf in
            for (i, b) in bytes.enumerated() { buf[i] = b }
            if !abstract { buf[bytes.count] = 0 }
        }
        // An abstract name is exactly its bytes; a path is the whole structure (NUL-terminated).
        length = abstract ? socklen_t(MemoryLayout<sa_family_t>.size + bytes.count) : socklen_t(MemoryLayout<sockaddr_un>.size)
    }

    package func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var a = storage
        return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    public var description: String { path }
}

/// Unix sockets: the system calls the socket server, the clients and sd_notify make, each failure a
/// `SystemError` that names the call and the address.
public enum UnixSocket {
    /// A new socket of `type` (SOCK_STREAM, SOCK_DGRAM), close-on-exec, non-blocking when asked.
    package static func make(_ type: __socket_type, nonBlocking: Bool, for what: String) throws(SystemError) -> FileDescriptor {
        let flags = Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = socket(AF_UNIX, flags, 0)
        guard fd >= 0 else { throw .last("socket", what) }
        return FileDescriptor(rawValue: fd)
    }

    /// A stream socket connected to `address`. Non-blocking, a connect to a Unix socket still completes
    /// at once or fails (EAGAIN when the listener's queue is full): it never waits.
    package static func connect(to address: UnixSocketAddress, nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        let fd = try make(SOCK_STREAM, nonBlocking: nonBlocking, for: address.path)
        let rc = address.withSockaddr { Glibc.connect(fd.rawValue, $0, $1) }
        guard rc == 0 else {
            let e = Errno.current
            fd.close()
            throw SystemError("connect", address.path, e)
        }
        return fd
    }

    /// Whether something answers on the stream socket at `address`.
    package static func isListening(_ address: UnixSocketAddress) -> Bool {
        guard let fd = try? connect(to: address) else { return false }
        fd.close()
        return true
    }

    /// A non-blocking stream socket bound to `address` and listening.
    package static func listen(on address: UnixSocketAddress, backlog: Int32 = 128) throws(SystemError) -> FileDescriptor {
        let fd = try make(SOCK_STREAM, nonBlocking: true, for: address.path)
        let bound = address.withSockaddr { bind(fd.rawValue, $0, $1) }
        guard bound == 0 else {
            let e = Errno.current
            fd.close()
            throw SystemError("bind", address.path, e)
        }
        guard Glibc.listen(fd.rawValue, backlog) == 0 else {
            let e = Errno.current
            fd.close()
            throw SystemError("listen", address.path, e)
        }
        return fd
    }

    /// A connection waiting on `listener`, non-blocking and close-on-exec; nil when none is waiting.
    /// Errors other than "none waiting" are thrown (a connection aborted before it was taken is
    /// passed over).
    package static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        switch acceptConnection(listener) {
        case .success(let fd): return fd
        case .failure(let e): throw SystemError("accept", "the gesture socket", e)
        }
    }

    /// A connection waiting on any listening socket (Unix or IPv4), non-blocking and close-on-exec;
    /// nil when none is waiting.
    package static func acceptConnection(_ listener: FileDescriptor) -> Result<FileDescriptor?, Errno> {
        while true {
            let raw = Glibc.accept(listener.rawValue, nil, nil)
            if raw >= 0 {
                let fd = FileDescriptor(rawValue: raw)
                fd.setNonBlocking()
                fd.setCloseOnExec()
                return .success(fd)
            }
            let e = Errno.current
            if e == .interrupted || e.rawValue == ECONNABORTED { continue }
            return e.isWouldBlock ? .success(nil) : .failure(e)
        }
    }

    /// Sends all of `bytes` on a blocking socket (no SIGPIPE: a peer gone is an error).
    package static func sendAll(_ fd: FileDescriptor, _ bytes: [UInt8], to what: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd.rawValue, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if Errno.current == .interrupted { continue }
                throw .last("send", what)
            }
            offset += n
        }
    }

    /// SO_SNDBUF: how much the kernel holds for the peer before a send would wait.
    package static func setSendBuffer(_ fd: FileDescriptor, bytes: Int32) {
        var size = bytes
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(4))
    }

    /// Sends what it can of `bytes` without waiting: how many went out (0 when the socket is full).
    package static func sendNow(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        while true {
            let n = Glibc.send(fd.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if n >= 0 { return .success(n) }
            let e = Errno.current
            if e == .interrupted { continue }
            return e.isWouldBlock ? .success(0) : .failure(e)
        }
    }

    /// Receives into `buffer`: the count (0 at the end of the stream), nil when nothing is waiting on a
    /// non-blocking socket (or with `dontWait`).
    package static func receive(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, dontWait: Bool = false) -> Result<Int?, Errno> {
        while true {
            let n = recv(fd.rawValue, buffer.baseAddress, buffer.count, dontWait ? Int32(MSG_DONTWAIT) : 0)
            if n >= 0 { return .success(n) }
            let e = Errno.current
            if e == .interrupted { continue }
            return e.isWouldBlock ? .success(nil) : .failure(e)
        }
    }

    /// One datagram to `address` (sd_notify); whether all of it went.
    package static func sendDatagram(_ bytes: [UInt8], to address: UnixSocketAddress) -> Bool {
        guard let fd = try? make(SOCK_DGRAM, nonBlocking: false, for: address.path) else { return false }
        defer { fd.close() }
        let sent = address.withSockaddr { sa, len in
            bytes.withUnsafeBytes { sendto(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, len) }
        }
        return sent == bytes.count
    }
}
