import Glibc
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridgectl tuio` (docs/tuio.md): a client of the daemon's socket that says its touches as TUIO
/// 1.1, 2.0 or both over UDP, so that TouchDesigner, Unity, Qt's TuioTouch, openFrameworks and Processing hear the
/// panel with no bridge of their own. The daemon stays without network; this process reads the
/// `touches`, `scene` (the window's size, for normalizing) and `devices` topics, and `gestures` with
/// `--gestures`.
///
/// No cursor is left alive by us: at the start (for what an earlier run left), when the daemon goes away (its touches were cancelled with it, or
/// not), when a device is removed, and when the bridge stops, an empty alive set is sent; while nothing
/// changes, the last alive set is sent again once a second (`resendInterval`), so a client that lost a
/// datagram (UDP keeps no promise) drops a lifted cursor within a second.
package final class TUIOBridge {
    package struct Options {
        package var targets = [TUIOSender.Target(host: "127.0.0.1", port: 3333)]
        package var source = "touchbridge@" + MQTTConfig.hostname()
        /// `--device`: an index, or a name or shell pattern (of the name or node), as `set --device`.
        package var device = ClientCommand.DeviceTarget.all
        package var gestures = false
        /// `--profile 1.1|2.0|both`.
        package var profiles: [TUIOSender.Profile] = [.v1_1]
    }

    private let options: Options
    private let log: Logger
    private let loop: EventLoop
    private let daemon: DaemonConnection
    private let stream: TUIOStream
    private let resend: Timer

    package init(options: Options, socketPath: String, log: Logger) throws {
        self.options = options
        self.log = log
        loop = try EventLoop()
        let sender = try TUIOSender(targets: options.targets, source: options.source, profiles: options.profiles)
        stream = TUIOStream(sender: sender, device: options.device, gestures: options.gestures, log: log)
        resend = try Timer()
        daemon = try DaemonConnection(path: socketPath, topics: TUIOStream.topics(gestures: options.gestures), loop: loop)
        daemon.onConnect = { [log] in log.info("reading \(socketPath)") }
        daemon.onLine = { [unowned self] in stream.line($0) }
        daemon.onReadEnd = { [unowned self] in stream.flush() }
        daemon.onDisconnect = { [unowned self] reason, wait, failures in
            stream.daemonLost(failures: failures)
            if failures == 0 { log.warning("\(reason); no cursors alive until it is back") }
            else if failures == 1 { log.warning("\(reason); trying again in \(wait ?? 0) s") }
        }
        try loop.add(resend.fd) { [unowned self] _ in
            resend.acknowledge()
            stream.idle()
        }
    }

    /// Runs until SIGTERM, SIGINT or SIGHUP (a closed terminal: its default would end us without a
    /// word); the last word is an empty alive set.
    package func run() throws -> Int32 {
        let signals = try SignalReceiver([SIGTERM, SIGINT, SIGHUP])
        try loop.add(signals.fd) { [unowned self] _ in
            if !signals.take().isEmpty { loop.stop() }
        }
        defer { loop.remove(signals.fd) }
        let sender = stream.sender
        log.info("TUIO \(options.profiles.map(\.rawValue).joined(separator: " and ")) to \(sender.targets.map(\.text).joined(separator: ", ")) as \"\(options.source)\""
                 + Self.describe(options.device) + (options.gestures ? ", with gestures" : ""))
        stream.start()
        resend.arm(at: monotonicNow() + TUIOStream.resendInterval, interval: TUIOStream.resendInterval)
        daemon.start()
        loop.run()
        stream.stop()
        daemon.stop()
        loop.remove(resend.fd)
        log.info("sent \(sender.bundlesSent) bundle\(sender.bundlesSent == 1 ? "" : "s")")
        return 0
    }

    private static func describe(_ t: ClientCommand.DeviceTarget) -> String {
        switch t {
        case .all: ""
        case .index(let i): ", device \(i)"
        case .name(let p): ", device \(p)"
        }
    }
}

/// The daemon's lines made TUIO bundles, for the UDP bridge and the WebSocket bridge alike: frames
/// gathered from the touch lines (one device, one time), sessions kept, the promises kept (an empty
/// alive at the start, when a device or the daemon goes, and at the end; the alive sets again while idle).
package final class TUIOStream {
    /// While nothing changes, the alive set is said again this often (seconds).
    package static let resendInterval = 1.0

    package static func topics(gestures: Bool) -> [String] { ["touches", "scene", "devices"] + (gestures ? ["gestures"] : []) }

    package let sender: TUIOSender
    private let log: Logger
    private let device: ClientCommand.DeviceTarget
    private let gestures: Bool
    private var sessions = TUIOSessions()
    private var window = (width: 0.0, height: 0.0)
    /// The devices present, by index: what `--device` is matched against.
    private var devices: [Int: (name: String, node: String)] = [:]
    /// The frame being gathered: the touch lines of one device with one time.
    private var pending: (time: Double, device: Int)?
    private var frameGestures: [TUIOSender.Gesture] = []
    private var lastSent = 0.0
    /// Sending fails: the reason logged, and the failures counted when it began (a target gone stays
    /// one log line, not one a frame).
    private var failing: (reason: String, since: Int)?

    package init(sender: TUIOSender, device: ClientCommand.DeviceTarget = .all, gestures: Bool = false, log: Logger) {
        self.sender = sender
        self.device = device
        self.gestures = gestures
        self.log = log
    }

    /// The first word is an empty alive set: cursors a client still holds from a bridge that did not
    /// end cleanly (killed, a host that lost power) go.
    package func start() { say(nil) }

    /// The last word: every session ends.
    package func stop() {
        flush()
        sessions.removeAll()
        say(nil)
    }

    package func line(_ line: DaemonLine) {
        switch line.event {
        case .touch:
            guard let json = line.json, let t = TouchLines.decode(json), takes(t.device) else { return }
            if let p = pending, p.time != t.time || p.device != t.device { flush() }
            if pending == nil {
                pending = (t.time, t.device)
                sessions.begin(time: t.time, device: t.device)
            }
            sessions.apply(t, width: window.width, height: window.height)
        case .gesture:
            guard gestures, let json = line.json, let g = GestureLine.decode(json), g.device.map(takes) ?? true else { return }
            let x = g.x.map { window.width > 0 ? $0 / window.width : 0 } ?? 0
            let y = g.y.map { window.height > 0 ? $0 / window.height : 0 } ?? 0
            frameGestures.append(TUIOSender.Gesture(recognizer: g.recognizer, type: g.type, state: g.state, x: x, y: y, touches: g.touches ?? 0))
        case .scene:
            if let json = line.json, let o = SceneLine.Outline.decode(json) {
                window = (o.width, o.height)
                sender.window = window
            }
        case .device:
            guard let json = line.json, let d = DeviceLine.decode(json) else { return }
            if d.action == "removed" {
                flush()
                devices[d.device] = nil
                // Its touches were cancelled before it went; had a line been lost, they end here.
                if sessions.remove(device: d.device) || sender.profiles.contains(.v2_0) { say(nil, removed: d.device) }
            } else {
                devices[d.device] = (d.name, d.node)
            }
        default: break
        }
    }

    /// Whether `--device` takes the device at `index` (one not yet told of: only by its index).
    private func takes(_ index: Int) -> Bool {
        let d = devices[index]
        return device.selects(index: index, name: d?.name ?? "", node: d?.node ?? "")
    }

    /// Says the frame gathered (and then its gestures): at the end of each read from the daemon, and
    /// when a line of another frame comes.
    package func flush() {
        if pending != nil {
            pending = nil
            let frame = sessions.end()
            if frame.isChange { say(frame) }
        }
        if !frameGestures.isEmpty {
            sender.send(gestures: frameGestures)
            frameGestures = []
        }
    }

    /// Says `frame`, or (nil) the alive sets as they are: `newFrame` false for the idle re-send, `removed`
    /// for a device gone.
    private func say(_ frame: TUIOSessions.Frame?, newFrame: Bool = true, removed: Int? = nil) {
        if let frame { sender.send(frame: frame) } else { sender.sendAlive(sessions.alive, newFrame: newFrame, removed: removed) }
        lastSent = monotonicNow()
        if !sender.lastSendWorked, let why = sender.lastFailure, why != failing?.reason {
            log.warning("cannot send: \(why) (said once while it lasts)")
            failing = (why, failing?.since ?? sender.failures - 1)
        } else if sender.lastSendWorked, let f = failing {
            log.info("sending again (\(sender.failures - f.since) datagram\(sender.failures - f.since == 1 ? "" : "s") failed)")
            failing = nil
        }
    }

    /// The resend timer: nothing said for a second, the alive set again (1.1 with the last fseq).
    package func idle() {
        guard monotonicNow() - lastSent >= Self.resendInterval * 0.9 else { return }
        say(nil, newFrame: false)
    }

    /// The daemon went (`failures` 0) or is still away: its cursors end at once.
    package func daemonLost(failures: Int) {
        pending = nil
        frameGestures = []
        devices = [:]                                   // a daemon that restarts numbers devices anew
        let hadCursors = !sessions.isEmpty
        sessions.removeAll()
        if hadCursors || failures == 0 { say(nil) }
        sender.forgetDevices()
    }
}

extension Ctl {
    package static let tuio = Command("tuio",
        "say the touches as TUIO 1.1 or 2.0 over UDP (OSC through liblo) for TouchDesigner, Unity, Qt,\nopenFrameworks, Processing; with --gestures the daemon's gestures ride along", options: [
        .option("udp", "HOST:PORT", "where to send, repeatable (default 127.0.0.1:3333, TUIO's port)"),
        .option("profile", "1.1|2.0|both", "TUIO's profile (default 1.1; 2.0 says each device under a source of its own)"),
        .option("source", "NAME", "the source the bundles name (default touchbridge@HOSTNAME)"),
        .option("device", "INDEX|NAME|PATTERN", "only this device's touches (default every device's, in one alive set)"),
        .flag("gestures", "also a /touchbridge/gesture bundle after each frame's, one message a gesture line"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing")
        var o = TUIOBridge.Options()
        let udp = a.values("udp")
        if !udp.isEmpty { o.targets = try udp.map(TUIOBridge.target) }
        if let s = a["source"] {
            guard !s.isEmpty else { throw Arguments.Failure(description: "touchbridgectl tuio: --source must not be empty") }
            o.source = s
        }
        if let d = a["device"] { o.device = ClientCommand.DeviceTarget(option: d) }
        o.gestures = a.has("gestures")
        if let p = a["profile"] { o.profiles = try TUIOBridge.profiles(p, command: "tuio") }
        let bridge = try TUIOBridge(options: o, socketPath: try DaemonSocket.path(a), log: Logger(program: "touchbridgectl tuio", level: .info))
        return try bridge.run()
    }
}

extension TUIOBridge {
    /// `--profile 1.1|2.0|both`.
    package static func profiles(_ text: String, command: String) throws -> [TUIOSender.Profile] {
        if text == "both" { return [.v1_1, .v2_0] }
        guard let p = TUIOSender.Profile(rawValue: text) else {
            throw Arguments.Failure(description: "touchbridgectl \(command): --profile \(text): give 1.1, 2.0 or both")
        }
        return [p]
    }

    /// `HOST:PORT`, `[IPV6]:PORT`.
    package static func target(_ text: String) throws -> TUIOSender.Target {
        let bad = Arguments.Failure(description: "touchbridgectl tuio: --udp \(text): give HOST:PORT (127.0.0.1:3333, [::1]:3333, kiosk.local:3333)")
        guard let colon = text.lastIndex(of: ":") else { throw bad }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { throw bad }
        return TUIOSender.Target(host: host, port: port)
    }
}
