import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    package static let sceneCheck = Command("scene check", operands: "FILE", "validate a scene file: every error names the file, the line, the JSON path and\nwhat is wrong", options: [
        .flag("client", "check a client scene (views, and a name) as scene push sends it"),
    ]) { a in
        try a.expect(1, "the scene file")
        let path = a.positional[0]
        if a.has("client") {
            do {
                let (name, views, built) = try ClientSceneFile.check(path)
                print(Terminal.oneLine("\(path): ok: client scene \"\(name)\", \(counted(views, "view")), \(counted(built, "recognizer"))"))
                return 0
            } catch {
                for line in errorLines(error) { FileHandleStandardError.write(line) }
                return 1
            }
        }
        do {
            let s = try Scene.load(path: path)
            for w in s.warnings { FileHandleStandardError.write("warning: \(w)\n") }
            print(Terminal.oneLine("\(path): ok: window \(Int(s.window.bounds.width))×\(Int(s.window.bounds.height)), "
                + "\(count(s.views.count, "view")), \(count(s.recognizers.count, "recognizer")), \(count(s.devices.count, "device entry", "device entries"))"))
            for line in focusLines(s) { print(Terminal.oneLine(line)) }
            return 0
        } catch {
            for line in errorLines(error) { FileHandleStandardError.write(line) }
            return 1
        }
    }

    /// What follows the focused app (docs/focus.md): each scoped recognizer, each device entry's
    /// passthroughApps; a line each.
    static func focusLines(_ s: Scene) -> [String] {
        let list = { (patterns: [String]) in patterns.joined(separator: ", ") }
        var lines = s.scopes.map { r, scope in
            "  recognizer \(r.name ?? "?"): " + [scope.apps.isEmpty ? nil : "only while \(list(scope.apps)) is focused",
                                              scope.exceptApps.isEmpty ? nil : "not while \(list(scope.exceptApps)) is" + (scope.apps.isEmpty ? " focused" : "")]
                .compactMap { $0 }.joined(separator: ", ")
        }
        for (i, d) in s.devices.enumerated() where !d.passthroughApps.isEmpty {
            lines.append("  devices[\(i)]: every touch to the app, no recognizer, while \(list(d.passthroughApps)) is focused")
        }
        return lines
    }

    /// `scene format FILE`: the file as the project writes scenes (SceneFileText), on stdout, or
    /// rewritten in place (`--write`, atomically), or only checked (`--check`: exit 1 if it differs).
    package static let sceneFormat = Command("scene format", operands: "FILE", "print a scene file as the project writes scenes: each object's keys in the schema's\norder, a view a line with its recognizers under it (the editor saves this way)", options: [
        .flag("write", "rewrite FILE in place (atomically; the old file kept as FILE~)"),
        .flag("check", "print nothing; exit 1 if FILE is not written so"),
    ]) { a in
        try a.expect(1, "the scene file")
        let path = a.positional[0]
        let text = try Files.readText(path)
        var parser = JSONParser(text)
        let json: JSON
        do { json = try parser.parse() } catch let e as JSONSyntaxError {
            throw ConfigError(file: path, line: e.line, path: "", message: "column \(e.column): \(e.message)")
        }
        let formatted = SceneFileText.format(json)
        if a.has("check") {
            guard formatted == text else {
                FileHandleStandardError.write("\(path): not written as scenes are (touchbridgectl scene format --write \(path))\n")
                return 1
            }
            return 0
        }
        if a.has("write") {
            if formatted != text { try Files.replaceAtomically(path, formatted, keepPrevious: true) }
            return 0
        }
        print(formatted, terminator: "")
        return 0
    }

    /// `scene schema`: the scene format as data (SchemaDescription), what the editor builds its forms from.
    package static let sceneSchema = Command("scene schema", "print the scene format as JSON: every recognizer type, option, action and key, with\nits form and default (what touchbridgectl edit builds its forms from)", options: []) { a in
        try a.expect(0, "nothing")
        print(String(decoding: SchemaDescription.json(), as: UTF8.self))
        return 0
    }

    package static let sceneDefault = Command("scene default", "print the built-in scene (or the built-in pass-through scene) as a scene file", options: [
        .flag("passthrough", "the built-in pass-through scene"),
    ]) { a in
        try a.expect(0, "nothing")
        print(Scene.builtInJSON(passthrough: a.has("passthrough")), terminator: "")
        return 0
    }

    /// `scene push FILE [--name N]`: FILE's views become a client scene named N (default: FILE's name
    /// without its extension) for as long as this command runs; it prints that scene's gestures until
    /// it is interrupted (the scene goes with the connection).
    package static let scenePush = Command("scene push", operands: "FILE", "put FILE's views on top of the daemon's scene as a client scene; prints its gestures\nuntil interrupted, which takes the scene away (needs control permission)", options: [
        .option("name", "N", "the client scene's name, the prefix of its recognizers' names (default: the\nfile's \"name\", else the file's name without its extension)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "one scene file")
        let file = a.positional[0]
        let (fileName, views) = try ClientSceneFile.read(file)
        var name = a["name"] ?? fileName ?? Files.baseName(file)
        if a["name"] == nil, fileName == nil, let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) }
        let loop = try EventLoop()
        let daemon = try DaemonConnection(path: try DaemonSocket.path(a), topics: ["gestures"], loop: loop, reconnects: false)
        var status: Int32 = 1
        daemon.onConnect = { [unowned daemon] in
            daemon.send(.scene(name: name, views: views.arrayValue ?? [])) { answer in
                switch answer {
                case .ok:
                    FileHandleStandardError.write("touchbridgectl scene push: scene \"\(name)\" is on; its gestures follow (Ctrl-C takes it away)\n")
                case .refused(let message):
                    // The daemon names the place inside the command ("scene.views[0].frame"); here it is the file's.
                    let place = message.hasPrefix("scene.") ? "\(file): " + message.dropFirst("scene.".count) : "\(file): \(message)"
                    FileHandleStandardError.write("touchbridgectl scene push: the daemon refused the scene: \(place)\n")
                    loop.stop()
                case .closed: break   // onDisconnect says it
                }
            }
        }
        // Gesture lines of this scene's recognizers only: "recognizer":"NAME/…".
        let prefix = name + "/"
        var out = StandardOutput()
        daemon.onLine = { line in
            guard line.event == .gesture, line.field("recognizer")?.hasPrefix(prefix) == true else { return }
            out.line(line.array)
            out.flush()
        }
        let signals = try SignalReceiver([SIGINT, SIGTERM])
        try loop.add(signals.fd) { _ in _ = signals.take(); status = 130; loop.stop() }
        defer { loop.remove(signals.fd) }   // the handler holds the loop: removed on every way out
        try daemon.runOnce(loop) { _ in
            FileHandleStandardError.write("touchbridgectl scene push: the daemon closed the connection; the scene is gone\n")
        }
        return status
    }
}

