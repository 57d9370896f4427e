import CLinux
import Glibc
import TouchCore
import TouchInput

/// touchbridgectl's commands (README "touchbridgectl").
public enum Ctl {
    public static let usage = """
    usage: touchbridgectl COMMAND [options]

    commands:
      listen [--touches] [--devices] [--recognizers] [--scene] [--socket PATH]
                          print the daemon's lines (gestures; touches, devices, every recognizer's
                          transitions, the scene when asked); exits 1 when the daemon goes away
      devices [--scene FILE] [--tablets]
                          list the touchscreens: node, name, ids, ranges, slots, resolution, mapping
      replay [--scene FILE] [--touches] [--verbose] [--desc FILE] RECORDING...
                          run recordings through the pipeline offline, on their own timestamps, and
                          print the lines the daemon would send (evemu-record, libinput record's YAML,
                          evtest text; --desc for an E:-only file); --verbose logs every recognizer's
                          transitions and their causes on stderr
      replay --mirror OUT [--scene FILE] RECORDING
                          also write what a pass-through mirror would be sent, as an evemu recording
      replay --html OUT [--scene FILE] RECORDING
                          also write a self-contained HTML report: the views, every touch, a lane per
                          recognizer with its states and reasons, play/pause and a time scrubber
      visualize [--listen ADDR:PORT] [--socket PATH]
                          serve a live page of the daemon's touches, views and recognizers
                          (default http://127.0.0.1:8391/)
      set rotation DEG [--device N]
                          turn a device (default: every device) by 0, 90, 180 or 270 degrees from
                          its next touch sequence on
      enable NAME...      enable recognizers (names or shell patterns such as "edge*")
      disable NAME...     disable them: a gesture under way is cancelled
      scene push FILE [--name N]
                          put FILE's views on top of the daemon's scene as client scene N (default:
                          FILE's name); prints its gestures until interrupted, which removes it
      scene check FILE    validate a scene file
      scene default [--passthrough]
                          print the built-in scene (or the built-in pass-through scene) as a scene file
      udev-mirror-properties EVENT
                          for udev: the mapping properties a pass-through mirror takes from its panel
      bind FILE [--socket PATH] [--scene FILE]
                          run a command per gesture: FILE maps a recognizer name (or "name:state")
                          to an argv, e.g. {"doubleTap": ["xdotool", "key", "F11"]}; with --scene,
                          names the scene lacks are errors; reconnects when the daemon restarts
      --help, --version
    """

    /// Runs a command; returns the exit status.
    public static func main(_ args: [String]) -> Int32 {
        guard let command = args.first else {
            FileHandleStandardError.write(usage + "\n")
            return 2
        }
        let rest = Array(args.dropFirst())
        do {
            switch command {
            case "--help", "-h", "help": print(usage); return 0
            case "--version": print("touchbridgectl \(Version.string) (protocol \(Version.protocolVersion))"); return 0
            case "listen": return try listen(rest)
            case "devices": return try devices(rest)
            case "replay": return try replay(rest)
            case "scene": return try scene(rest)
            case "bind": return try bind(rest)
            case "set": return try set(rest)
            case "visualize": return try visualize(rest)
            case "enable": return try enable(rest, true)
            case "disable": return try enable(rest, false)
            case "udev-mirror-properties": return try udevMirrorProperties(rest)
            default:
                FileHandleStandardError.write("touchbridgectl: unknown command \"\(command)\" (see --help)\n")
                return 2
            }
        } catch let e as Arguments.Failure {
            FileHandleStandardError.write("\(e)\n")
            return 2
        } catch {
            FileHandleStandardError.write("touchbridgectl: \(error)\n")
            return 1
        }
    }

    static func socketPath(_ a: Arguments) throws -> String {
        if let p = a["socket"] { return p }
        if let p = SocketServer.defaultPath(), access(p, F_OK) == 0 { return p }
        if access("/run/touchbridge/touchbridge.sock", F_OK) == 0 { return "/run/touchbridge/touchbridge.sock" }
        guard let p = SocketServer.defaultPath() else {
            throw ServerError("no socket path: pass --socket PATH (XDG_RUNTIME_DIR is not set)")
        }
        return p
    }

