import Glibc
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridgectl websocket` (docs/websocket.md): the daemon's lines and TUIO for browsers and other
/// WebSocket clients, on the project's one HTTP server (its Host and token rules, HTTPServer):
///
///     daemon socket ──▶ this process ──ws://HOST:PORT/lines?topics=gestures,touches──▶ text frames, a line each
///                                    ──ws://HOST:PORT/tuio?profile=1.1|2.0──────────▶ binary frames, a bundle each
///                                    ──http://HOST:PORT/NAME (--serve DIR)──────────▶ a kiosk's pages
///
/// Who may connect, besides the server's rules: a request with an `Origin` (a browser page's) only when
/// that origin is `--allow-origin`'s or the listener's own (a page it served); one without is not a
/// page and may. Touches only when the query asks for them. Frames from a client are refused (closed,
/// 1008) unless `--control`: then a text frame may be a `set` command, checked as the socket checks a
/// control peer's, carried out by the daemon and answered on that connection only.
package final class WebSocketBridge {
    package static let defaultAddress = "127.0.0.1:7681"
    /// Connections at once (more are answered 503): each costs a queue of up to 1 MiB.
    package static let maximumClients = 64

    package struct Options {
        package var listen = WebSocketBridge.defaultAddress
        package var allowOrigins: [String] = []
        package var control = false
        package var requireToken = true
        /// `--serve DIR`: its files at /NAME.
        package var serve: String?
        package var source = "touchbridge@" + MQTTConfig.hostname()
        /// `--client-queue BYTES`: what may wait for a client before it is closed as too far behind.
        package var clientQueue = WebSocketConnection.defaultBacklog
    }

    /// What a connection asked for.
    package final class Subscription {
        package enum Kind: Equatable { case lines(Topics), tuio(TUIOSender.Profile) }
        let kind: Kind
        /// The answers to the client's commands, in the order it sent them: one the daemon has not
        /// answered yet (nil) holds back those after it, a refusal made here included.
        var answers: [[UInt8]?] = []
        /// Answers sent before `answers[0]`.
        var answered = 0
        init(_ kind: Kind) { self.kind = kind }
    }

    /// Kernel memory a WebSocket client may hold (SO_SNDBUF): with `--client-queue`, how far behind it
    /// may fall before it is closed (loopback's autotuning would let it hold 4 MiB unseen).
    static let sendBuffer: Int32 = 256 * 1024

    private let options: Options
    private let log: Logger
    package let loop: EventLoop
    package let http: HTTPServer
    private let daemon: DaemonConnection
    private let stream: TUIOStream
    private let resend: Timer
    private var connections: [WebSocketConnection] = []
    package let url: String
    /// What a /lines client of those topics is told first, as a socket subscriber is: the scene, and
    /// the devices present (by index).
    private var sceneLine: [UInt8]?
    private var deviceLines: [Int: [UInt8]] = [:]

    package init(options: Options, socketPath: String, log: Logger) throws {
        self.options = options
        self.log = log
        loop = try EventLoop()
        // Above a connection's backlog limit, so the close frame that says "too far behind" always fits.
        http = try HTTPServer(address: options.listen, loop: loop, log: log, requireToken: options.requireToken,
                              queueLimit: options.clientQueue + 64 * 1024, command: "websocket")
        url = "ws://\(http.host):\(http.port)/lines" + (http.token.map { "?token=" + $0 } ?? "")
        let sender = try TUIOSender(targets: [], source: options.source, profiles: [.v1_1, .v2_0])
        stream = TUIOStream(sender: sender, log: log)
        resend = try Timer()
        daemon = try DaemonConnection(path: socketPath, topics: Topics.names, loop: loop, backoff: Backoff(first: 0.5, maximum: 2))
        if !http.host.hasPrefix("127.") {
            log.warning("listening on \(http.host):\(http.port), not loopback: anyone who can reach it"
                        + (options.requireToken ? " and has the token" : "") + " hears the gestures (and the touches, if asked)")
        }
        if !options.requireToken {
            log.warning("--no-token: every local user may connect (for a trusted kiosk only)")
        }
        sender.onBundle = { [unowned self] profile, bytes in
            guard let profile else { return }
            for c in connections where (c.info as? Subscription)?.kind == .tuio(profile) { c.send(bytes, text: false) }
        }
        http.onRequest = { [unowned self] peer, request, cookie in respond(peer, request, cookie) }
        http.onBytes = { peer, bytes in (peer.owner as? WebSocketConnection)?.received(bytes) }
        http.onDrop = { [unowned self] peer in connections.removeAll { $0.peer === peer } }
        daemon.onConnect = { [log] in log.info("following the daemon on \(socketPath)") }
        daemon.onLine = { [unowned self] in forward($0) }
        daemon.onReadEnd = { [unowned self] in
            stream.flush()
            for c in connections { c.pump() }
        }
        daemon.onDisconnect = { [unowned self] reason, wait, failures in
            stream.daemonLost(failures: failures)
            sceneLine = nil
            deviceLines = [:]
            for c in connections { c.pump() }
            if failures == 0 { log.warning("\(reason); no cursors alive until it is back") }
            else if failures == 1 { log.warning("\(reason); trying again") }
        }
        try loop.add(resend.fd) { [unowned self] _ in
            resend.acknowledge()
            stream.idle()
            for c in connections { c.pump() }
        }
    }

    /// Serves until SIGTERM, SIGINT or SIGHUP; every connection is closed with 1001 (going away), a TUIO
    /// client's after an empty alive set.
    package func run() throws -> Int32 {
        let signals = try SignalReceiver([SIGTERM, SIGINT, SIGHUP])
        try loop.add(signals.fd) { [unowned self] _ in
            if !signals.take().isEmpty { loop.stop() }
        }
        defer { loop.remove(signals.fd) }
        stream.start()
        resend.arm(at: monotonicNow() + TUIOStream.resendInterval, interval: TUIOStream.resendInterval)
        daemon.start()
        loop.run()
        stream.stop()
        for c in connections { c.close(code: 1001, reason: "the bridge stops") }
        // What is queued goes out, for a moment at most (a client that does not read loses it).
        let end = monotonicNow() + 1
        while http.peerCount > 0 && monotonicNow() < end {
            http.flushAll()
            usleep(10_000)
        }
        daemon.stop()
        loop.remove(resend.fd)
        http.close()
        return 0
    }

    // MARK: Lines

    /// The topic of a daemon line (docs/protocol.md); nil for the answers to our own commands.
    static func topic(of event: DaemonLine.Event) -> Topics? {
        switch event {
        case .gesture, .pencil: .gestures
        case .touch: .touches
        case .device, .wake, .display: .devices
        case .recognizer: .recognizers
        case .scene: .scene
        case .action: .actions
        case .activity: .activity
        case .focus: .focus
        case .hello, .subscribed, .ok, .error, .other: nil
        }
    }

    private func forward(_ line: DaemonLine) {
        stream.line(line)
        switch line.event {
        case .scene: sceneLine = line.array
        case .device:
            if let json = line.json, let d = DeviceLine.decode(json) { deviceLines[d.device] = d.action == "removed" ? nil : line.array }
        default: break
        }
        guard let topic = Self.topic(of: line.event) else { return }
        let bytes = UnsafeRawBufferPointer(line.bytes)
        for c in connections {
            if case .lines(let topics) = (c.info as? Subscription)?.kind, topics.contains(topic) { c.send(bytes, text: true) }
        }
    }

    // MARK: Requests

    /// Why an upgrade is refused: the status, the body, a header to add, and the origin refused (logged).
    package struct Refusal: Error {
        package var status: String
        package var body: String
        package var headers = ""
        package var origin: String?
    }

    /// What an admitted request to /lines or /tuio asks for: its key and subscription, or why not. A
    /// pure function of the request (the fuzz target calls it).
    package static func upgrade(_ request: HTTPRequestHead, allowOrigins: [String], listening: String) -> Result<(key: String, kind: Subscription.Kind), Refusal> {
        switch handshake(request, allowOrigins: allowOrigins, listening: listening) {
        case .failure(let r): return .failure(r)
        case .success(let key):
            do { return .success((key, try subscription(path: request.path, request: request))) } catch {
                return .failure(Refusal(status: "400 Bad Request", body: "\(error)\n"))
            }
        }
    }

    /// What any WebSocket of ours checks of the upgrade request (this bridge's, the editor's): the
    /// headers of RFC 6455, version 13, and an origin that is this listener's own or allowed. The key.
    package static func handshake(_ request: HTTPRequestHead, allowOrigins: [String], listening: String) -> Result<String, Refusal> {
        let path = request.path
        guard request.header("upgrade")?.lowercased() == "websocket",
              request.header("connection")?.lowercased().split(separator: ",").contains(where: { $0.trimmingCharacters(in: " ") == "upgrade" }) == true,
              let key = request.header("sec-websocket-key"), key.utf8.count == 24 else {
            return .failure(Refusal(status: "400 Bad Request", body: "\(path) is a WebSocket: connect with ws://\(listening)\(path)\n"))
        }
        guard request.header("sec-websocket-version") == "13" else {
            return .failure(Refusal(status: "426 Upgrade Required", body: "WebSocket version 13 only\n", headers: "Sec-WebSocket-Version: 13\r\n"))
        }
        if let origin = request.header("origin"), !originAllowed(origin, host: request.header("host") ?? "", allowOrigins: allowOrigins) {
            let o = HTTPServer.printable(origin)
            return .failure(Refusal(status: "403 Forbidden", body: "the origin \(o) may not connect: start touchbridgectl websocket with --allow-origin \(o)\n", origin: o))
        }
        return .success(key)
    }

    private func respond(_ peer: HTTPServer.Peer, _ request: HTTPRequestHead, _ cookie: String?) {
        guard request.path == "/lines" || request.path == "/tuio" else { return serveFile(peer, request, cookie) }
        let key: String, kind: Subscription.Kind
        switch Self.upgrade(request, allowOrigins: options.allowOrigins, listening: "\(http.host):\(http.port)") {
        case .failure(let r):
            if let o = r.origin { log.warning("refused a WebSocket from the page of \(o) (not --allow-origin's)") }
            return http.reply(peer, status: r.status, type: "text/plain", body: Array(r.body.utf8), headers: r.headers)
        case .success(let s):
            (key, kind) = s
        }
        guard connections.count < Self.maximumClients else {
            return http.reply(peer, status: "503 Service Unavailable", type: "text/plain",
                              body: Array("too many clients (\(connections.count)); try again later\n".utf8))
        }
        let c: WebSocketConnection
        do { c = try WebSocketConnection(peer: peer, server: http, backlog: options.clientQueue) } catch {
            return http.reply(peer, status: "500 Internal Server Error", type: "text/plain", body: Array("\(error)\n".utf8))
        }
        c.info = Subscription(kind)
        UnixSocket.setSendBuffer(peer.fd, bytes: Self.sendBuffer)
        c.onMessage = { [unowned self] c, text, bytes in message(c, text: text, bytes) }
        connections.append(c)
        http.send(peer, Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                               + "Sec-WebSocket-Accept: \(WebSocketConnection.acceptKey(key))\r\n"
                               + (cookie.map { "Set-Cookie: \($0)\r\n" } ?? "") + "\r\n").utf8))
        if case .lines(let topics) = kind {
            var first: [[UInt8]] = []
            if topics.contains(.scene), let sceneLine { first.append(sceneLine) }
            if topics.contains(.devices) { first += deviceLines.sorted { $0.key < $1.key }.map(\.value) }
            for l in first { l.withUnsafeBytes { _ = c.send($0, text: true) } }
            c.pump()
        }
    }

    /// `/lines?topics=a,b` (default gestures) or `/tuio?profile=1.1|2.0` (default 1.1).
    package static func subscription(path: String, request: HTTPRequestHead) throws -> Subscription.Kind {
        if path == "/tuio" {
            let p = request.query("profile") ?? "1.1"
            guard let profile = TUIOSender.Profile(rawValue: p) else { throw SocketError("/tuio?profile=\(HTTPServer.printable(p)): give 1.1 or 2.0") }
            return .tuio(profile)
        }
        let names = (request.query("topics") ?? "gestures").split(separator: ",").map(String.init)
        var topics = Topics()
        for n in names {
            guard let t = Topics(name: n) else {
                throw SocketError("/lines?topics=: unknown topic \"\(HTTPServer.printable(n))\"; topics are \(Topics.names.joined(separator: ", "))")
            }
            topics.insert(t)
        }
        return .lines(topics)
    }

    /// An origin may connect: listed with `--allow-origin`, or this listener's own (the page came from it).
    package static func originAllowed(_ origin: String, host: String, allowOrigins: [String]) -> Bool {
        let o = normalized(origin)
        return allowOrigins.contains { normalized($0) == o } || o == "http://" + host.lowercased()
    }

    static func normalized(_ origin: String) -> String {
        var o = origin.lowercased()
        while o.hasSuffix("/") { o.removeLast() }
        return o
    }

    /// A client's frame: a `set` command with `--control`, else the connection is closed. Its answer
    /// (the daemon's ok or error, or a refusal made here) comes back in the order the commands came.
    private func message(_ c: WebSocketConnection, text: Bool, _ bytes: UnsafeRawBufferPointer) {
        guard options.control, let sub = c.info as? Subscription, case .lines = sub.kind, text else {
            return c.close(code: 1008, reason: options.control ? "only text frames with set commands, on /lines"
                                                               : "this bridge takes no frames (start it with --control for set commands)")
        }
        let line = Array(bytes)
        let slot = sub.answered + sub.answers.count
        sub.answers.append(nil)
        switch Self.controlCommand(line) {
        case .success(let command):
            daemon.send(command) { [weak c] answer in
                guard let c else { return }
                switch answer {
                case .ok(let warning): Self.answer(c, slot, OkLine.encode(command: "set", warning: warning))
                case .refused(let why): Self.answer(c, slot, ErrorLine.encode(why))
                case .closed: Self.answer(c, slot, ErrorLine.encode("the daemon is not answering; send it again when it is back"))
                }
            }
        case .failure(let refusal):
            Self.answer(c, slot, ErrorLine.encode(refusal.message))
        }
    }

    /// What a `--control` client's text frame may be: a `set` command, as the socket reads it. A pure
    /// function (the fuzz target calls it).
    package static func controlCommand(_ line: [UInt8]) -> Result<ClientCommand, ClientCommand.Refusal> {
        do throws(ClientCommand.Refusal) {
            guard ClientCommand.leadingKey(line) == "set" else {
                throw ClientCommand.Refusal(message: "only set commands (subscribe with the query's topics; a scene lives with a connection, so none here)")
            }
            guard let command = try ClientCommand.parse(line) else { throw ClientCommand.Refusal(message: "an empty line") }
            return .success(command)
        } catch {
            return .failure(error)
        }
    }

    /// Fills answer `slot` of `c` and sends every answer now in order.
    private static func answer(_ c: WebSocketConnection, _ slot: Int, _ bytes: [UInt8]) {
        guard let sub = c.info as? Subscription, slot >= sub.answered, slot - sub.answered < sub.answers.count else { return }
        sub.answers[slot - sub.answered] = bytes
        while let first = sub.answers.first, let ready = first {
            sub.answers.removeFirst()
            sub.answered += 1
            ready.withUnsafeBytes { _ = c.send($0, text: true) }
        }
        c.pump()
    }

    // MARK: Files

    /// GET /NAME: a file of `--serve DIR` (no directories, no names that start with a dot).
    private func serveFile(_ peer: HTTPServer.Peer, _ request: HTTPRequestHead, _ cookie: String?) {
        let name = String(request.path.dropFirst())
        guard let dir = options.serve else {
            return http.reply(peer, status: "404 Not Found", type: "text/plain",
                              body: Array("not found: the WebSockets are /lines and /tuio (files with --serve DIR)\n".utf8))
        }
        let file = name.isEmpty ? "index.html" : name
        guard !file.contains("/"), !file.hasPrefix("."), let body = Self.contents(of: dir + "/" + file) else {
            return http.reply(peer, status: "404 Not Found", type: "text/plain", body: Array("not found: \(HTTPServer.printable(name))\n".utf8))
        }
        let type = file.hasSuffix(".html") ? "text/html; charset=utf-8" : file.hasSuffix(".js") ? "text/javascript"
            : file.hasSuffix(".css") ? "text/css" : file.hasSuffix(".json") ? "application/json" : "application/octet-stream"
        http.reply(peer, status: "200 OK", type: type, body: request.method == "HEAD" ? [] : body, cookie: cookie)
    }

    /// A regular file's bytes (at most 4 MiB), or nil.
    static func contents(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size <= 4 << 20 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < out.count {
            let n = out.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, $0.count - got) }
            if n <= 0 { break }
            got += n
        }
        return Array(out[0..<got])
    }
}
extension Ctl {
    package static let websocket = Command("websocket",
        "the daemon's lines and TUIO for browsers over WebSocket: ws://HOST:PORT/lines?topics=…\n(a text frame a line) and /tuio?profile=1.1|2.0 (a binary frame a bundle)", options: [
        .option("listen", "HOST:PORT", "where to listen (default \(WebSocketBridge.defaultAddress)); an address other than\nloopback lets whoever reaches it and has the token connect"),
        .option("allow-origin", "ORIGIN", "a web origin whose pages may connect (https://kiosk.example), repeatable;\npages served here (--serve) always may, clients that send no Origin (not pages) too"),
        .flag("control", "let /lines clients send set commands (checked as the socket checks them)"),
        .option("serve", "DIR", "serve DIR's files at /NAME (a kiosk's page next to its WebSocket)"),
        .option("client-queue", "BYTES", "what may wait for a client that reads slowly before it is closed (default 1 MiB)"),
        .flag("no-token", "no token in the address (a trusted kiosk only: every local user may connect)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing")
        var o = WebSocketBridge.Options()
        if let l = a["listen"] { o.listen = l }
        o.allowOrigins = a.values("allow-origin")
        o.control = a.has("control")
        o.requireToken = !a.has("no-token")
        o.serve = a["serve"]
        if let q = a["client-queue"] {
            guard let n = Int(q), n >= 4096 else { throw Arguments.Failure(description: "touchbridgectl websocket: --client-queue takes a number of bytes, 4096 or more") }
            o.clientQueue = n
        }
        let bridge = try WebSocketBridge(options: o, socketPath: try DaemonSocket.path(a), log: Logger(program: "touchbridgectl websocket", level: .info))
        // The address once, on standard output, where a script can take it.
        var out = StandardOutput()
        out.line("touchbridgectl websocket: \(bridge.url)" + (o.serve != nil ? " (pages at http://\(bridge.http.host):\(bridge.http.port)/" + (bridge.http.token.map { "?token=" + $0 } ?? "") + ")" : ""))
        out.flush()
        return try bridge.run()
    }
}
