import CLinux
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A bindings file that cannot be used: the file, the key and what is wrong.
public struct BindingsError: Error, CustomStringConvertible {
    public var description: String
    package init(_ description: String) { self.description = description }
}

/// `touchbridgectl bind FILE`: runs a command for each gesture, as lisgd does.
///
/// FILE is a JSON object from a recognizer name, optionally with a state ("pan:ended"), to an argv:
/// `{"doubleTap": ["xdotool", "key", "F11"], "swipeLeft": ["playerctl", "next"]}`. A name alone
/// matches "recognized" and "ended". Commands run without a shell (posix_spawnp), with the default
/// signal dispositions and mask, are never waited for by the listener (children are reaped as they
/// exit, on SIGCHLD), and failures are logged as they happen.
public struct Bindings {
    public var commands: [(key: String, argv: [String])]

    /// Bindings given on the command line as lisgd's are: `-g 'swipeLeft=playerctl next'`, a name (or
    /// "name:state"), `=`, and a command split into words as a shell would (quotes and backslashes), but
    /// run without one.
    public static func parse(gestures: [String]) throws -> Bindings {
        var commands: [(String, [String])] = []
        for g in gestures {
            guard let eq = g.firstIndex(of: "="), eq != g.startIndex else {
                throw BindingsError("-g \"\(g)\": expected NAME=COMMAND, such as -g 'swipeLeft=playerctl next'")
            }
            let key = String(g[..<eq])
            let argv: [String]
            do { argv = try words(String(g[g.index(after: eq)...])) } catch let e as BindingsError {
                throw BindingsError("-g \"\(g)\": \(e.description)")
            }
            guard !argv.isEmpty else { throw BindingsError("-g \"\(g)\": no command after \"=\"") }
            try checkState(key, where: "-g \"\(g)\"")
            commands.append((key, argv))
        }
        return Bindings(commands: commands)
    }

