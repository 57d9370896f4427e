import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem
import VisualizerPage

/// `touchbridgectl edit FILE` (docs/scenes.md, "The editor"): the visualizer's server (its Host and
/// token rules, its stream of the daemon's lines) with the editor's page at `/` and the live lanes at
/// `/live`, and the editor's requests on one WebSocket, `/rpc`:
///
///     GET /         the editor                  GET /schema   the scene format (SchemaDescription)
///     GET /live     the visualizer's live page  GET /scene    the file as JSON (or a new scene)
///     WS  /rpc      {"id", "op": "check" | "keys" | "save" | "try" | "untry", …} → {"id", …}
///
/// The page edits JSON; this process checks it with the scene checker the daemon uses, writes it as
/// the project writes scenes (SceneFileText), atomically with the old file kept as FILE~, and for Try
/// puts its views on the daemon as the client scene "editor", which goes when Try ends, the page
/// closes or this process ends (it lives with the connection).
package final class EditServer {
    package static let defaultAddress = "127.0.0.1:8392"
    package static let clientSceneName = "editor"
    /// The largest request (a scene to check or save) the page may send, bytes.
    package static let maximumScene = 4 * 1024 * 1024

    package let path: String
    package let server: VisualizeServer
    let log: Logger
    /// The pages' request sockets.
    private var rpc: [WebSocketConnection] = []
    /// The page whose scene is on the daemon now (Try), if any.
    private weak var trying: WebSocketConnection?

    package init(path: String, address: String, socketPath: String, requireToken: Bool, log: Logger) throws {
        self.path = path
        self.log = log
        server = try VisualizeServer(address: address, socketPath: socketPath, requireToken: requireToken, touches: false, log: log)
        server.pagePath = "/live"
        server.routes = { [unowned self] peer, request, cookie in route(peer, request, cookie) }
        server.onPeerDrop = { [unowned self] peer in dropped(peer) }
        server.http.onBytes = { peer, bytes in (peer.owner as? WebSocketConnection)?.received(bytes) }
        // A daemon that restarted forgot the client scene: nothing is tried any more (the live lanes
        // show the page as much), and ending Try has nothing to take away.
        server.onDaemonLine = { [unowned self] line in if line.event == .hello, trying != nil { endTry(reason: "the daemon restarted: Try again") } }
    }

    package func run() throws -> Int32 { try server.run() }

    // MARK: Routes

    private func route(_ peer: HTTPServer.Peer, _ request: HTTPRequestHead, _ cookie: String?) -> Bool {
        let http = server.http
        switch request.path {
        case "/", "/index.html":
            http.reply(peer, status: "200 OK", type: "text/html; charset=utf-8", body: request.method == "HEAD" ? [] : Array(VisualizerPage.editorPage.utf8), cookie: cookie)
        case "/schema":
            http.reply(peer, status: "200 OK", type: "application/json", body: SchemaDescription.json(), cookie: cookie)
        case "/scene":
            http.reply(peer, status: "200 OK", type: "application/json", body: sceneAnswer(), cookie: cookie)
        case "/rpc":
            upgrade(peer, request, cookie)
        default:
            return false
        }
        return true
    }

    /// `{"path": P, "exists": B, "document": {…}, "panel": {"width", "height"} or null}`: the file as JSON
    /// (its text when it is no JSON, for the page to say so), or a new scene the panel's size.
    func sceneAnswer() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("path"); w.string(path)
        let panel = panelSize()
        let text = try? Files.readText(path)
        w.key("exists"); w.bool(text != nil)
        w.key("document")
        var parser = JSONParser(text ?? "")
        if text != nil, let json = try? parser.parse() {
            w.value(json)
        } else {
            w.value(.object([("window", .object([("width", .number(panel?.width ?? 1280)), ("height", .number(panel?.height ?? 800))])), ("views", .array([]))]))
            // Not JSON: the page starts from an empty scene and says why (Save would replace it).
            if let text { w.key("unreadable"); w.string("\(path) is not JSON (\(text.utf8.count) bytes): Save would replace it") }
        }
        w.key("panel")
        if let panel {
            w.beginObject(); w.key("width"); w.number(panel.width); w.key("height"); w.number(panel.height); w.endObject()
        } else { w.null() }
        w.endObject()
        return w.bytes
    }

    /// The daemon's window, from its scene line (the panel's size and rotation, for a new scene).
    func panelSize() -> (width: Double, height: Double)? {
        guard let line = server.currentSceneLine else { return nil }
        var parser = JSONParser(bytes: line, recordsLines: false)
        guard let json = try? parser.parse(), let o = SceneLine.Outline.decode(json), o.width > 0 else { return nil }
        return (o.width, o.height)
    }

    // MARK: The request socket

    private func upgrade(_ peer: HTTPServer.Peer, _ request: HTTPRequestHead, _ cookie: String?) {
        let http = server.http
        switch WebSocketBridge.handshake(request, allowOrigins: [], listening: "\(http.host):\(http.port)") {
        case .failure(let r):
            if let o = r.origin { log.warning("refused the editor's socket to the page of \(o) (not this editor's own)") }
            http.reply(peer, status: r.status, type: "text/plain", body: Array(r.body.utf8), headers: r.headers)
        case .success(let key):
            let c: WebSocketConnection
            // A scene with inline stroke templates runs to hundreds of KiB: 4 MiB a message.
            do { c = try WebSocketConnection(peer: peer, server: http, maximumMessage: Self.maximumScene) } catch {
                return http.reply(peer, status: "500 Internal Server Error", type: "text/plain", body: Array("\(error)\n".utf8))
            }
            c.onMessage = { [unowned self] c, text, bytes in message(c, text: text, bytes) }
            rpc.append(c)
            http.send(peer, Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                   + "Sec-WebSocket-Accept: \(WebSocketConnection.acceptKey(key))\r\n"
                                   + (cookie.map { "Set-Cookie: \($0)\r\n" } ?? "") + "\r\n").utf8))
        }
    }

    private func dropped(_ peer: HTTPServer.Peer) {
        guard let i = rpc.firstIndex(where: { $0.peer === peer }) else { return }
        let c = rpc.remove(at: i)
        // The page closed while trying: its scene goes with it.
        if trying === c || (trying == nil && rpc.isEmpty) { untry(nil, id: nil) }
    }

    private func message(_ c: WebSocketConnection, text: Bool, _ bytes: UnsafeRawBufferPointer) {
        var parser = JSONParser(bytes: Array(bytes), recordsLines: false)
        guard text, let request = try? parser.parse(), let op = request["op"]?.stringValue else {
            return c.close(code: 1008, reason: "requests are JSON objects with an \"op\"")
        }
        let id = request["id"]
        switch op {
        case "check": answer(c, id, check(request["scene"] ?? .null).json)
        case "keys": answer(c, id, Self.keys(request["chord"]?.stringValue ?? "", keyboard: request["keyboard"]))
        case "save": answer(c, id, save(request["scene"] ?? .null))
        case "try": tryScene(c, request["scene"] ?? .null, id: id)
        case "untry": untry(c, id: id)
        default: answer(c, id, [("error", .string("unknown op \"\(HTTPServer.printable(op))\": check, keys, save, try, untry"))])
        }
    }

    private func answer(_ c: WebSocketConnection?, _ id: JSON?, _ fields: [(String, JSON)]) {
        guard let c else { return }
        let bytes = Array(JSON.object([("id", id ?? .null)] + fields).text.utf8)
        bytes.withUnsafeBytes { _ = c.send($0, text: true) }
        c.pump()
    }

    // MARK: Check, keys, save

    /// The scene checker's word on `scene`, as the file it would be saved as: its errors (path, line,
    /// message), or its warnings; and the text.
    package struct Checked {
        var text: String
        var errors: [ConfigError] = []
        var other: String?
        var warnings: [String] = []
        var ok: Bool { errors.isEmpty && other == nil }

        var json: [(String, JSON)] {
            if let other { return [("ok", .bool(false)), ("errors", .array([.object([("path", .string("")), ("message", .string(other))])]))] }
            return [("ok", .bool(ok)),
                    ("errors", .array(errors.map { e in .object([("path", .string(e.path)), ("line", e.line.map { .number(Double($0)) } ?? .null), ("message", .string(e.message))]) })),
                    ("warnings", .array(warnings.map(JSON.string)))]
        }
    }

    package func check(_ scene: JSON) -> Checked {
        guard scene.objectValue != nil else { return Checked(text: "", other: "the scene must be a JSON object") }
        let text = SceneFileText.format(scene)
        do {
            let s = try Scene.parse(text, file: Files.baseName(path), systemKeyboard: .system(), filesDirectory: Files.directoryName(path))
            return Checked(text: text, warnings: s.warnings)
        } catch let e as ConfigErrors {
            return Checked(text: text, errors: e.errors)
        } catch let e as ConfigError {
            return Checked(text: text, errors: [e])
        } catch {
            return Checked(text: text, other: "\(error)")
        }
    }

    /// What a chord types in `keyboard` (a scene's `"keyboard"`, or nil for the system's layout): the
    /// kernel names, through the same xkb resolution as the daemon's.
    package static func keys(_ chord: String, keyboard: JSON?) -> [(String, JSON)] {
        var names = KeyboardNames.system()
        if let k = keyboard, k != .null {
            do { names = try Scene.parseKeyboard(k, SceneSchema.keyboard, ConfigReader(file: "keyboard", lines: [:])) } catch {
                return [("error", .string("\(error)"))]
            }
        }
        do throws(KeyboardError) {
            let layout = try KeyboardLayout.compiled(names)
            let c = try KeyChord.resolve(chord) { () throws(KeyboardError) in layout }
            return [("codes", .array(c.codeNames.map(JSON.string))), ("layout", .string("\(names)"))]
        } catch {
            return [("error", .string(error.description))]
        }
    }

    /// Writes the scene if it checks: atomically (a temporary file, then rename), the old file kept as
    /// FILE~. What stands in the way is said, and the old file stays as it was.
    func save(_ scene: JSON) -> [(String, JSON)] {
        let checked = check(scene)
        guard checked.ok else {
            return [("ok", .bool(false)), ("error", .string("not saved: the scene has \(counted(max(checked.errors.count, 1), "error")); fix \(checked.errors.count == 1 ? "it" : "them") first (the file is as it was)"))]
                + checked.json.filter { $0.0 == "errors" }
        }
        let existed = Files.exists(path)
        do {
            try Files.replaceAtomically(path, checked.text, keepPrevious: existed)
        } catch {
            log.warning("\(path): not saved: \(error)")
            return [("ok", .bool(false)), ("error", .string("not saved: \(error); the file is as it was"))]
        }
        log.info("saved \(path)")
        return [("ok", .bool(true)), ("path", .string(path))] + (existed ? [("kept", .string(path + "~"))] : [])
    }

    // MARK: Try

    /// The scene's views on the daemon, as the client scene "editor" (on top of its own scene).
    private func tryScene(_ c: WebSocketConnection, _ scene: JSON, id: JSON?) {
        let checked = check(scene)
        guard checked.ok else {
            return answer(c, id, [("ok", .bool(false)), ("error", .string("fix the scene's errors first: the daemon would refuse it"))])
        }
        guard server.daemon.state == .connected else {
            return answer(c, id, [("ok", .bool(false)), ("error", .string("the daemon is not answering: start it (systemctl start touchbridged, or make run)"))])
        }
        let views = (scene["views"]?.arrayValue ?? []).map(Self.tried)
        guard !views.isEmpty else { return answer(c, id, [("ok", .bool(false)), ("error", .string("the scene has no views to try"))]) }
        server.daemon.send(.scene(name: Self.clientSceneName, views: views)) { [weak self, weak c] answer in
            guard let self else { return }
            switch answer {
            case .ok(let warning):
                trying = c
                log.info("trying the scene on the daemon (client scene \"\(Self.clientSceneName)\")")
                self.answer(c, id, [("ok", .bool(true)), ("message", .string("on the panel now, over the daemon's own scene, its recognizers named \(Self.tryPrefix)NAME: touch it" + (warning.map { " (\($0))" } ?? "")))])
            case .refused(let why):
                self.answer(c, id, [("ok", .bool(false)), ("error", .string("the daemon refused it: \(why)"))])
            case .closed:
                self.answer(c, id, [("ok", .bool(false)), ("error", .string("the daemon went away; try again when it is back"))])
            }
        }
    }

    /// Recognizer names are the daemon's, one each: tried beside the daemon's own scene (often this
    /// very file, running), each recognizer is "try.NAME", and the names it links to likewise.
    package static let tryPrefix = "try."

    static func tried(_ view: JSON) -> JSON {
        guard case .object(let members) = view else { return view }
        return .object(members.map { k, v in
            switch k {
            case ViewSchema.subviewsKey: (k, .array((v.arrayValue ?? []).map(tried)))
            case ViewSchema.recognizersKey: (k, .array((v.arrayValue ?? []).map(triedRecognizer)))
            default: (k, v)
            }
        })
    }

    /// A recognizer with its name and the names it links to prefixed.
    private static func triedRecognizer(_ r: JSON) -> JSON {
        guard case .object(let members) = r else { return r }
        let prefixed = { (n: JSON) in n.stringValue.map { JSON.string(tryPrefix + $0) } ?? n }
        return .object(members.map { k, v in
            switch k {
            case RecognizerSchema.nameKey: (k, prefixed(v))
            case RecognizerSchema.requireToFailKey, RecognizerSchema.simultaneousKey: (k, v.arrayValue.map { .array($0.map(prefixed)) } ?? v)
            default: (k, v)
            }
        })
    }

    private func untry(_ c: WebSocketConnection?, id: JSON?) {
        guard trying != nil || c == nil || rpc.contains(where: { $0 === c }) else { return }
        let was = trying != nil || c == nil
        trying = nil
        guard was, server.daemon.state == .connected else { return answer(c, id, [("ok", .bool(true))]) }
        server.daemon.send(.scene(name: Self.clientSceneName, views: [])) { [weak self, weak c] answer in
            switch answer {
            case .ok, .closed: self?.answer(c, id, [("ok", .bool(true))])
            case .refused(let why):
                // Nothing was on the daemon (it restarted meanwhile): nothing to take away.
                self?.answer(c, id, [("ok", .bool(true)), ("note", .string(why))])
            }
        }
    }

    private func endTry(reason: String) {
        trying = nil
        log.info(reason)
    }
}

extension Ctl {
    /// `edit FILE`: the scene editor (EditServer), whose address is printed once.
    package static let edit = Command("edit", operands: "FILE", "edit a scene in the browser: draw views on the panel's window, pick recognizers and\nactions from the scene format, check as you type, try it live on the panel, save FILE", options: [
        .option("listen", "ADDR:PORT", "where the editor is served (default \(EditServer.defaultAddress))"),
        .flag("no-token", "serve without the token the printed address carries (a trusted kiosk only)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "the scene file (a new one, or one to change)")
        let log = Logger(program: "touchbridgectl edit")
        let file = a.positional[0]
        guard !Files.isDirectory(file) else { throw Arguments.Failure(description: "touchbridgectl edit: \(file) is a directory; name a scene file") }
        let server = try EditServer(path: file, address: a["listen"] ?? EditServer.defaultAddress, socketPath: try DaemonSocket.path(a),
                                    requireToken: !a.has("no-token"), log: log)
        var out = StandardOutput()
        out.line("touchbridgectl edit: open \(server.server.url) in a browser to edit \(file) (the daemon: \(server.server.socketPath))")
        out.flush()
        return try server.run()
    }
}
