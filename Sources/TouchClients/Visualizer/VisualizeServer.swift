import CLinux
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem
import VisualizerPage

/// `touchbridgectl visualize`: a small HTTP server, outside the daemon (which speaks no HTTP), that
/// serves the visualizer's page and streams the daemon's lines to every open page as Server-Sent Events.
///
///     daemon socket ──(every topic)──▶ this process ──GET /events (text/event-stream)──▶ pages
///                                                   ──GET /──▶ the page
///
/// A page that connects gets the current scene and devices first, then every line as it comes. When the
/// daemon goes away the pages are told (`event: status`) and the server connects again (0.5 s doubling to 2 s).
/// A page that stops reading until 16 MiB wait for it is dropped; the others are not slowed down.
///
/// The page shows what the socket's readers see, to whoever reaches the port, so the door is kept as the
/// socket's 0660 keeps its own (docs/protocol.md, "Doors"): it listens on loopback; a request must name
/// a loopback host in `Host` (a DNS-rebinding page names its own: 421); every path wants the token made
/// at start, from the printed URL's `?token=` or the cookie the page gets with it (else 403), unless
/// `--no-token`; touch lines are forwarded only with `--touches`, as a reader must ask for them.
public final class VisualizeServer {
    public static let defaultAddress = "127.0.0.1:8391"
    package static let peerQueueLimit = 16 * 1024 * 1024
    package static let maximumRequest = 8192

    package final class Peer {
        let fd: FileDescriptor
        var request: [UInt8] = []
        var isStream = false
        let output = OutputQueue()
        var wantsWritable = false
        /// Close once the output is sent (a plain response).
        var closeWhenSent = false
        init(fd: FileDescriptor) { self.fd = fd }
    }

    package let loop: EventLoop
    package let log: Logger
    package let socketPath: String
    package let listenFD: FileDescriptor
    public let url: String
    private let page: [UInt8]
    private var peers: [FileDescriptor: Peer] = [:]
    /// The daemon's socket, connected again after 0.5 s doubling to 2 s when it goes away (a page
    /// waits on it: a short wait).
    private let daemon: DaemonConnection
    /// What a page that connects is told first: the scene, and the devices present by node.
    private var sceneLine: [UInt8]?
    private var deviceLines: [(node: String, added: [UInt8], changed: [UInt8]?)] = []
    /// The daemon's absence was logged (once until it answers again).
    private var toldWaiting = false
    /// What every request must carry (nil: `--no-token`): 128 random bits in hex.
    package let token: String?
    /// The cookie that carries the token for the page's own requests: one name a port, since a browser
    /// sends a host's cookies to each of its ports.
    package let cookieName: String
    /// The topics asked of the daemon: touches only with `--touches`.
    package let topics: [String]
    /// The address listened on, and whether it is loopback.
    package let host: String
    package let port: UInt16
    private var lastHostWarning = -Double.infinity