    /// A command line split into words: blanks separate, '…' and "…" quote, \\ escapes (in "…" too).
    package static func words(_ text: String) throws -> [String] {
        var out: [String] = [], word = "", inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped { word.append(c); escaped = false; inWord = true; continue }
            if let q = quote {
                if c == q { quote = nil } else if c == "\\" && q == "\"" { escaped = true } else { word.append(c) }
                continue
            }
            switch c {
            case " ", "\t":
                if inWord { out.append(word); word = ""; inWord = false }
            case "'", "\"": quote = c; inWord = true
            case "\\": escaped = true
            default: word.append(c); inWord = true
            }
        }
        guard quote == nil else { throw BindingsError("a quote (\(quote!)) that never closes") }
        guard !escaped else { throw BindingsError("a backslash at the end") }
        if inWord { out.append(word) }
        return out
    }

    /// A "name:state" key's state must be one its kind has.
    package static func checkState(_ key: String, where place: String) throws {
        if let problem = stateProblem(key) { throw BindingsError("\(place): \(problem)") }
    }

    /// What is wrong with the state of a "name:state" key, or nil. A word that is no state names a
    /// stroke's shape ("draw:circle", docs/strokes.md): letters, digits and `_`.
    static func stateProblem(_ key: String) -> String? {
        guard let colon = key.firstIndex(of: ":") else { return nil }
        let state = String(key[key.index(after: colon)...])
        let pencil = pencilKeys.contains(String(key[..<colon]))
        let states = pencil ? ["pressed", "released"] : gestureStates + [valueState]
        if !pencil, !states.contains(state), StrokeTemplatesFile.isName(state), DidYouMean.closest(state, in: states) == nil { return nil }
        guard states.contains(state) else {
            let hint = DidYouMean.hint(state, in: states)
            return "unknown state \"\(state)\"\(hint); one of \(states.joined(separator: ", "))"
        }
        return nil
    }

    /// The programs that are not on the PATH (or, named with a slash, not an executable file): each
    /// with the key it is bound to.
    public func missingPrograms(path: String? = getenv("PATH").map { String(cString: $0) }) -> [(key: String, program: String)] {
        let dirs = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        var missing: [(String, String)] = []
        var checked: [String: Bool] = [:]
        for (key, argv) in commands {
            let program = argv[0]
            let found = checked[program] ?? {
                if program.contains("/") { return access(program, X_OK) == 0 }
                return dirs.contains { access(($0.isEmpty ? "." : $0) + "/" + program, X_OK) == 0 }
            }()
            checked[program] = found
            if !found { missing.append((key, program)) }
        }
        return missing
    }

    /// A bindings file: errors name the file, the line and the key (ConfigError), every one at once
    /// (ConfigErrors), as a scene's do.
    public static func parse(_ text: String, file: String) throws -> Bindings {
        var parser = JSONParser(text)
        let json: JSON
        do { json = try parser.parse() } catch let e as JSONSyntaxError {
            throw ConfigError(file: file, line: e.line, path: "", message: "column \(e.column): \(e.message)")
        }
        let r = ConfigReader(file: file, lines: parser.lines)
        guard let members = json.objectValue else {
            throw r.error("", "must be an object from recognizer name to a command: {\"doubleTap\": [\"xdotool\", \"key\", \"F11\"]}")
        }
        var commands: [(String, [String])] = []
        var errors: [ConfigError] = []
        for (key, value) in members {
            guard let array = value.arrayValue, !array.isEmpty,
                  case let argv = array.compactMap(\.stringValue), argv.count == array.count else {
                errors.append(r.error(key, "must be a non-empty array of strings (the program and its arguments; no shell)"))
                continue
            }
            if let problem = stateProblem(key) { errors.append(r.error(key, problem)); continue }
            commands.append((key, argv))
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 { throw ConfigErrors(errors: Array(errors.prefix(ConfigErrors.limit)), stoppedAtLimit: errors.count > ConfigErrors.limit) }
        return Bindings(commands: commands)
    }

    /// The binding key of the daemon's `wake` line (a touch that woke the display, README
    /// "Screen-aware"): not a recognizer.
    public static let wakeKey = "wake"

    /// The binding keys of a pen's barrel buttons (`pencil` lines, docs/pens.md): `pencil1` for
    /// BTN_STYLUS, `pencil2` for BTN_STYLUS2; alone they fire on `pressed`, `pencil1:released` on release.
    public static let pencilKeys = ["pencil1", "pencil2"]
    static let gestureStates = ["recognized", "began", "changed", "ended", "cancelled"]
    /// The "state" of a slider's value lines (docs/actions.md, "Sliders"): `"volume:value"`, or the
    /// name alone, runs on each new value, with TOUCHBRIDGE_VALUE.
    public static let valueState = "value"

    /// The shape of a "name:shape" key (a stroke's), or nil for a plain or "name:state" key.
    static func shape(of key: String) -> (recognizer: String, shape: String)? {
        guard let colon = key.firstIndex(of: ":") else { return nil }
        let word = String(key[key.index(after: colon)...])
        return gestureStates.contains(word) || word == valueState || pencilKeys.contains(String(key[..<colon])) ? nil : (String(key[..<colon]), word)
    }

    /// Whether some binding is for the `wake` line.
    public var bindsWake: Bool { commands.contains { $0.0 == Self.wakeKey } }

    /// The recognizer names the bindings use.
    public var recognizerNames: [String] {
        commands.map { key, _ in key.firstIndex(of: ":").map { String(key[..<$0]) } ?? key }
            .filter { $0 != Self.wakeKey && !Self.pencilKeys.contains($0) }
    }

    /// Refuses bindings for recognizers `scene` does not have, with the nearest name, and a shape that
    /// the recognizer named does not draw.
    public func check(against scene: Scene, file: String) throws {
        if let problem = unknownNames(in: scene.recognizers.compactMap(\.name), source: scene.source).first {
            throw BindingsError("\(file): \(problem)")
        }
        for (key, _) in commands {
            guard let (name, shape) = Self.shape(of: key), let r = scene.recognizers.first(where: { $0.name == name }) else { continue }
            guard let stroke = r as? StrokeGestureRecognizer else {
                throw BindingsError("\(file): \"\(key)\": \(name) is a \(RecognizerKind(r).name), which draws no shape (\"\(shape)\" is no state of it either)")
            }
            let shapes = stroke.shapes.isEmpty ? stroke.prepared.names : stroke.shapes
            if !shapes.contains(shape) {
                throw BindingsError("\(file): \"\(key)\": \(name) draws no \"\(shape)\"\(DidYouMean.hint(shape, in: shapes)); it draws \(shapes.joined(separator: ", "))")
            }
        }
    }

    /// A sentence for each bound name that `names` (a scene's recognizers) lacks, with the nearest one.
    public func unknownNames(in names: [String], source: String) -> [String] {
        var seen = Set<String>()
        return recognizerNames.filter { !names.contains($0) && seen.insert($0).inserted }.map { name in
            let hint = DidYouMean.hint(name, in: names)
            return "\"\(name)\": \(source) has no recognizer of that name\(hint); it has \(names.joined(separator: ", "))"
        }
    }

    /// The recognizer names of a scene line (`{"event":"scene","scene":{…}}`), its client scenes' included.
    package static func recognizerNames(ofSceneLine json: JSON) -> [String] {
        (SceneLine.Outline.decode(json)?.recognizers ?? []).map(\.name)
    }

    /// The commands for a gesture line's recognizer and state (and a stroke's shape: "draw:circle").
    /// `slider`: the recognizer's action is a value, whose name alone binds its value lines instead.
    public func matches(recognizer: String, state: String, shape: String? = nil, slider: Bool = false) -> [[String]] {
        if state == "wake" { return commands.filter { $0.0 == Self.wakeKey }.map(\.1) }
        if state == Self.valueState {
            return commands.filter { $0.key == recognizer || $0.key == "\(recognizer):\(Self.valueState)" }.map(\.argv)
        }
        return commands.filter { key, _ in
            if key == "\(recognizer):\(state)" { return true }
            if let shape, key == "\(recognizer):\(shape)" { return state == "recognized" || state == "ended" }
            return !slider && key == recognizer && (state == "recognized" || state == "ended" || state == "pressed")
        }.map(\.argv)
    }

    /// `argv` with `$TOUCHBRIDGE_NAME` and `${TOUCHBRIDGE_NAME}` replaced by `env`'s values, as a shell
    /// would, though none runs: `["wpctl", "set-volume", "@DEFAULT_AUDIO_SINK@", "$TOUCHBRIDGE_VALUE"]`.
    /// Other `$` words stay as written.
    public static func expand(_ argv: [String], _ env: [String: String]) -> [String] {
        argv.map { word in
            guard word.contains("$TOUCHBRIDGE_") || word.contains("${TOUCHBRIDGE_") else { return word }
            // As a shell reads `$NAME` (the longest run of letters, digits and _) and `${NAME}`; a name
            // that is not one of ours stays as written.
            var out = "", rest = Substring(word)
            func isNameChar(_ c: Character) -> Bool { c == "_" || (c.isASCII && (c.isLetter || c.isNumber)) }
            while let dollar = rest.firstIndex(of: "$") {
                out += rest[..<dollar]
                var after = rest[rest.index(after: dollar)...]
                let name: Substring
                var braced = false
                if after.first == "{", let close = after.firstIndex(of: "}") {
                    name = after[after.index(after: after.startIndex)..<close]
                    after = after[after.index(after: close)...]
                    braced = true
                } else {
                    name = after.prefix(while: isNameChar)
                    after = after.dropFirst(name.count)
                }
                if name.hasPrefix("TOUCHBRIDGE_"), let v = env[String(name)] { out += v } else { out += braced ? "${\(name)}" : "$\(name)" }
                rest = after
            }
            return out + rest
        }
    }

    /// Starts `argv` without a shell and without waiting; the environment gets TOUCHBRIDGE_* variables.
    public static func spawn(_ argv: [String], environment extra: [String: String]) -> Int32? {
        var env: [String] = []
        var e = environ
        while let p = e.pointee { env.append(String(cString: p)); e += 1 }
        for (k, v) in extra.sorted(by: { $0.key < $1.key }) { env.append("\(k)=\(v)") }
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup($0) } + [nil]
        // The listener blocks the signals it takes through signalfd; a command starts with none
        // blocked and every signal at its default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        defer {
            posix_spawnattr_destroy(&attributes)
            for p in cArgs { free(p) }
            for p in cEnv { free(p) }
        }
        let rc = posix_spawnp(&pid, argv[0], nil, &attributes, cArgs, cEnv)
        if rc != 0 {
            errno = rc
            return nil
        }
        return pid
    }
}

