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

    package let loop: EventLoop
    package let log: Logger
    package let socketPath: String
    /// The page's door: Host, method and token checked there (HTTPServer).
    package let http: HTTPServer
    public let url: String
    private let page: [UInt8]
    /// The pages that read the stream.
    private var streams: [HTTPServer.Peer] = []
    /// The daemon's socket, connected again after 0.5 s doubling to 2 s when it goes away (a page
    /// waits on it: a short wait). The editor sends its Try scene on it (it lives with the connection).
    package let daemon: DaemonConnection
    /// Where the page is served ("/"; the editor serves its own there and this one at "/live").
    package var pagePath = "/"
    /// Paths another page's server answers first (the editor's): true when it did.
    package var routes: ((HTTPServer.Peer, HTTPRequestHead, _ cookie: String?) -> Bool)?
    /// A peer went (a stream's, or one the routes took over).
    package var onPeerDrop: ((HTTPServer.Peer) -> Void)?
    /// The daemon's latest scene line (nil until one came).
    package var currentSceneLine: [UInt8]? { sceneLine }
    /// Lines the daemon sent, after this server took them (the editor's own use of them).
    package var onDaemonLine: ((DaemonLine) -> Void)?
    /// What a page that connects is told first: the scene, and the devices present by node.
    private var sceneLine: [UInt8]?
    /// The latest focus line: a page that opens later is told the focused app with the scene.
    private var focusLine: [UInt8]?
    private var deviceLines: [(node: String, added: [UInt8], changed: [UInt8]?)] = []
    /// The daemon's absence was logged (once until it answers again).
    private var toldWaiting = false
    /// The topics asked of the daemon: touches only with `--touches`.
    package let topics: [String]

    /// Listens on `address` ("ADDR:PORT", IPv4) and will follow the daemon on `socketPath`.
    public init(address: String, socketPath: String, requireToken: Bool = true, touches: Bool = false, log: Logger) throws {
        self.log = log
        self.socketPath = socketPath
        loop = try EventLoop()
        http = try HTTPServer(address: address, loop: loop, log: log, requireToken: requireToken,
                              queueLimit: VisualizeServer.peerQueueLimit, command: "visualize")
        let host = http.host, port = http.port
        topics = ClientCommand.topicNames.filter { touches || $0 != "touches" }
        url = "http://\(host):\(port)/" + (http.token.map { "?token=" + $0 } ?? "")
        page = Array(VisualizerPage.html(mode: "live", title: "TouchBridge live").utf8)
        if !host.hasPrefix("127.") {
            log.warning("listening on \(host):\(port), not loopback: anyone who can reach it"
                        + (requireToken ? " and has the token" : "") + " sees \(touches ? "every touch (an on-screen keyboard's keys included)" : "every gesture")")
        }
        if !requireToken {
            log.warning("--no-token: every local user, and every page open in a browser on this machine, may read the page \(touches ? "and every touch " : "")at \(url) (for a trusted kiosk only)")
        }
        daemon = try DaemonConnection(path: socketPath, topics: topics, loop: loop, backoff: Backoff(first: 0.5, maximum: 2))
        http.onRequest = { [unowned self] peer, request, cookie in respond(peer, to: request, cookie: cookie) }
        http.onDrop = { [unowned self] peer in
            streams.removeAll { $0 === peer }
            onPeerDrop?(peer)
        }
        daemon.onConnect = { [unowned self] in daemonConnected() }
        daemon.onDisconnect = { [unowned self] reason, _, failures in daemonLost(reason, failures: failures) }
        daemon.onLine = { [unowned self] in forward($0) }
    }

    /// Serves until SIGINT or SIGTERM.
    public func run() throws -> Int32 {
        let signals = try SignalReceiver([SIGINT, SIGTERM])
        try loop.add(signals.fd) { [unowned self] _ in _ = signals.take(); self.loop.stop() }
        defer { loop.remove(signals.fd) }
        daemon.start()
        loop.run()
        daemon.stop()
        http.close()
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
        focusLine = nil
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
        onDaemonLine?(line)
        switch line.event {
        case .scene:
            sceneLine = line.array
        case .focus:
            focusLine = line.array
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
        for peer in streams { http.enqueue(peer, event) }
        http.flushAll()
    }

    /// `event: status` to every page: the daemon connected or went away.
    private func status(_ text: String) {
        let event = Array("event: status\ndata: \(text)\n\n".utf8)
        for peer in streams { http.enqueue(peer, event) }
        http.flushAll()
    }

    // MARK: Pages

    /// GET / (the page), GET /events (the stream); anything else is an error. (The host and the token
    /// were checked by the server, for every path.)
    private func respond(_ peer: HTTPServer.Peer, to request: HTTPRequestHead, cookie: String?) {
        if let routes, routes(peer, request, cookie) { return }
        switch request.path {
        case pagePath, pagePath == "/" ? "/index.html" : pagePath + "/":
            http.reply(peer, status: "200 OK", type: "text/html; charset=utf-8", body: request.method == "HEAD" ? [] : page, cookie: cookie)
        case "/events":
            streams.append(peer)
            var start = Array(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                               + "Connection: keep-alive\r\nX-Content-Type-Options: nosniff\r\n\r\nretry: 1000\n\n").utf8)
            start += Array("event: status\ndata: \(daemon.state != .connected ? "the daemon is not answering: start it (systemctl start touchbridged, or make run)" : "connected")\n\n".utf8)
            for l in [sceneLine, focusLine].compactMap({ $0 }) + deviceLines.flatMap({ [$0.added] + ($0.changed.map { [$0] } ?? []) }) { start += Array("data: ".utf8) + l + [0x0a, 0x0a] }
            http.send(peer, start)
        default:
            http.reply(peer, status: "404 Not Found", type: "text/plain", body: Array("not found: the page is at /\n".utf8))
        }
    }
}
