import CLinux
import Glibc
import TouchProtocol
import TouchSystem

/// The project's one HTTP server: what `visualize` serves its page and stream with, and what
/// `websocket` answers the upgrade with. It listens, reads each request's head (8 KiB at most), and
/// checks what every request must pass before a path is looked at (docs/protocol.md, "Doors"):
///
/// - `Host` names a loopback host (or, listening on every interface, an IP address): a page of another
///   site that rebinds its name to 127.0.0.1 names its own (421);
/// - the method is GET (or HEAD) (405);
/// - the token made at start, from the query's `?token=` or the cookie a page got with it (403),
///   unless the command was told `--no-token`.
///
/// Then `onRequest` answers. Each peer's output is a queue bounded at `queueLimit`: a peer that stops
/// reading is dropped (`onOverflow` may say goodbye first), the others are not slowed down.
package final class HTTPServer {
    package static let maximumRequest = 8192
    /// Connections at once, those still sending their head included: one more is closed at once (a
    /// local program that opens connections and sends nothing cannot take every descriptor).
    package static let maximumPeers = 128

    package final class Peer {
        package let fd: FileDescriptor
        var request: [UInt8] = []
        /// The head was answered: what arrives now is the peer's (a stream's, a WebSocket's).
        package var isAnswered = false
        package let output = OutputQueue()
        var wantsWritable = false
        /// Close once the output is sent.
        package var closeWhenSent = false
        /// Whoever took the connection over (the WebSocket layer).
        package var owner: AnyObject?
        init(fd: FileDescriptor) { self.fd = fd }
    }

    package let loop: EventLoop
    package let log: Logger
    package let listenFD: FileDescriptor
    package let host: String
    package let port: UInt16
    /// What every request must carry (nil: `--no-token`): 128 random bits in hex.
    package let token: String?
    /// The cookie that carries the token for a page's own requests: one name a port, since a browser
    /// sends a host's cookies to each of its ports.
    package let cookieName: String
    package let queueLimit: Int
    private var peers: [FileDescriptor: Peer] = [:]
    private var lastHostWarning = -Double.infinity
    private var lastFullWarning = -Double.infinity

    /// A request that passed the checks; `cookie` is the Set-Cookie to give with the answer (the token
    /// came in the query).
    package var onRequest: (Peer, HTTPRequestHead, _ cookie: String?) -> Void = { _, _, _ in }
    /// Bytes from a peer whose request was answered.
    package var onBytes: (Peer, UnsafeRawBufferPointer) -> Void = { _, _ in }
    /// A peer is gone (closed, failed, dropped).
    package var onDrop: (Peer) -> Void = { _ in }

    /// Listens on `address` ("ADDR:PORT", IPv4); `command` names the command in what it says.
    package init(address: String, loop: EventLoop, log: Logger, requireToken: Bool, queueLimit: Int, command: String) throws {
        self.loop = loop
        self.log = log
        self.queueLimit = queueLimit
        let (host, port) = try HTTPServer.parse(address)
        self.host = host
        self.port = port
        do {
            listenFD = try InetSocket.listen(host: host, port: port)
        } catch {
            throw SocketError("\(host):\(port): cannot listen: \(error.errno)"
                              + (error.errno.rawValue == EADDRINUSE ? " (another \(command) is running there? choose another with --listen ADDR:PORT)" : ""))
        }
        token = requireToken ? try HTTPServer.randomToken() : nil
        cookieName = "touchbridge_token_\(port)"
        try loop.add(listenFD) { [unowned self] _ in acceptAll() }
    }

    package var peerCount: Int { peers.count }

    package static func parse(_ address: String) throws -> (String, UInt16) {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]), port > 0 else {
            throw SocketError("--listen takes ADDR:PORT, e.g. 127.0.0.1:8391 (or 0.0.0.0:8391 to be reachable from the network), not \"\(address)\"")
        }
        var host = String(address[..<colon])
        if host == "localhost" || host.isEmpty { host = "127.0.0.1" }
        guard InetSocket.isAddress(host) else {
            throw SocketError("--listen: \"\(host)\" is not an IPv4 address (e.g. 127.0.0.1, or 0.0.0.0 for every interface)")
        }
        return (host, port)
    }

    /// 16 bytes from the kernel's random source (getrandom(2)), in hex.
    package static func randomToken() throws -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let n = bytes.withUnsafeMutableBytes { clinux_getrandom($0.baseAddress, UInt($0.count)) }
        guard n == bytes.count else { throw SocketError("cannot make a token: getrandom: \(Errno.current)") }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Every peer goes, and the listener.
    package func close() {
        for fd in Array(peers.keys) { drop(fd) }
        loop.remove(listenFD)
        listenFD.close()
    }

    // MARK: Peers

    private func acceptAll() {
        while true {
            guard case .success(let accepted?) = UnixSocket.acceptConnection(listenFD) else { return }
            let fd = accepted
            guard peers.count < Self.maximumPeers else {
                fd.close()
                let now = monotonicNow()
                if now - lastFullWarning >= 10 {
                    lastFullWarning = now
                    log.warning("\(peers.count) connections open: a new one was closed (said at most once every 10 s)")
                }
                continue
            }
            peers[fd] = Peer(fd: fd)
            do {
                try loop.add(fd, events: [.readable, .hangup]) { [unowned self] ev in service(fd, ev) }
            } catch {
                peers[fd] = nil
                fd.close()
            }
        }
    }

    private func service(_ fd: FileDescriptor, _ events: EventLoop.Events) {
        guard let peer = peers[fd] else { return }
        if events.contains(.writable) { flush(peer) }
        guard peers[fd] != nil else { return }
        if !events.isDisjoint(with: [.readable, .hangup]) { read(peer) }
        guard peers[fd] != nil else { return }
        if !events.isDisjoint(with: .closed) { drop(fd) }
    }

    private func read(_ peer: Peer) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while peers[peer.fd] != nil {
            guard case .success(let got?) = buffer.withUnsafeMutableBytes({ UnixSocket.receive(peer.fd, into: $0) }) else { return }
            let n = got
            if n == 0 { return drop(peer.fd) }
            if peer.isAnswered {
                buffer.withUnsafeBytes { onBytes(peer, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                continue
            }
            peer.request.append(contentsOf: buffer[0..<n])
            if let end = peer.request.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = Array(peer.request[..<end.lowerBound])
                let rest = Array(peer.request[end.upperBound...])
                peer.request = []
                respond(peer, to: head)
                // What came after the head (a WebSocket client may send its first frame at once).
                if peer.isAnswered, !rest.isEmpty, peers[peer.fd] != nil { rest.withUnsafeBytes { onBytes(peer, $0) } }
                continue
            }
            if peer.request.count > HTTPServer.maximumRequest {
                return reply(peer, status: "431 Request Header Fields Too Large", type: "text/plain", body: Array("request too large\n".utf8))
            }
        }
    }

    /// What the checks every request passes make of its head.
    package enum Admission {
        /// Passed: the request, and the Set-Cookie to answer with (the token came in the query).
        case admitted(HTTPRequestHead, cookie: String?)
        /// Refused: the status line's code and reason, and the body that says why.
        case refused(status: String, body: String)
    }

    /// The checks every request passes, in order: a well-formed HTTP/1.x head, one Host, a loopback one
    /// (`hostIsAllowed`), GET or HEAD, the token. A pure function of the head: the fuzz target calls it.
    package static func admit(_ head: [UInt8], listening host: String, token: String?, cookieName: String) -> Admission {
        guard let request = HTTPRequestHead(head), request.version.hasPrefix("HTTP/1.") else {
            return .refused(status: "400 Bad Request", body: "bad request\n")
        }
        guard let hostHeader = request.header("host") else {
            return .refused(status: "400 Bad Request", body: "a request must name its Host, once\n")
        }
        guard hostIsAllowed(hostHeader, listening: host) else {
            return .refused(status: "421 Misdirected Request",
                            body: "this server answers to \(host == "0.0.0.0" ? "loopback names and IP addresses" : "loopback names") only\n")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .refused(status: "405 Method Not Allowed", body: "only GET\n")
        }
        var setCookie: String?
        if let token {
            let given = request.query("token") ?? request.cookie(cookieName)
            guard let given, HTTPServer.sameToken(given, token) else {
                return .refused(status: "403 Forbidden", body: "forbidden: use the address the command printed (it carries ?token=…)\n")
            }
            if request.query("token") != nil {
                setCookie = "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
            }
        }
        return .admitted(request, cookie: setCookie)
    }

    /// The checks, then `onRequest`.
    private func respond(_ peer: Peer, to head: [UInt8]) {
        peer.isAnswered = true
        switch Self.admit(head, listening: host, token: token, cookieName: cookieName) {
        case .admitted(let request, let cookie):
            onRequest(peer, request, cookie)
        case .refused(let status, let body):
            if status.hasPrefix("421"), let h = HTTPRequestHead(head)?.header("host") {
                // Said at most once every 10 s: a hostile page may ask again and again.
                let now = monotonicNow()
                if now - lastHostWarning >= 10 {
                    lastHostWarning = now
                    log.warning("refused a request for host \"\(Self.printable(h))\": this server answers to loopback names only (a page of another site, by DNS rebinding?)")
                }
            }
            reply(peer, status: status, type: "text/plain", body: Array(body.utf8))
        }
    }

    /// A header as a log may print it: at most 80 printable ASCII characters.
    package static func printable(_ s: String) -> String {
        String(s.unicodeScalars.prefix(80).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" })
    }

    /// A Host header's name (without its port) is a loopback name or address; when listening on every
    /// interface, an IP address too (a rebinding page always names a domain).
    package func hostIsAllowed(_ header: String) -> Bool { Self.hostIsAllowed(header, listening: host) }

    package static func hostIsAllowed(_ header: String, listening host: String) -> Bool {
        var name = header.lowercased()
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            name = String(name[name.index(after: name.startIndex)..<close])
            return name == "::1"
        }
        if let colon = name.lastIndex(of: ":") { name = String(name[..<colon]) }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        guard InetSocket.isAddress(name) else { return false }
        if name.hasPrefix("127.") || name == host { return true }
        return host == "0.0.0.0"
    }

    /// Compares in time that does not depend on where the two differ.
    package static func sameToken(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// A whole answer, and the connection closes after it.
    package func reply(_ peer: Peer, status: String, type: String, body: [UInt8], cookie: String? = nil, headers: String = "") {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
            + (cookie.map { "Set-Cookie: \($0)\r\n" } ?? "") + headers
            + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
        peer.closeWhenSent = true
        send(peer, Array(head.utf8) + body)
    }

    /// Queues `bytes` and sends what the socket takes; false (and the peer dropped) when its queue is full.
    @discardableResult
    package func send(_ peer: Peer, _ bytes: [UInt8]) -> Bool {
        guard enqueue(peer, bytes) else { return false }
        flush(peer)
        return true
    }

    /// Queues without sending (`flushAll` sends); false (and the peer dropped) when its queue is full.
    @discardableResult
    package func enqueue(_ peer: Peer, _ bytes: [UInt8]) -> Bool {
        guard peers[peer.fd] === peer else { return false }
        guard peer.output.append(bytes, limit: queueLimit) else {
            log.warning("a peer stopped reading (\(peer.output.count) bytes waiting); dropped so the others go on")
            drop(peer.fd)
            return false
        }
        return true
    }

    package func flushAll() {
        for peer in Array(peers.values) where peer.output.count > 0 { flush(peer) }
    }

    package func flush(_ peer: Peer) {
        guard peers[peer.fd] === peer else { return }
        switch peer.output.flush(to: peer.fd) {
        case .failed: return drop(peer.fd)
        case .empty: if peer.closeWhenSent { return drop(peer.fd) }
        case .waiting: break
        }
        let want = peer.output.count > 0
        if want != peer.wantsWritable {
            peer.wantsWritable = want
            loop.modify(peer.fd, events: want ? [.readable, .hangup, .writable] : [.readable, .hangup])
        }
    }

    package func drop(_ peer: Peer) { if peers[peer.fd] === peer { drop(peer.fd) } }

    private func drop(_ fd: FileDescriptor) {
        guard let peer = peers.removeValue(forKey: fd) else { return }
        loop.remove(fd)
        fd.close()
        onDrop(peer)
        peer.owner = nil                                // the owner holds the peer: the cycle ends here
    }
}