extension Ctl {
    /// `bind FILE`: a long-running agent. When the daemon goes away (a restart, an upgrade) it connects
    /// again, waiting 0.5 s, then twice as long each time up to 10 s, and logs each attempt; SIGTERM or
    /// SIGINT ends it. Commands are reaped as they exit (SIGCHLD), so a failure is logged when it
    /// happens and no child is left a zombie. Each time the daemon's scene changes (the scene topic),
    /// bound names it lacks are logged, with the nearest name.
    package static let bind = Command("bind", operands: "[FILE]",
        "run a command per gesture: FILE maps a recognizer name (or \"name:state\") to an argv,\ne.g. {\"doubleTap\": [\"xdotool\", \"key\", \"F11\"]}, and -g binds one on the command line;\nnames the daemon's scene lacks are logged; reconnects when the daemon restarts", options: [
        .option("gesture", "NAME=COMMAND", "bind one gesture without a file, as lisgd's -g: -g 'swipeLeft=playerctl next'\n(repeatable; the command is split into words as a shell would, and run without one)", short: "g"),
        .flag("allow-missing", "start even when a bound program is not on the PATH (it is logged when it fails)"),
        DaemonSocket.option,
        .option("scene", "FILE", "check the names against this scene file first: names it lacks are errors"),
    ]) { a in
        let gestures = a.values("gesture")
        guard a.positional.count == 1 || (a.positional.isEmpty && !gestures.isEmpty) else {
            throw Arguments.Failure(description: a.positional.isEmpty
                ? "touchbridgectl bind: name a bindings file, or bind gestures with -g NAME=COMMAND (see --help)"
                : "touchbridgectl bind: one bindings file, not \(a.positional.count)")
        }
        let file = a.positional.first ?? "-g"
        var bindings = try Bindings.parse(gestures: gestures)
        if let path = a.positional.first {
            bindings.commands = try Bindings.parse(try Files.readText(path), file: path).commands + bindings.commands
        }
        if let scenePath = a["scene"] { try bindings.check(against: try Scene.load(path: scenePath), file: file) }
        // Every program is looked up before the first gesture, not on each one.
        let missing = bindings.missingPrograms()
        if !missing.isEmpty && !a.has("allow-missing") {
            let list = missing.map { "\"\($0.program)\" (for \($0.key))" }.joined(separator: ", ")
            throw BindingsError("\(file): not on the PATH: \(list); install \(missing.count == 1 ? "it" : "them") (examples/bindings.json needs "
                                + "Debian's libnotify-bin, playerctl and wvkbd), or start anyway with --allow-missing")
        }
        let log = Logger(program: "touchbridgectl bind")
        for m in missing { log.warning("\(file): \"\(m.program)\" (for \(m.key)) is not on the PATH: it will fail until it is installed") }
        let path = try DaemonSocket.path(a)
        let loop = try EventLoop()
        let signals = try SignalReceiver([SIGCHLD, SIGTERM, SIGINT])
        var running: [pid_t: String] = [:]
        var sliders = SliderRuns()
        /// The recognizers whose action is a value (the daemon's scene): their name alone binds values.
        var valueNames: Set<String> = []
        /// The unknown names last logged: said again only when they change.
        var told: [String] = []
        var attempts = 0
        let daemon = try DaemonConnection(path: path, topics: ["gestures", "scene", "actions"] + (bindings.bindsWake ? ["devices"] : []), loop: loop)
        daemon.onConnect = {
            if attempts > 0 { log.info("connected to \(path) again") }
            FileHandleStandardError.write("touchbridgectl bind: connected, \(counted(bindings.commands.count, "binding")) (\(path))")
            attempts = 0
        }
        daemon.onDisconnect = { reason, wait, failures in
            if failures == 0 {
                log.warning("\(path): the daemon closed the connection; connecting again")
            } else {
                attempts = failures
                log.warning("\(reason); trying again in \(wait ?? 0) s (attempt \(failures))")
            }
        }
        // Gestures, scene changes and signals, as they come.
        daemon.onLine = { line in
            switch line.event {
            case .gesture, .wake, .pencil, .scene: break
            case .action: guard line.field("action") == "value" else { return }
            default: return
            }
            guard let json = line.json else { return }
            switch line.event {
            case .gesture:
                let slider = json["recognizer"]?.stringValue.map { valueNames.contains($0) } ?? false
                run(json, line: line.array, bindings: bindings, running: &running, log: log, slider: slider)
            case .action:
                // A slider's new value: one command at a time per binding, the latest value next.
                guard let name = json["recognizer"]?.stringValue, let v = json["value"]?.numberValue else { return }
                for argv in bindings.matches(recognizer: name, state: Bindings.valueState) {
                    let env = ["TOUCHBRIDGE_RECOGNIZER": name, "TOUCHBRIDGE_STATE": Bindings.valueState,
                               "TOUCHBRIDGE_VALUE": "\(v)", "TOUCHBRIDGE_GESTURE": line.text]
                    sliders.offer(argv, env, running: &running, log: log)
                }
            case .wake:
                // A touch woke the display: its binding runs as a recognizer's would, state "wake".
                var named = json
                if case .object(var members) = json {
                    members.append(("recognizer", .string(Bindings.wakeKey)))
                    members.append(("state", .string("wake")))
                    named = .object(members)
                }
                run(named, line: line.array, bindings: bindings, running: &running, log: log)
            case .pencil:
                // A barrel button: bound as "pencil1"/"pencil2", its state "pressed" or "released".
                guard case .object(var members) = json, let b = PencilLine.decode(json)?.button else { return }
                members.append(("recognizer", .string("pencil\(b)")))
                run(.object(members), line: line.array, bindings: bindings, running: &running, log: log)
            case .scene:
                valueNames = Set((SceneLine.Outline.decode(json)?.recognizers ?? []).filter { $0.action == "value" }.map(\.name))
                let unknown = bindings.unknownNames(in: Bindings.recognizerNames(ofSceneLine: json), source: "the daemon's scene")
                if unknown != told { for u in unknown { log.warning("\(file): \(u)") } }
                told = unknown
            default: break
            }
        }
        try loop.add(signals.fd) { _ in
            if !handle(signals.take(), running: &running, log: log) { loop.stop() }
            sliders.next(running: &running, log: log)
        }
        daemon.start()
        loop.run()
        daemon.stop()
        loop.remove(signals.fd)
        return 0
    }