/// "1 view", "2 views".
package func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
}

/// A client scene's file, as `scene push` sends it and `scene check --client` checks it: an object of
/// "views" and, optionally, a "name". A full scene file's other keys are named, every one, with what to
/// do: the daemon's own scene chooses the window and the devices.
package enum ClientSceneFile {
    package static func read(_ file: String) throws -> (name: String?, views: JSON) {
        let (name, views, _) = try parse(file)
        return (name, views)
    }

    package static func parse(_ file: String) throws -> (name: String?, views: JSON, lines: [String: Int]) {
        var parser = JSONParser(try Files.readText(file))
        let json: JSON
        do { json = try parser.parse() } catch let e as JSONSyntaxError {
            throw ConfigError(file: file, line: e.line, path: "", message: "column \(e.column): \(e.message)")
        }
        guard let members = json.objectValue else { throw ConfigError(file: file, line: nil, path: "", message: "must be an object with \"views\"") }
        let extra = members.map(\.0).filter { $0 != ClientCommand.sceneViewsKey && $0 != ClientCommand.sceneNameKey }
        if !extra.isEmpty {
            let keys = extra.map { "\"\($0)\"" }.joined(separator: ", ")
            throw ConfigError(file: file, line: nil, path: "", message: "a client scene has only \"views\" (and a \"name\"): drop \(keys); "
                             + "the daemon's scene file chooses the window and the devices (this looks like a scene file: give it to touchbridged --scene)")
        }
        guard let views = json[ClientCommand.sceneViewsKey], views.arrayValue != nil else { throw ConfigError(file: file, line: nil, path: "", message: "missing \"views\": [...]") }
        let nameKey = ClientCommand.sceneNameKey
        if let n = json[nameKey], n.stringValue == nil {
            throw ConfigError(file: file, line: parser.lines[nameKey], path: nameKey, message: "must be a string")
        }
        return (json[nameKey]?.stringValue, views, parser.lines)
    }

    /// Builds the views as the daemon would (in the US layout for keys: the daemon uses its scene's);
    /// errors name the file, the line and the path. The name, the number of views and of recognizers.
    package static func check(_ file: String) throws -> (name: String, views: Int, recognizers: Int) {
        let (name, views, lines) = try parse(file)
        let sceneName = name ?? String(Files.baseName(file).split(separator: ".").first ?? "")
        guard !sceneName.isEmpty, !sceneName.contains("/") else {
            throw ConfigError(file: file, line: lines["name"], path: "name", message: "must be non-empty and without \"/\" (it prefixes the scene's names)")
        }
        var builder = Scene.Builder(reader: ConfigReader(file: file, lines: lines), keyboard: KeyboardNames())
        let list = views.arrayValue ?? []
        for (i, v) in list.enumerated() {
            do { _ = try builder.view(v, "views[\(i)]") } catch { try builder.note(error) }
        }
        try builder.link()
        try builder.finish()
        for w in builder.warnings { FileHandleStandardError.write("warning: \(w)") }
        return (sceneName, list.count, builder.recognizers.count)
    }
}
