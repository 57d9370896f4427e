import TouchCore
import TouchProtocol
import TouchSystem

/// A client scene (protocol 2, `{"scene": {"name": N, "views": [...]}}`): views in the scene file's
/// format that one connection puts on top of the window's views. Its views and recognizers are named
/// `"N/name"` everywhere (lines, patterns, the scene topic); `requireToFail` and `simultaneousWith`
/// name recognizers of the same client scene, by their names as sent.
///
/// It lives as long as the connection that sent it, or until that connection sends the same name
/// again (replaced) or with no views (removed). The pipeline owns it (`Pipeline.setClientScene`).
public final class ClientScene {
    /// The connection that owns it (`SocketServer.ControlRequest.connection`).
    public let connection: Int
    public let name: String
    /// The views as the client sent them: the scene is built again on a new window (SIGHUP).
    package let viewsJSON: [JSON]
    /// Its top-level views, back to front, as they sit in the window.
    public let views: [View]
    /// Every view, depth first.
    public let allViews: [View]
    /// Every recognizer, in the order the command declares them.
    public let recognizers: [GestureRecognizer]
    /// Views marked `"passthrough": false`.
    package let reserved: [View]
    /// The recognizers' delegate (recognizers hold their delegate weakly: the scene keeps it).
    package let delegate: SceneDelegate
    /// What its recognizers do on the desktop (README "Actions"): a client scene is pushed by a peer
    /// permitted to control the daemon, as the scene file is written by one.
    package let actions: [(recognizer: GestureRecognizer, action: Action)]
    /// Where its recognizers take part (`apps`, `exceptApps`).
    package let scopes: [(recognizer: GestureRecognizer, scope: AppScope)]
    /// The layout its keys actions were resolved in (the scene file's), for rebuilding.
    package let keyboard: KeyboardNames
    /// What is legal but surely not meant, for the log.
    package let warnings: [String]

    private init(connection: Int, name: String, viewsJSON: [JSON], views: [View], builder: Scene.Builder) {
        self.connection = connection
        self.name = name
        self.viewsJSON = viewsJSON
        self.views = views
        allViews = builder.views
        recognizers = builder.recognizers.map(\.recognizer)
        reserved = builder.reserved
        delegate = builder.delegate
        actions = builder.actions
        scopes = builder.scopes
        keyboard = builder.keyboard
        warnings = builder.warnings
    }

    /// Builds the views of a `scene` command; every error names its path inside the command
    /// (`scene.views[0].frame: …`), as scene-file errors do. Nothing is added to a window here.
    package static func build(name: String, views json: [JSON], connection: Int, keyboard: KeyboardNames) throws(ClientCommand.Refusal) -> ClientScene {
        var builder = Scene.Builder(reader: ConfigReader(file: "scene", lines: [:]), keyboard: keyboard)
        var views: [View] = []
        do {
            for (i, v) in json.enumerated() { views.append(try builder.view(v, "scene.views[\(i)]")) }
            try builder.link()
            try builder.finish()
        } catch let e as ConfigError {
            throw ClientCommand.Refusal(message: "\(e.path): \(e.message)")
        } catch let e as ConfigErrors {
            // One answer line: the first problem, and how many more there are.
            let first = e.errors[0]
            throw ClientCommand.Refusal(message: "\(first.path): \(first.message) (and \(counted(e.errors.count - 1, "more error")))")
        } catch {
            throw ClientCommand.Refusal(message: "scene: \(error)")
        }
        // Names are linked by the names the client gave; from here on they carry the scene's name.
        for v in builder.views { v.name = "\(name)/\(v.name ?? "")" }
        for r in builder.recognizers { r.recognizer.name = "\(name)/\(r.recognizer.name ?? "")" }
        return ClientScene(connection: connection, name: name, viewsJSON: json, views: views, builder: builder)
    }

    /// The same scene built again, for a new window (the scene file was reloaded).
    package func rebuilt() -> ClientScene? {
        try? ClientScene.build(name: name, views: viewsJSON, connection: connection, keyboard: keyboard)
    }
}