    /// A gesture line: the commands bound to its recognizer and state.
    private static func run(_ json: JSON, line: [UInt8], bindings: Bindings, running: inout [pid_t: String], log: Logger,
                            slider: Bool = false) {
        // A gesture line, or a wake or pencil line named as one (above).
        guard let name = json["recognizer"]?.stringValue, let state = json["state"]?.stringValue else { return }
        let shape = json["shape"]?.stringValue
        for argv in bindings.matches(recognizer: name, state: state, shape: shape, slider: slider) {
            var env = ["TOUCHBRIDGE_RECOGNIZER": name, "TOUCHBRIDGE_STATE": state,
                       "TOUCHBRIDGE_GESTURE": String(decoding: line, as: UTF8.self)]
            if let shape, let score = json["score"]?.numberValue {
                env["TOUCHBRIDGE_SHAPE"] = shape
                env["TOUCHBRIDGE_SCORE"] = "\(score)"
            }
            if let x = json["x"]?.numberValue, let y = json["y"]?.numberValue {
                env["TOUCHBRIDGE_X"] = "\(x)"
                env["TOUCHBRIDGE_Y"] = "\(y)"
            }
            let words = Bindings.expand(argv, env)
            if let pid = Bindings.spawn(words, environment: env) {
                running[pid] = words.joined(separator: " ")
            } else {
                log.error("\(name) \(state): cannot run \(argv[0]): \(Errno.current)")
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

    /// Collects finished commands without blocking and logs the ones that failed.
    package static func reap(_ running: inout [pid_t: String], _ log: Logger) {
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
