import CLinux
import Glibc

/// `touchbridgectl bind FILE`: runs a command for each gesture, as lisgd does.
///
/// FILE is a JSON object from a recognizer name, optionally with a state ("pan:ended"), to an argv:
/// `{"doubleTap": ["xdotool", "key", "F11"], "swipeLeft": ["playerctl", "next"]}`. A name alone
/// matches "recognized" and "ended". Commands run without a shell (posix_spawnp), with the default
/// signal dispositions and mask, are never waited for by the listener (children are reaped as they
/// exit, on SIGCHLD), and failures are logged as they happen.
public struct Bindings {
    public var commands: [(key: String, argv: [String])]

    public static func parse(_ text: String, file: String) throws -> Bindings {
        let json: JSON
        do { json = try JSONParser.parse(text) } catch let e as JSONSyntaxError {
            throw ServerError("\(file):\(e.line): column \(e.column): \(e.message)")
        }
        guard let members = json.objectValue else {
            throw ServerError("\(file): must be an object from recognizer name to a command: {\"doubleTap\": [\"xdotool\", \"key\", \"F11\"]}")
        }
        var commands: [(String, [String])] = []
        for (key, value) in members {
            guard let array = value.arrayValue, !array.isEmpty,
                  case let argv = array.compactMap(\.stringValue), argv.count == array.count else {
                throw ServerError("\(file): \(key): must be a non-empty array of strings (the program and its arguments; no shell)")
            }
            if let colon = key.firstIndex(of: ":") {
                let state = String(key[key.index(after: colon)...])
                guard ["recognized", "began", "changed", "ended", "cancelled"].contains(state) else {
                    throw ServerError("\(file): \(key): unknown state \"\(state)\"; one of recognized, began, changed, ended, cancelled")
                }
            }
            commands.append((key, argv))
        }
        return Bindings(commands: commands)
    }

    /// The recognizer names the bindings use.
    public var recognizerNames: [String] {
        commands.map { key, _ in key.firstIndex(of: ":").map { String(key[..<$0]) } ?? key }
    }

    /// Refuses bindings for recognizers `scene` does not have, with the nearest name.
    public func check(against scene: Scene, file: String) throws {
        let names = scene.recognizers.compactMap(\.name)
        for name in recognizerNames where !names.contains(name) {
            let hint = SceneReader.closest(name, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw ServerError("\(file): \"\(name)\": \(scene.source) has no recognizer of that name\(hint); it has \(names.joined(separator: ", "))")
        }
    }

    /// The commands for a gesture line's recognizer and state.
    public func matches(recognizer: String, state: String) -> [[String]] {
        commands.filter { key, _ in
            if key == "\(recognizer):\(state)" { return true }
            return key == recognizer && (state == "recognized" || state == "ended")
        }.map(\.argv)
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
