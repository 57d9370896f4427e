import Glibc
import TouchInput

/// touchbridgectl's control commands (protocol 2): each sends one command and prints the daemon's
/// answer; a refusal is printed on stderr and exits 1.
extension Ctl {
    /// `set rotation DEG [--device N]` (every device when no --device).
    static func set(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, spec: .init(flags: [], options: ["device", "socket"]), program: "touchbridgectl set")
        guard a.positional.count == 2, a.positional[0] == "rotation" else {
            throw Arguments.Failure(description: "touchbridgectl set: usage: touchbridgectl set rotation DEG [--device N]")
        }
        guard let degrees = Int(a.positional[1]), CoordinateMapping.Rotation(rawValue: degrees) != nil else {
            throw Arguments.Failure(description: "touchbridgectl set rotation: takes 0, 90, 180 or 270 (degrees clockwise), not \"\(a.positional[1])\"")
        }
        var device = "\"*\""
        if let d = a["device"] {
            guard let n = Int(d), n >= 0 else {
                throw Arguments.Failure(description: "touchbridgectl set: --device takes a device index (the \"device\" of touch lines), not \"\(d)\"")
            }
            device = String(n)
        }
        return try command(a, "{\"set\":{\"device\":\(device),\"rotation\":\(degrees)}}")
    }

    /// `enable NAME...` / `disable NAME...`: names or shell patterns.
    static func enable(_ args: [String], _ enabled: Bool) throws -> Int32 {
        let verb = enabled ? "enable" : "disable"
        let a = try Arguments(args, spec: .init(flags: [], options: ["socket"]), program: "touchbridgectl \(verb)")
        guard !a.positional.isEmpty else {
            throw Arguments.Failure(description: "touchbridgectl \(verb): name at least one recognizer (or a pattern such as \"edge*\")")
        }
        var w = JSONWriter()
        w.beginObject(); w.key("set"); w.beginObject()
        w.key("recognizers"); w.beginArray()
        for n in a.positional { w.string(n) }
        w.endArray()
        w.key("enabled"); w.bool(enabled)
        w.endObject(); w.endObject()
        return try command(a, String(decoding: w.bytes, as: UTF8.self))
    }

    /// Sends one control command and waits for its answer.
    private static func command(_ a: Arguments, _ line: String) throws -> Int32 {
        let client = try SocketClient(path: try socketPath(a))
        try client.send(line)
        switch answer(client) {
        case .ok: return 0
        case .refused(let message):
            FileHandleStandardError.write("touchbridgectl: the daemon refused: \(message)\n")
            return 1
        case .closed:
            FileHandleStandardError.write("touchbridgectl: the daemon closed the connection before answering\n")
            return 1
        }
    }

    enum Answer { case ok, refused(String), closed }

    /// The answer to the command just sent: its `ok` or `error` line (other lines are skipped).
    static func answer(_ client: SocketClient) -> Answer {
        while let line = client.readLine() {
            guard let json = try? JSONParser.parse(String(decoding: line, as: UTF8.self)) else { continue }
            switch json["event"]?.stringValue {
            case "ok": return .ok
            case "error": return .refused(json["message"]?.stringValue ?? "")
            default: continue
            }
        }
        return .closed
    }

    /// `scene push FILE [--name N]`: FILE's views become a client scene named N (default: FILE's name
    /// without its extension) for as long as this command runs; it prints that scene's gestures until
    /// it is interrupted (the scene goes with the connection).
    static func scenePush(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, spec: .init(flags: [], options: ["name", "socket"]), program: "touchbridgectl scene push")
        guard a.positional.count == 1 else {
            throw Arguments.Failure(description: "touchbridgectl scene push: name one scene file (see --help)")
        }
        let file = a.positional[0]
        var parser = JSONParser(try Files.readText(file))
        let json: JSON
        do { json = try parser.parse() } catch let e as JSONSyntaxError {
            throw ServerError("\(file):\(e.line): column \(e.column): \(e.message)")
        }
        guard let members = json.objectValue else { throw ServerError("\(file): must be an object with \"views\"") }
        for (k, _) in members where k != "views" && k != "window" && k != "name" {
            throw ServerError("\(file): \"\(k)\": a client scene has only views (the daemon's scene file chooses the window and the devices)")
        }
        guard let views = json["views"], views.arrayValue != nil else { throw ServerError("\(file): missing \"views\": [...]") }
        var name = a["name"] ?? json["name"]?.stringValue ?? Files.baseName(file)
        if a["name"] == nil, json["name"] == nil, let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) }
        var w = JSONWriter(capacity: 4096)
        w.beginObject(); w.key("scene"); w.beginObject()
        w.key("name"); w.string(name)
        w.key("views"); w.value(views)
        w.endObject(); w.endObject()
        let client = try SocketClient(path: try socketPath(a))
        try client.send("{\"subscribe\":[\"gestures\"]}")
        try client.send(String(decoding: w.bytes, as: UTF8.self))
        switch answer(client) {
        case .ok: break
        case .refused(let message):
            // The daemon names the place inside the command ("scene.views[0].frame"); here it is the file's.
            let place = message.hasPrefix("scene.") ? "\(file): " + message.dropFirst("scene.".count) : "\(file): \(message)"
            FileHandleStandardError.write("touchbridgectl scene push: the daemon refused the scene: \(place)\n")
            return 1
        case .closed:
            FileHandleStandardError.write("touchbridgectl scene push: the daemon closed the connection before answering\n")
            return 1
        }
        FileHandleStandardError.write("touchbridgectl scene push: scene \"\(name)\" is on; its gestures follow (Ctrl-C takes it away)\n")
        let prefix = Array((name + "/").utf8)
        let marker = Array("\"recognizer\":\"".utf8)
        var out = StandardOutput()
        while let line = client.readLine() {
            // Gesture lines of this scene's recognizers only: "recognizer":"NAME/…".
            guard let at = line.firstRange(of: marker), line[at.upperBound...].starts(with: prefix) else { continue }
            out.line(line)
            out.flush()
        }
        FileHandleStandardError.write("touchbridgectl scene push: the daemon closed the connection; the scene is gone\n")
        return 1
    }
}