    static func listen(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, spec: .init(flags: ["touches", "devices", "recognizers", "scene"], options: ["socket"]),
                              program: "touchbridgectl listen")
        let client = try SocketClient(path: try socketPath(a))
        var topics = ["\"gestures\""]
        for t in ["touches", "devices", "recognizers", "scene"] where a.has(t) { topics.append("\"\(t)\"") }
        try client.send("{\"subscribe\":[\(topics.joined(separator: ","))]}")
        var out = StandardOutput()
        while let line = client.readLine() {
            out.line(line)
            out.flush()
        }
        // A pipe's reader sees the end of the stream; a supervisor sees a failure and restarts it.
        FileHandleStandardError.write("touchbridgectl listen: the daemon closed the connection\n")
        return 1
    }

    static func devices(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, spec: .init(flags: ["tablets"], options: ["scene"]), program: "touchbridgectl devices")
        let scene = try a["scene"].map { try Scene.load(path: $0) } ?? Scene.builtIn()
        let monitor = try DeviceMonitor(includeTablets: a.has("tablets"))
        let found = monitor.enumerate()
        if found.isEmpty {
            print("no touchscreens found (udev lists none with ID_INPUT_TOUCHSCREEN=1)")
            return 0
        }
        for info in found {
            print("\(info.devnode)  \"\(info.name)\"  \(info.vendorProduct)")
            if info.isMirror {
                print("    a TouchBridge pass-through mirror\(info.phys.map { " (\($0))" } ?? ""): what the compositor reads in place of its panel")
                continue
            }
            do {
                let d = try EvdevDevice(path: info.devnode, deviceIndex: 0, target: scene.window.bounds,
                                        acceptTablets: true) { m in
                    (scene.devices.first { $0.selector.matches(info) } ?? DeviceConfig()).configure(&m, window: scene.window.bounds, udevCalibration: info.calibrationMatrix)
                }
                let axes = d.description.positionAxes!
                print("    \(d.description.touchProtocol!), \(d.description.kind.rawValue)")
                print("    x \(axes.x)  y \(axes.y)")
                let m = d.assembler.mapping
                print("    mapping: rotation \(m.rotation.rawValue)°\(m.flipX ? ", flipX" : "")\(m.flipY ? ", flipY" : ""), matrix \(m.calibration.map { "\($0)" }.joined(separator: " ")) → window \(Int(m.target.width))×\(Int(m.target.height)) pt")
                d.close()
            } catch {
                print("    cannot open: \(error)")
            }
        }
        return 0
    }

    static func replay(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, spec: .init(flags: ["touches", "verbose"], options: ["scene", "desc", "mirror", "html"]), program: "touchbridgectl replay")
        guard !a.positional.isEmpty else {
            throw Arguments.Failure(description: "touchbridgectl replay: name at least one recording (see --help)")
        }
        if a["mirror"] != nil && a.positional.count > 1 {
            throw Arguments.Failure(description: "touchbridgectl replay: --mirror writes one recording's mirror: name one recording")
        }
        if a["html"] != nil && a.positional.count > 1 {
            throw Arguments.Failure(description: "touchbridgectl replay: --html writes one recording's report: name one recording")
        }
        // --verbose: every recognizer's transitions, with what caused them, on stderr (why a gesture
        // did or did not fire).
        let log = Logger(program: "touchbridgectl", level: a.has("verbose") ? .debug : .warning)
        let scenePath = a["scene"]
        let passthrough = a["mirror"] != nil
        if let scenePath { _ = try Scene.load(path: scenePath, passthrough: passthrough) }   // a broken scene first
        let printed: Topics = a.has("touches") ? [.gestures, .touches] : .gestures
        var options = OfflineReplay.Options(topics: printed)
        options.mirrorPath = a["mirror"]
        var out = StandardOutput()
        if let htmlPath = a["html"] {
            return try replayReport(a.positional[0], to: htmlPath, scenePath: scenePath, printed: printed,
                                    options: options, log: log, out: &out, description: a["desc"])
        }
        for path in a.positional {
            let recording = try Recording.load(path: path, descriptionPath: a["desc"])
            try recording.requireEvents()
            // A fresh scene for every recording: each is a device of its own.
            let scene = try scenePath.map { try Scene.load(path: $0, passthrough: passthrough) }
            let used = try OfflineReplay.play(recording, scene: scene, options: options, log: log) { out.line($0) }
            out.flush()
            if let used {
                FileHandleStandardError.write("touchbridgectl replay: \(Files.baseName(path)): \"\(recording.device.name)\" maps through the devices entry \(used.selector)\n")
            }
        }
        out.flush()
        return 0
    }

    /// `replay --html OUT`: the replay's every line (every topic) into a self-contained report; the
    /// lines asked for are printed as without --html.
    static func replayReport(_ path: String, to htmlPath: String, scenePath: String?, printed: Topics,
                             options: OfflineReplay.Options, log: Logger, out: inout StandardOutput,
                             description: String?) throws -> Int32 {
        let recording = try Recording.load(path: path, descriptionPath: description)
        try recording.requireEvents()
        let scene = try scenePath.map { try Scene.load(path: $0, passthrough: options.mirrorPath != nil) }
        var all = options
        all.topics = [.gestures, .touches, .devices, .recognizers, .scene]
        var report = ReplayReport()
        var printedLines: [[UInt8]] = []
        let used = try OfflineReplay.play(recording, scene: scene, options: all, log: log) { bytes in
            report.add(bytes)
            let isTouch = bytes.starts(with: #"{"event":"touch""#.utf8)
            let isGesture = bytes.starts(with: #"{"event":"gesture""#.utf8)
            if (isGesture && printed.contains(.gestures)) || (isTouch && printed.contains(.touches)) {
                printedLines.append(Array(bytes))
            }
        }
        for l in printedLines { l.withUnsafeBufferPointer { out.line($0) } }
        out.flush()
        let page = report.html(title: "TouchBridge replay of \(Files.baseName(path))")
        try Files.writeText(htmlPath, page)
        if let used {
            FileHandleStandardError.write("touchbridgectl replay: \(Files.baseName(path)): \"\(recording.device.name)\" maps through the devices entry \(used.selector)\n")
        }
        FileHandleStandardError.write("touchbridgectl replay: wrote \(htmlPath) (\(page.utf8.count / 1024) KiB: \(report.touchLines) touch lines, \(report.gestureLines) gesture lines); open it in a browser\n")
        return 0
    }

    /// `visualize [--listen ADDR:PORT] [--socket PATH]`: the live page (VisualizeServer).
    static func visualize(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, spec: .init(flags: [], options: ["listen", "socket"]), program: "touchbridgectl visualize")
        guard a.positional.isEmpty else {
            throw Arguments.Failure(description: "touchbridgectl visualize: unexpected \"\(a.positional[0])\" (see --help)")
        }
        let log = Logger(program: "touchbridgectl visualize")
        let server = try VisualizeServer(address: a["listen"] ?? VisualizeServer.defaultAddress, socketPath: try socketPath(a), log: log)
        var out = StandardOutput()
        out.line("touchbridgectl visualize: open \(server.url)")
        out.flush()
        return try server.run()
    }

    static func scene(_ args: [String]) throws -> Int32 {
        if args.first == "push" { return try scenePush(Array(args.dropFirst())) }
        if args.first == "default" {
            let a = try Arguments(Array(args.dropFirst()), spec: .init(flags: ["passthrough"], options: []),
                                  program: "touchbridgectl scene default")
            guard a.positional.isEmpty else {
                throw Arguments.Failure(description: "touchbridgectl scene default: unexpected \"\(a.positional[0])\" (see --help)")
            }
            print(Scene.builtInJSON(passthrough: a.has("passthrough")), terminator: "")
            return 0
        }
        guard args.first == "check", args.count == 2 else {
            throw Arguments.Failure(description: "touchbridgectl: usage: touchbridgectl scene check FILE | touchbridgectl scene default [--passthrough] | touchbridgectl scene push FILE")
        }
        do {
            let s = try Scene.load(path: args[1])
            for w in s.warnings { FileHandleStandardError.write("warning: \(w)\n") }
            print("\(args[1]): ok: window \(Int(s.window.bounds.width))×\(Int(s.window.bounds.height)), \(s.views.count) views, \(s.recognizers.count) recognizers, \(s.devices.count) device entries")
            return 0
        } catch {
            FileHandleStandardError.write("\(error)\n")
            return 1
        }
    }

    /// The udev properties that compositors and libinput map a touchscreen by, which a pass-through
    /// mirror must carry too: udev/70-touchbridge.rules runs this for every mirror (IMPORT{program}),
    /// with the mirror's event node name; it finds the panel through the mirror's phys
    /// ("touchbridge/event5") and prints the panel's properties as KEY=VALUE lines.
    static let mirroredProperties: [String] = ["ID_INPUT_TOUCHSCREEN", "ID_INPUT_WIDTH_MM", "ID_INPUT_HEIGHT_MM", "ID_SEAT"]
    static let mirroredPrefixes: [String] = ["LIBINPUT_", "WL_"]

    static func udevMirrorProperties(_ args: [String]) throws -> Int32 {
        guard args.count == 1 else {
            throw Arguments.Failure(description: "touchbridgectl udev-mirror-properties: name the mirror's event node (e.g. event7)")
        }
        let sysname = Files.baseName(args[0])
        guard let mirror = DeviceMonitor.info(eventNode: sysname) else {
            throw ServerError("\(sysname): no such input event node")
        }
        guard let phys = mirror.phys, phys.hasPrefix(MirrorDescription.physPrefix) else {
            throw ServerError("\(sysname) \"\(mirror.name)\" is not a TouchBridge mirror (its phys is \"\(mirror.phys ?? "")\")")
        }
        print("TOUCHBRIDGE_MIRROR=1")
        let source = String(phys.dropFirst(MirrorDescription.physPrefix.count))
        // A replay's mirror has no panel behind it.
        guard source.hasPrefix("event"), let panel = DeviceMonitor.info(eventNode: source) else { return 0 }
        print("TOUCHBRIDGE_SOURCE=\(panel.devnode)")
        for (key, value) in panel.properties.sorted(by: { $0.key < $1.key })
        where mirroredProperties.contains(key) || mirroredPrefixes.contains(where: { key.hasPrefix($0) }) {
            print("\(key)=\(value)")
        }
        return 0
    }

    /// `bind FILE`: a long-running agent. When the daemon goes away (a restart, an upgrade) it connects
    /// again, waiting 0.5 s, then twice as long each time up to 10 s, and logs each attempt; SIGTERM or
    /// SIGINT ends it. Commands are reaped as they exit (SIGCHLD), so a failure is logged when it
    /// happens and no child is left a zombie.
    static func bind(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, spec: .init(flags: [], options: ["socket", "scene"]), program: "touchbridgectl bind")
        guard a.positional.count == 1 else { throw Arguments.Failure(description: "touchbridgectl bind: name one bindings file (see --help)") }
        let file = a.positional[0]
        let bindings = try Bindings.parse(try Files.readText(file), file: file)
        if let scenePath = a["scene"] { try bindings.check(against: try Scene.load(path: scenePath), file: file) }
        let log = Logger(program: "touchbridgectl bind")
        let path = try socketPath(a)
        let signals = try SignalReceiver([SIGCHLD, SIGTERM, SIGINT])
        var running: [pid_t: String] = [:]
        var wait = 0.5
        var attempt = 0
        while true {
            let client: SocketClient
            do {
                client = try SocketClient(path: path)
                try client.send("{\"subscribe\":[\"gestures\"]}")
                if attempt > 0 { log.info("connected to \(path) again") }
                attempt = 0
                wait = 0.5
            } catch {
                attempt += 1
                log.warning("\(error); trying again in \(wait) s (attempt \(attempt))")
                if !sleep(wait, signals: signals, running: &running, log: log) { return 0 }
                wait = min(wait * 2, 10)
                continue
            }
            // Gestures and signals, as they come.
            var fds = [pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
            var connected = true
            while connected {
                guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
                if fds[1].revents != 0 {
                    if !handle(signals.take(), running: &running, log: log) { return 0 }
                }
                if fds[0].revents != 0 {
                    connected = client.readAvailable { line in
                        run(line, bindings: bindings, running: &running, log: log)
                    }
                }
            }
            log.warning("\(path): the daemon closed the connection; connecting again")
        }
    }

    /// A gesture line: the commands bound to its recognizer and state.
    private static func run(_ line: [UInt8], bindings: Bindings, running: inout [pid_t: String], log: Logger) {
        guard let json = try? JSONParser.parse(String(decoding: line, as: UTF8.self)),
              json["event"]?.stringValue == "gesture",
              let name = json["recognizer"]?.stringValue, let state = json["state"]?.stringValue else { return }
        for argv in bindings.matches(recognizer: name, state: state) {
            var env = ["TOUCHBRIDGE_RECOGNIZER": name, "TOUCHBRIDGE_STATE": state,
                       "TOUCHBRIDGE_GESTURE": String(decoding: line, as: UTF8.self)]
            if let x = json["x"]?.numberValue, let y = json["y"]?.numberValue {
                env["TOUCHBRIDGE_X"] = "\(x)"
                env["TOUCHBRIDGE_Y"] = "\(y)"
            }
            if let pid = Bindings.spawn(argv, environment: env) {
                running[pid] = argv.joined(separator: " ")
            } else {
                log.error("\(name) \(state): cannot run \(argv[0]): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Signals: SIGCHLD reaps, SIGTERM and SIGINT end the agent (false).
    private static func handle(_ taken: [Int32], running: inout [pid_t: String], log: Logger) -> Bool {
        for s in taken {
            if s == SIGCHLD { reap(&running, log) }
            if s == SIGTERM || s == SIGINT { return false }
        }
        return true
    }

    /// Waits `seconds`, reaping children meanwhile; false when told to stop.
    private static func sleep(_ seconds: Double, signals: SignalReceiver, running: inout [pid_t: String], log: Logger) -> Bool {
        let end = monotonicNow() + seconds
        while true {
            let left = end - monotonicNow()
            if left <= 0 { return true }
            var fd = pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)
            if poll(&fd, 1, Int32(left * 1000) + 1) > 0 && !handle(signals.take(), running: &running, log: log) { return false }
        }
    }

    /// Collects finished commands without blocking and logs the ones that failed.
    static func reap(_ running: inout [pid_t: String], _ log: Logger) {
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { return }
            let command = running.removeValue(forKey: pid) ?? "pid \(pid)"
            let exited = status & 0x7f == 0
            let code = (status >> 8) & 0xff
            if !exited { log.warning("\"\(command)\" was killed by signal \(status & 0x7f)") }
            else if code != 0 { log.warning("\"\(command)\" failed with exit status \(code)") }
        }
    }
}
