import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridgectl mqtt` (docs/mqtt.md): a client of the daemon's socket and of an
/// MQTT broker, in its own process (the daemon stays without network access). One epoll loop holds the
/// daemon's socket, the broker's socket (MQTTConnection), the timers and the signals.
///
/// What it publishes under `prefix`:
/// - `status`: `online` while it reads the daemon and the broker has it, `offline` otherwise (the broker's
///   last will too), retained;
/// - `gesture/<recognizer>`: each gesture line; `devices`: the touchscreens present, retained;
///   `activity`: `{"touching":…,"lastTouch":…}` retained, when the first finger lands or the last lifts;
///   `wake`: each wake line (a touch while the display is off); `pencil`: each barrel button line;
/// - Home Assistant discovery (retained): a device trigger per recognizer of the served scene (cleared
///   when it goes; a continuous one's end a second), a wake trigger, a timestamp sensor of the last
///   touch, a binary sensor for touching, and with `control` a switch per recognizer;
/// - with `control`: `command` messages are the socket's `set` lines (with `allowScenes`, `scene` lines
///   without actions too), passed to the daemon and answered on `command/result`. Anyone who may
///   publish there reaches the daemon with this process's rights, so the topic takes least: no
///   actions (keystrokes) ever, no retained command (the broker would replay it at every reconnect),
///   nothing over 16 KiB (docs/mqtt.md, "What the command topic lets through").
public final class MQTTBridge {
    package let config: MQTTConfig
    package let socketPath: String
    package let log: Logger
    package let loop: EventLoop
    package let broker: MQTTConnection
    /// The daemon's socket: reconnected with backoff (0.5 s doubling to 10 s) while the bridge runs.
    private let daemon: DaemonConnection
    private var devices: [(index: Int, line: JSON)] = []
    private var touching: Set<String> = []
    /// A recognizer of the served scene, as discovery announces it.
    package struct SceneRecognizer {
        var name: String
        var enabled: Bool
        /// A tap or a swipe: its gesture is one `recognized` line, not began … ended.
        var discrete: Bool
        /// A stroke's shapes: a trigger each.
        var shapes: [String] = []
    }
    private(set) var recognizers: [SceneRecognizer] = []
    /// The panel's display as its last display line said (docs/display.md); nil until one came.
    package private(set) var display: DisplayLine.Decoded?
    /// Discovery topics published (retained), to clear those of recognizers that went away.
    var announced: Set<String> = []
    package private(set) var exitStatus: Int32 = 0

    package var statusTopic: String { config.prefix + "/status" }
    package var commandTopic: String { config.prefix + "/command" }
    /// The display's state and brightness, retained (the Home Assistant light's state topic).
    package var displayTopic: String { config.prefix + "/display" }
    /// The light's commands, with `control`: `{"state":"ON","brightness":40}` (Home Assistant's JSON schema).
    package var displayCommandTopic: String { config.prefix + "/display/set" }
    /// The node id of discovery topics: the prefix as one topic level.
    package var nodeID: String { String(config.prefix.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" }) }

    package init(config: MQTTConfig, socketPath: String, log: Logger) throws {
        self.config = config
        self.socketPath = socketPath
        self.log = log
        loop = try EventLoop()
        // Only what is published is read: activity from the daemon's activity lines (every touch line is
        // read only when touches are forwarded), the scene for discovery and the switches.
        daemon = try DaemonConnection(path: socketPath, topics: (config.topics.union(.gestures)
                                        .union(config.discoveryPrefix != nil || config.control ? .scene : [])).memberNames, loop: loop)
        broker = try MQTTConnection(config: config, clientID: "touchbridge:" + config.prefix, willTopic: config.prefix + "/status",
                                    loop: loop, log: log)
        broker.onConnected = { [unowned self] in brokerConnected() }
        broker.onMessage = { [unowned self] topic, payload, retained in message(topic, payload, retained: retained) }
        daemon.onConnect = { [unowned self] in daemonConnected() }
        daemon.onDisconnect = { [unowned self] reason, wait, failures in daemonLost(reason, retryIn: wait ?? 0, failures: failures) }
        daemon.onLine = { [unowned self] in line($0) }
    }

    /// Runs until SIGTERM or SIGINT: `offline` is published, then the broker is left cleanly.
    package func run() throws -> Int32 {
        let signals = try SignalReceiver([SIGTERM, SIGINT])
        try loop.add(signals.fd) { [unowned self] _ in
            if !signals.take().isEmpty { loop.stop() }
        }
        log.info("bridging \(socketPath) to \(config.summary)")
        if let w = config.cleartextPasswordWarning { log.warning(w) }
        if config.control && !mayControl() {
            log.warning("control is on, but this process (uid \(getuid())) is neither root nor the daemon's user: "
                        + "it must be in touchbridged's --control-group, or the daemon refuses the commands")
        }
        broker.start()
        daemon.start()
        loop.run()
        broker.publish(statusTopic, Array("offline".utf8), retain: true, qos: 1)
        broker.close()
        loop.remove(signals.fd)
        daemon.stop()
        return exitStatus
    }

    /// Root, or the owner of the daemon's socket (its user), may control it.
    private func mayControl() -> Bool {
        var st = stat()
        return getuid() == 0 || (stat(socketPath, &st) == 0 && st.st_uid == getuid())
    }

    // MARK: The daemon

    private var daemonIsConnected: Bool { daemon.state == .connected }

    private func daemonConnected() {
        log.info("reading \(socketPath)")
        broker.publish(statusTopic, Array("online".utf8), retain: true, qos: 1)
    }

    private func daemonLost(_ reason: String, retryIn wait: Double, failures: Int) {
        guard failures == 0 else {
            log.warning("\(reason); trying again in \(wait) s")
            return
        }
        devices = []
        touching = []
        log.warning("the daemon closed the connection; offline until it is back")
        broker.publish(statusTopic, Array("offline".utf8), retain: true, qos: 1)
    }

    /// One line of the daemon's. Gesture and touch lines, the many, are read by their few fields (the
    /// daemon writes them in a fixed order, docs/protocol.md), not parsed whole; the rest is parsed.
    private func line(_ line: DaemonLine) {
        switch line.event {
        case .touch: return touch(line)
        case .gesture:
            guard config.topics.contains(.gestures), let r = line.field("recognizer") else { return }
            broker.publish(config.prefix + "/gesture/" + MQTTConfig.topicLevel(r), line.array)
            return
        case .activity:
            guard let json = line.json, let a = ActivityLine.decode(json) else { return }
            let wasTouching = !touching.isEmpty
            if a.touching { touching.insert("\(a.device)") } else { touching.remove("\(a.device)") }
            if wasTouching != !touching.isEmpty { publishActivity() }
        case .device:
            if let json = line.json { device(json) }
        case .scene:
            if let json = line.json { scene(json) }
        case .display:
            guard config.topics.contains(.devices), let json = line.json, let d = DisplayLine.decode(json) else { return }
            let first = display == nil
            display = d
            publishDisplay()
            if first { announce() }                 // the panel has a display to show: its light
        case .wake:
            // A touch on a dark screen (docs/screen-aware.md): Home Assistant may turn the screen on.
            if config.topics.contains(.devices) { broker.publish(config.prefix + "/wake", line.array) }
        case .pencil:
            if config.topics.contains(.gestures) { broker.publish(config.prefix + "/pencil", line.array) }
        case .recognizer:
            if config.topics.contains(.recognizers) { broker.publish(config.prefix + "/recognizers", line.array) }
        default:
            break
        }
    }

    private var lastTouchFrame: String?

    /// Touch lines, with the `touches` topic: one message per frame at most (its first line: a rate
    /// limit, not a record).
    private func touch(_ line: DaemonLine) {
        if config.topics.contains(.touches), let t = line.field("time"), t != lastTouchFrame {
            lastTouchFrame = t
            broker.publish(config.prefix + "/touches", line.array, qos: 0)
        }
    }

    private var lastTouch: String?

    /// `{"state":"ON","brightness":40,"display":"dimmed","cause":"idle"}`, retained: Home Assistant's
    /// JSON light state (ON while lit, dimmed included; brightness in percent), and the display's own
    /// state and why it changed.
    private func publishDisplay() {
        guard let d = display else { return }
        var w = JSONWriter()
        w.beginObject()
        w.key("state"); w.staticString(d.state == "off" ? "OFF" : "ON")
        if let b = d.brightness { w.key("brightness"); w.int(Int((b * 100).rounded())) }
        w.key("display"); w.string(d.state)
        w.key("cause"); w.string(d.cause)
        w.endObject()
        broker.publish(displayTopic, w.bytes, retain: true)
    }

    /// A light command is a small object ({"state":"ON","brightness":40}): more is no light's.
    public static let maximumLightCommandBytes = 1024

    /// A message on the light's command topic as the daemon's command: on, off, or a brightness in
    /// percent (1…100; 0 is off). Anything else is refused with the reason.
    public static func displayCommand(_ payload: [UInt8], retained: Bool = false) -> Result<ClientCommand, ClientCommand.Refusal> {
        guard payload.count <= maximumLightCommandBytes else {
            return .failure(.init(message: "a light command of \(payload.count) bytes is refused: at most \(maximumLightCommandBytes)"))
        }
        guard !retained else { return .failure(.init(message: "retained light commands are not carried out")) }
        var parser = JSONParser(bytes: payload, recordsLines: false)
        guard let json = try? parser.parse(), let members = json.objectValue else {
            return .failure(.init(message: #"a light command is a JSON object: {"state":"ON","brightness":40} or {"state":"OFF"}"#))
        }
        for (k, _) in members where k != "state" && k != "brightness" {
            return .failure(.init(message: "\"\(k)\": the panel's light takes \"state\" and \"brightness\" (percent) only"))
        }
        let state = json["state"]?.stringValue
        guard state == "ON" || state == "OFF" || (state == nil && json["brightness"] != nil) else {
            return .failure(.init(message: "\"state\" must be \"ON\" or \"OFF\""))
        }
        if state == "OFF" { return .success(.setDisplay(on: false)) }
        guard let b = json["brightness"] else { return .success(.setDisplay(on: true)) }
        guard let pct = b.numberValue, pct >= 0, pct <= 100 else {
            return .failure(.init(message: "\"brightness\" must be a percentage from 0 to 100"))
        }
        return .success(pct == 0 ? .setDisplay(on: false) : .setBrightness(max(pct, 1) / 100))
    }

    private func publishActivity() {
        lastTouch = Self.isoNow()
        var w = JSONWriter()
        w.beginObject()
        w.key("touching"); w.bool(!touching.isEmpty)
        w.key("lastTouch"); if let l = lastTouch { w.string(l) } else { w.null() }
        w.endObject()
        broker.publish(config.prefix + "/activity", w.bytes, retain: true)
    }

    /// The wall-clock time, ISO 8601 in UTC (Home Assistant's timestamp sensors read it).
    package static func isoNow() -> String {
        var t = time(nil)
        var tm = Glibc.tm()
        gmtime_r(&t, &tm)
        var buf = [CChar](repeating: 0, count: 32)
        let n = strftime(&buf, buf.count, "%Y-%m-%dT%H:%M:%SZ", &tm)
        return String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func device(_ json: JSON) {
        guard let index = json["device"]?.intValue, let action = json["action"]?.stringValue else { return }
        devices.removeAll { $0.index == index }
        if action != "removed" { devices.append((index, json)) }
        if config.topics.contains(.devices) { publishDevices() }
    }

    private func publishDevices() {
        var w = JSONWriter()
        w.beginArray()
        for d in devices.sorted(by: { $0.index < $1.index }) { w.value(d.line) }
        w.endArray()
        broker.publish(config.prefix + "/devices", w.bytes, retain: true)
    }

    private func scene(_ json: JSON) {
        let found = (SceneLine.Outline.decode(json)?.recognizers ?? []).map {
            SceneRecognizer(name: $0.name, enabled: $0.enabled, discrete: RecognizerSchema.discreteTypeNames.contains($0.type), shapes: $0.shapes)
        }
        recognizers = found
        if config.control {
            for r in found { broker.publish(config.prefix + "/recognizer/" + MQTTConfig.topicLevel(r.name), Array((r.enabled ? "ON" : "OFF").utf8), retain: true) }
        }
        announce()
    }

    // MARK: The broker

    private func brokerConnected() {
        broker.publish(statusTopic, Array((daemonIsConnected ? "online" : "offline").utf8), retain: true, qos: 1)
        if config.topics.contains(.devices) && daemonIsConnected { publishDevices() }
        if lastTouch != nil { publishActivity() }
        if config.control { broker.subscribe(commandTopic); broker.subscribe(displayCommandTopic) }
        if display != nil { publishDisplay() }
        announced = []                                  // the broker may have lost them: all again
        announce()
    }

    /// The largest command payload taken (bytes): a `set` is well under 1 KiB, a client scene a few.
    public static let maximumCommandBytes = 16 * 1024

    /// A message on the command topic: the control command to pass to the daemon (nil: a blank
    /// message), or why it is refused. Checked in order of cost: the size and the retain flag before the
    /// payload is parsed, the command's kind and content after.
    public static func command(_ payload: [UInt8], retained: Bool = false, allowScenes: Bool = false,
                               topic: String = "PREFIX/command") -> Result<ClientCommand?, ClientCommand.Refusal> {
        guard payload.count <= maximumCommandBytes else {
            return .failure(.init(message: "a command of \(payload.count) bytes is refused: at most \(maximumCommandBytes) bytes"))
        }
        if payload.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d || $0 == 0x0a }) { return .success(nil) }
        guard !retained else {
            return .failure(.init(message: "retained commands are not carried out: clear it with `mosquitto_pub -r -n -t \(topic)`"))
        }
        guard !payload.contains(0x0a) else { return .failure(.init(message: "one command a message, without a newline")) }
        let command: ClientCommand?
        do throws(ClientCommand.Refusal) { command = try ClientCommand.parse(payload) } catch {
            // The socket's advice (send a subscribe) is not this topic's: say what it takes.
            if error.message.hasPrefix("not JSON") || error.message.hasPrefix("expected a command") || error.message.hasPrefix("unknown command") {
                let what = error.message.prefix { $0 != ";" }
                return .failure(.init(message: "\(what); the command topic takes one set command a message, such as "
                                      + #"{"set":{"recognizers":["doubleTap"],"enabled":false}} or {"set":{"display":"off"}}"#))
            }
            return .failure(error)
        }
        guard let command else { return .success(nil) }
        switch command {
        case .subscribe:
            return .failure(.init(message: "subscribe: not on the command topic, which takes set commands (and with \"allowScenes\", scenes)"))
        case .scene(let name, let views):
            guard allowScenes else {
                return .failure(.init(message: "scene: scenes from the broker are refused unless the configuration says \"allowScenes\": true; the command topic takes set commands"))
            }
            if let (view, recognizer) = firstAction(in: views) {
                return .failure(.init(message: "scene \"\(name)\": view \"\(view)\", recognizer \"\(recognizer)\" has an \"action\": actions come only from scene files and local control peers, never from the broker; the scene is refused whole"))
            }
            return .success(command)
        case .setFocus:
            // Which app's actions fire is the compositor's word, through a follower on this machine.
            return .failure(.init(message: "set focus: not from the broker; the focus comes from touchbridgectl follow-focus or set focus on this machine"))
        case .setRecognizers, .setDevice, .setDisplay, .setBrightness:
            return .success(command)
        }
    }

    /// The first recognizer with an `action` in a client scene's views (subviews included): its view's
    /// and its own name (or their places, when unnamed).
    package static func firstAction(in views: [JSON], path: String = SceneSchema.views) -> (view: String, recognizer: String)? {
        let recognizers = ViewSchema.recognizersKey, subviews = ViewSchema.subviewsKey, name = RecognizerSchema.nameKey
        for (i, v) in views.enumerated() {
            let viewName = v[name]?.stringValue ?? "\(path)[\(i)]"
            for (j, r) in (v[recognizers]?.arrayValue ?? []).enumerated() where r[RecognizerSchema.actionKey] != nil {
                return (viewName, r[name]?.stringValue ?? "\(recognizers)[\(j)]")
            }
            if let found = firstAction(in: v[subviews]?.arrayValue ?? [], path: "\(path)[\(i)].\(subviews)") { return found }
        }
        return nil
    }

    private func message(_ topic: String, _ payload: [UInt8], retained: Bool) {
        guard config.control, topic == commandTopic || topic == displayCommandTopic else { return }
        let result = commandTopic + "/result"
        let what = "command on \(topic) (\(payload.count) byte\(payload.count == 1 ? "" : "s")\(retained ? ", retained" : ""))"
        func refuse(_ message: String) {
            log.warning("\(what) refused: \(message)")
            broker.publish(result, ErrorLine.encode(message), qos: 1)
        }
        let command: ClientCommand
        if topic == displayCommandTopic {
            switch Self.displayCommand(payload, retained: retained) {
            case .failure(let why): return refuse(why.message)
            case .success(let c): command = c
            }
        } else {
            switch Self.command(payload, retained: retained, allowScenes: config.allowScenes, topic: commandTopic) {
            case .failure(let why): return refuse(why.message)
            case .success(nil): return
            case .success(let c?): command = c
            }
        }
        guard daemonIsConnected else { return refuse("the daemon is not connected") }
        let said = "\(what), \(command.name)\(command.logDetail)"
        daemon.send(command) { [unowned self] answer in
            // The daemon's answer as it sent it: the same encoders make the same line.
            switch answer {
            case .ok(let warning):
                log.info("\(said): carried out")
                broker.publish(result, OkLine.encode(command: command.name, warning: warning), qos: 1)
            case .refused(let message):
                log.warning("\(said): refused by the daemon: \(message)")
                broker.publish(result, ErrorLine.encode(message), qos: 1)
            case .closed:
                log.warning("\(said): not answered, the daemon went away")
            }
        }
    }

}

extension Ctl {
    package static let mqtt = Command("mqtt",
        "bridge the daemon to an MQTT broker: gestures, devices and activity published under a prefix, a\nretained online/offline status with a last will, Home Assistant discovery, and (with control)\ncommands from the broker passed to the daemon", options: [
        .option("config", "FILE", "the configuration (default /etc/touchbridge/mqtt.json)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing")
        let log = Logger(program: "touchbridgectl mqtt", level: .info)
        let config = try MQTTConfig.load(path: a["config"] ?? MQTTConfig.defaultPath)
        let bridge = try MQTTBridge(config: config, socketPath: try DaemonSocket.path(a), log: log)
        return try bridge.run()
    }
}
