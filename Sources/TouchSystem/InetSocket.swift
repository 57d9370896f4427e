import Glibc

/// IPv4 stream sockets: the visualizer's page server.
package enum InetSocket {
    /// Whether `host` is an IPv4 address in dotted form.
    package static func isAddress(_ host: String) -> Bool {
        var probe = in_addr()
        return inet_pton(AF_INET, host, &probe) == 1
    }

    /// A non-blocking socket listening on `host`:`port` (SO_REUSEADDR: a restart finds its port free).
    package static func listen(host: String, port: UInt16, backlog: Int32 = 16) throws(SystemError) -> FileDescriptor {
        let where_ = "\(host):\(port)"
        let raw = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard raw >= 0 else { throw .last("socket", where_) }
        let fd = FileDescriptor(rawValue: raw)
        var one: Int32 = 1
        _ = setsockopt(raw, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(4))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, host, &addr.sin_addr)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let e = Errno.current
            fd.close()
            throw SystemError("bind", where_, e)
        }
        guard Glibc.listen(raw, backlog) == 0 else {
            let e = Errno.current
            fd.close()
            throw SystemError("listen", where_, e)
        }
        return fd
    }

    /// Whether `host`:`port` takes a TCP connection within `timeout` seconds (a name is looked up, IPv4
    /// or IPv6): `touchbridgectl doctor`'s broker check. The error says why not.
    package static func probe(host: String, port: Int, timeout: Double) throws(SystemError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, "\(port)", &hints, &list)
        guard rc == 0, let first = list else {
            throw SystemError("getaddrinfo", host, Errno(rc == EAI_SYSTEM ? errno : EHOSTUNREACH))
        }
        defer { freeaddrinfo(list) }
        var last = Errno(ECONNREFUSED)
        var a: UnsafeMutablePointer<addrinfo>? = first
        while let ai = a {
            defer { a = ai.pointee.ai_next }
            let raw = socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard raw >= 0 else { last = Errno.current; continue }
            defer { close(raw) }
            if connect(raw, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 { return }
            guard errno == EINPROGRESS else { last = Errno.current; continue }
            var p = pollfd(fd: raw, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, Int32(timeout * 1000)) == 1 else { last = Errno(ETIMEDOUT); continue }
            var err: Int32 = 0
            var len = socklen_t(4)
            _ = getsockopt(raw, SOL_SOCKET, SO_ERROR, &err, &len)
            if err == 0 { return }
            last = Errno(err)
        }
        throw SystemError("connect", "\(host):\(port)", last)
    }
}