    /// Listens on `address` ("ADDR:PORT", IPv4) and will follow the daemon on `socketPath`.
    public init(address: String, socketPath: String, requireToken: Bool = true, touches: Bool = false, log: Logger) throws {
        self.log = log
        self.socketPath = socketPath
        loop = try EventLoop()
        let (host, port) = try VisualizeServer.parse(address)
        self.host = host
        self.port = port
        listenFD = try VisualizeServer.listen(host: host, port: port)
        token = requireToken ? try VisualizeServer.randomToken() : nil
        cookieName = "touchbridge_token_\(port)"
        topics = ClientCommand.topicNames.filter { touches || $0 != "touches" }
        url = "http://\(host):\(port)/" + (token.map { "?token=" + $0 } ?? "")
        page = Array(VisualizerPage.html(mode: "live", title: "TouchBridge live").utf8)
        if !host.hasPrefix("127.") {
            log.warning("listening on \(host):\(port), not loopback: anyone who can reach it"
                        + (requireToken ? " and has the token" : "") + " sees \(touches ? "every touch (an on-screen keyboard's keys included)" : "every gesture")")
        }
        if !requireToken {
            log.warning("--no-token: every local user, and every page open in a browser on this machine, may read the page \(touches ? "and every touch " : "")at \(url) (for a trusted kiosk only)")
        }
        daemon = try DaemonConnection(path: socketPath, topics: topics, loop: loop, backoff: Backoff(first: 0.5, maximum: 2))
        try loop.add(listenFD) { [unowned self] _ in self.acceptAll() }
        daemon.onConnect = { [unowned self] in daemonConnected() }
        daemon.onDisconnect = { [unowned self] reason, _, failures in daemonLost(reason, failures: failures) }
        daemon.onLine = { [unowned self] in forward($0) }
    }

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

    package static func listen(host: String, port: UInt16) throws -> FileDescriptor {
        do {
            return try InetSocket.listen(host: host, port: port)
        } catch {
            throw SocketError("\(host):\(port): cannot listen: \(error.errno)"
                              + (error.errno.rawValue == EADDRINUSE ? " (another visualize is running there? choose another with --listen ADDR:PORT)" : ""))
        }
    }

    /// Serves until SIGINT or SIGTERM.
    public func run() throws -> Int32 {
        let signals = try SignalReceiver([SIGINT, SIGTERM])
        try loop.add(signals.fd) { [unowned self] _ in _ = signals.take(); self.loop.stop() }
        daemon.start()
        loop.run()
        daemon.stop()
        for fd in Array(peers.keys) { drop(fd) }
        listenFD.close()
        return 0
    }

    // MARK: The daemon

    private func daemonConnected() {
        log.info("following the daemon on \(socketPath)")
        toldWaiting = false
        status("connected")
    }

    private func daemonLost(_ reason: String, failures: Int) {
        sceneLine = nil
        deviceLines = []
        if failures == 0 {
            log.warning("the daemon closed the connection; connecting again")
            status("the daemon went away; connecting again (systemctl status touchbridged says why)")
        } else if !toldWaiting {
            // Said once, not at every try: the page shows the wait too.
            log.warning("\(reason); trying again")
        }
        toldWaiting = true
    }

    /// A line from the daemon: remembered when it describes the present (scene, devices), and sent to
    /// every page.
    private func forward(_ line: DaemonLine) {
        switch line.event {
        case .scene:
            sceneLine = line.array
        case .device:
            guard let json = line.json, let d = DeviceLine.decode(json) else { break }
            switch d.action {
            case "added": deviceLines.removeAll { $0.node == d.node }; deviceLines.append((d.node, line.array, nil))
            case "changed": if let i = deviceLines.firstIndex(where: { $0.node == d.node }) { deviceLines[i].changed = line.array }
            default: deviceLines.removeAll { $0.node == d.node }
            }
        case .hello, .subscribed:
            return
        default:
            break
        }
        let event = Array("data: ".utf8) + line.array + [0x0a, 0x0a]
        for peer in peers.values where peer.isStream { enqueue(peer, event) }
        flushAll()
    }

    /// `event: status` to every page: the daemon connected or went away.
    private func status(_ text: String) {
        let event = Array("event: status\ndata: \(text)\n\n".utf8)
        for peer in peers.values where peer.isStream { enqueue(peer, event) }
        flushAll()
    }

    // MARK: Pages

    private func acceptAll() {
        while true {
            guard case .success(let accepted?) = UnixSocket.acceptConnection(listenFD) else { return }
            let fd = accepted
            let peer = Peer(fd: fd)
            peers[fd] = peer
            do {
                try loop.add(fd, events: [.readable, .hangup]) { [unowned self] ev in self.service(fd, ev) }
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
        while true {
            guard case .success(let got?) = buffer.withUnsafeMutableBytes({ UnixSocket.receive(peer.fd, into: $0) }) else { return }
            let n = got
            if n == 0 { return drop(peer.fd) }
            // A stream's page sends nothing more; what it might send is ignored.
            guard !peer.isStream else { continue }
            peer.request.append(contentsOf: buffer[0..<n])
            if let end = peer.request.firstRange(of: Array("\r\n\r\n".utf8)) {
                respond(peer, to: Array(peer.request[..<end.lowerBound]))
                return
            }
            if peer.request.count > VisualizeServer.maximumRequest {
                return reply(peer, status: "431 Request Header Fields Too Large", type: "text/plain", body: Array("request too large\n".utf8))
            }
        }
    }

    /// GET / (the page), GET /events (the stream); anything else is an error. The host and the token
    /// are checked first, for every path.
    private func respond(_ peer: Peer, to head: [UInt8]) {
        let request = HTTPRequestHead(head)
        guard let request, request.version.hasPrefix("HTTP/1.") else {
            return reply(peer, status: "400 Bad Request", type: "text/plain", body: Array("bad request\n".utf8))
        }
        guard let hostHeader = request.header("host") else {
            return reply(peer, status: "400 Bad Request", type: "text/plain", body: Array("a request must name its Host, once\n".utf8))
        }
        guard hostIsAllowed(hostHeader) else {
            // Said at most once every 10 s: a hostile page may ask again and again.
            let now = monotonicNow()
            if now - lastHostWarning >= 10 {
                lastHostWarning = now
                log.warning("refused a request for host \"\(hostHeader)\": the page answers to loopback names only (a page of another site, by DNS rebinding?)")
            }
            return reply(peer, status: "421 Misdirected Request", type: "text/plain",
                         body: Array("this server answers to \(host == "0.0.0.0" ? "loopback names and IP addresses" : "loopback names") only\n".utf8))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return reply(peer, status: "405 Method Not Allowed", type: "text/plain", body: Array("only GET\n".utf8))
        }
        var setCookie: String?
        if let token {
            let given = request.query("token") ?? request.cookie(cookieName)
            guard let given, VisualizeServer.sameToken(given, token) else {
                return reply(peer, status: "403 Forbidden", type: "text/plain",
                             body: Array("forbidden: open the address touchbridgectl visualize printed (it carries ?token=…)\n".utf8))
            }
            if request.query("token") != nil {
                setCookie = "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
            }
        }
        switch request.path {
        case "/", "/index.html":
            reply(peer, status: "200 OK", type: "text/html; charset=utf-8", body: request.method == "HEAD" ? [] : page, cookie: setCookie)
        case "/events":
            peer.isStream = true
            var start = Array(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                               + "Connection: keep-alive\r\nX-Content-Type-Options: nosniff\r\n\r\nretry: 1000\n\n").utf8)
            start += Array("event: status\ndata: \(daemon.state != .connected ? "the daemon is not answering: start it (systemctl start touchbridged, or make run)" : "connected")\n\n".utf8)
            for l in [sceneLine].compactMap({ $0 }) + deviceLines.flatMap({ [$0.added] + ($0.changed.map { [$0] } ?? []) }) { start += Array("data: ".utf8) + l + [0x0a, 0x0a] }
            enqueue(peer, start)
            flush(peer)
        default:
            reply(peer, status: "404 Not Found", type: "text/plain", body: Array("not found: the page is at /\n".utf8))
        }
    }

    /// A Host header's name (without its port) is a loopback name or address; when listening on every
    /// interface, an IP address too (a rebinding page always names a domain).
    package func hostIsAllowed(_ header: String) -> Bool {
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

    private func reply(_ peer: Peer, status: String, type: String, body: [UInt8], cookie: String? = nil) {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
            + (cookie.map { "Set-Cookie: \($0)\r\n" } ?? "")
            + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
        peer.closeWhenSent = true
        enqueue(peer, Array(head.utf8) + body)
        flush(peer)
    }

    private func enqueue(_ peer: Peer, _ bytes: [UInt8]) {
        guard peer.output.append(bytes, limit: VisualizeServer.peerQueueLimit) else {
            log.warning("a page stopped reading (\(peer.output.count) bytes waiting); dropped so the others go on")
            return drop(peer.fd)
        }
    }

    private func flushAll() {
        for peer in Array(peers.values) where peer.output.count > 0 { flush(peer) }
    }

    private func flush(_ peer: Peer) {
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

    private func drop(_ fd: FileDescriptor) {
        guard peers.removeValue(forKey: fd) != nil else { return }
        loop.remove(fd)
        fd.close()
    }
}

/// The head of an HTTP/1.x request, as far as the visualizer reads it: the request line, the headers,
/// the query and the cookies.
package struct HTTPRequestHead {
    package let method: String
    package let target: String
    package let version: String
    /// Header names in lower case, in the order sent.
    package let headers: [(name: String, value: String)]

    package init?(_ head: [UInt8]) {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return nil }
        let parts = lines.removeFirst().split(separator: " ")
        guard parts.count == 3 else { return nil }
        method = String(parts[0])
        target = String(parts[1])
        version = String(parts[2])
        var hs: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            hs.append((line[..<colon].lowercased(), value))
        }
        headers = hs
    }

    package var path: String { target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/" }

    /// The header of that name (lower case); nil when it is absent or sent twice (two Hosts: which one
    /// would a proxy have checked?).
    package func header(_ name: String) -> String? {
        let all = headers.filter { $0.name == name }
        return all.count == 1 ? all[0].value : nil
    }

    /// A query parameter's value (no percent-decoding: a token is hex).
    package func query(_ name: String) -> String? {
        guard let q = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in q.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.first.map(String.init) == name { return kv.count > 1 ? String(kv[1]) : "" }
        }
        return nil
    }

    /// A cookie's value from the Cookie headers.
    package func cookie(_ name: String) -> String? {
        for h in headers where h.name == "cookie" {
            for c in h.value.split(separator: ";") {
                let kv = c.trimmingCharacters(in: " ").split(separator: "=", maxSplits: 1)
                if kv.count == 2 && kv[0] == name { return String(kv[1]) }
            }
        }
        return nil
    }
}

private extension StringProtocol {
    /// Without the leading and trailing characters in `set` (no Foundation here).
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
