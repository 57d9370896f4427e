import CLinux
import Glibc
import TouchCore
import TouchInput

/// `touchbridgectl visualize`: a small HTTP server, outside the daemon (which speaks no HTTP), that
/// serves the visualizer's page and streams the daemon's lines to every open page as Server-Sent Events.
///
///     daemon socket ──(every topic)──▶ this process ──GET /events (text/event-stream)──▶ pages
///                                                   ──GET /──▶ the page
///
/// A page that connects gets the current scene and devices first, then every line as it comes. When the
/// daemon goes away the pages are told (`event: status`) and the server connects again every second.
/// A page that stops reading until 16 MiB wait for it is dropped; the others are not slowed down.
public final class VisualizeServer {
    public static let defaultAddress = "127.0.0.1:8391"
    static let peerQueueLimit = 16 * 1024 * 1024
    static let maximumRequest = 8192

    final class Peer {
        let fd: FileDescriptor
        var request: [UInt8] = []
        var isStream = false
        let output = OutputQueue()
        var wantsWritable = false
        /// Close once the output is sent (a plain response).
        var closeWhenSent = false
        init(fd: FileDescriptor) { self.fd = fd }
    }

    let loop: EventLoop
    let log: Logger
    let socketPath: String
    let listenFD: FileDescriptor
    public let url: String
    private let page: [UInt8]
    private var peers: [FileDescriptor: Peer] = [:]
    private var daemon: SocketClient?
    private let retry: Timer
    /// What a page that connects is told first: the scene, and the devices present by node.
    private var sceneLine: [UInt8]?
    private var deviceLines: [(node: String, added: [UInt8], changed: [UInt8]?)] = []
    /// The daemon's absence was logged (once until it answers again).
    private var toldWaiting = false

    /// Listens on `address` ("ADDR:PORT", IPv4) and will follow the daemon on `socketPath`.
    public init(address: String, socketPath: String, log: Logger) throws {
        self.log = log
        self.socketPath = socketPath
        loop = try EventLoop()
        retry = try Timer()
        let (host, port) = try VisualizeServer.parse(address)
        listenFD = try VisualizeServer.listen(host: host, port: port)
        url = "http://\(host):\(port)/"
        page = Array(VisualizerPage.html(mode: "live", title: "TouchBridge live").utf8)
        if !host.hasPrefix("127.") {
            log.warning("listening on \(host):\(port), not loopback: anyone who can reach it sees every touch (an on-screen keyboard's keys included)")
        }
        try loop.add(listenFD) { [unowned self] _ in self.acceptAll() }
        try loop.add(retry.fd) { [unowned self] _ in self.retry.acknowledge(); self.connectDaemon() }
    }

    static func parse(_ address: String) throws -> (String, UInt16) {
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

    static func listen(host: String, port: UInt16) throws -> FileDescriptor {
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
        connectDaemon()
        loop.run()
        for fd in Array(peers.keys) { drop(fd) }
        listenFD.close()
        return 0
    }

    // MARK: The daemon

    private func connectDaemon() {
        guard daemon == nil else { return }
        do {
            let client = try SocketClient(path: socketPath)
            try client.subscribe(ClientCommand.topicNames)
            client.fd.setNonBlocking()
            try loop.add(client.fd, events: [.readable, .hangup]) { [unowned self] _ in self.readDaemon() }
            daemon = client
            retry.arm(at: nil)
            log.info("following the daemon on \(socketPath)")
            toldWaiting = false
            status("connected")
        } catch {
            // Said once, not every second: the page shows the wait too.
            if !toldWaiting { log.warning("\(error); trying again every second") }
            toldWaiting = true
            retry.arm(at: monotonicNow() + 1)
        }
    }

    private func readDaemon() {
        guard let client = daemon else { return }
        let open = client.readAvailable { [unowned self] line in self.forward(line) }
        if !open {
            loop.remove(client.fd)
            daemon = nil
            sceneLine = nil
            deviceLines = []
            log.warning("the daemon closed the connection; connecting again every second")
            toldWaiting = true
            status("the daemon went away")
            retry.arm(at: monotonicNow() + 1)
        }
    }

    /// A line from the daemon: remembered when it describes the present (scene, devices), and sent to
    /// every page.
    private func forward(_ line: [UInt8]) {
        if line.starts(with: #"{"event":"scene""#.utf8) {
            sceneLine = line
        } else if line.starts(with: #"{"event":"device""#.utf8), let json = try? JSONParser.parse(String(decoding: line, as: UTF8.self)),
                  let node = json["node"]?.stringValue {
            switch json["action"]?.stringValue {
            case "added": deviceLines.removeAll { $0.node == node }; deviceLines.append((node, line, nil))
            case "changed": if let i = deviceLines.firstIndex(where: { $0.node == node }) { deviceLines[i].changed = line }
            default: deviceLines.removeAll { $0.node == node }
            }
        } else if line.starts(with: #"{"event":"hello""#.utf8) || line.starts(with: #"{"event":"subscribed""#.utf8) {
            return
        }
        let event = Array("data: ".utf8) + line + [0x0a, 0x0a]
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

    /// GET / (the page), GET /events (the stream); anything else is an error.
    private func respond(_ peer: Peer, to head: [UInt8]) {
        let requestLine = String(decoding: head.prefix { $0 != 0x0d && $0 != 0x0a }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            return reply(peer, status: "400 Bad Request", type: "text/plain", body: Array("bad request\n".utf8))
        }
        guard parts[0] == "GET" || parts[0] == "HEAD" else {
            return reply(peer, status: "405 Method Not Allowed", type: "text/plain", body: Array("only GET\n".utf8))
        }
        let path = parts[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        switch path {
        case "/", "/index.html":
            reply(peer, status: "200 OK", type: "text/html; charset=utf-8", body: parts[0] == "HEAD" ? [] : page)
        case "/events":
            peer.isStream = true
            var start = Array(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                               + "Connection: keep-alive\r\nX-Content-Type-Options: nosniff\r\n\r\nretry: 1000\n\n").utf8)
            start += Array("event: status\ndata: \(daemon == nil ? "the daemon is not answering" : "connected")\n\n".utf8)
            for l in [sceneLine].compactMap({ $0 }) + deviceLines.flatMap({ [$0.added] + ($0.changed.map { [$0] } ?? []) }) { start += Array("data: ".utf8) + l + [0x0a, 0x0a] }
            enqueue(peer, start)
            flush(peer)
        default:
            reply(peer, status: "404 Not Found", type: "text/plain", body: Array("not found: the page is at /\n".utf8))
        }
    }

    private func reply(_ peer: Peer, status: String, type: String, body: [UInt8]) {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
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
