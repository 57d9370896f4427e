import Glibc
import TouchCore
import TouchProtocol
import TouchScene
import TouchSystem

/// Live control (protocol 2): enabling recognizers and client scenes. Each command is checked whole
/// before anything changes, so a refused one changes nothing; a change made while touches are down
/// goes out to the mirrors at `time`, as a reload does.
extension Pipeline {
    /// Every recognizer of the current scene: the scene file's, then the client scenes' in push order.
    public var recognizers: [GestureRecognizer] {
        scene.recognizers + clientScenes.flatMap(\.recognizers)
    }

    /// UIKit's `isEnabled` for every recognizer whose name matches one of `patterns` (shell patterns:
    /// `*`, `?`, `[…]`; `*` matches `/` too, so `"kiosk/*"` is a client scene's every recognizer).
    /// Disabling one mid-gesture cancels it, and one still deciding fails, so that what waited on it
    /// goes on (C6, F1). A pattern that matches nothing is refused, naming it. A pattern that is a
    /// recognizer's own name names that recognizer alone: a name with `*` in it (`t","*`, which Home
    /// Assistant's switch sends as it is) is not taken as a pattern for others.
    public func setEnabled(patterns: [String], enabled: Bool, at time: Double) throws(ClientCommand.Refusal) {
        let all = recognizers
        var matched: [GestureRecognizer] = []
        for (i, pattern) in patterns.enumerated() {
            let exact = all.filter { $0.name == pattern }
            let hits = exact.isEmpty ? all.filter { Pipeline.matches(pattern, $0.name ?? "") } : exact
            guard !hits.isEmpty else {
                let names = all.compactMap(\.name)
                let shown = names.prefix(20).joined(separator: ", ") + (names.count > 20 ? ", …" : "")
                throw ClientCommand.Refusal(message: "set.recognizers[\(i)]: \"\(pattern)\" matches no recognizer; the recognizers are \(names.isEmpty ? "none" : shown)")
            }
            for h in hits where !matched.contains(where: { $0 === h }) { matched.append(h) }
        }
        passthrough?.time(time)
        actions?.clock(time)
        for r in matched {
            if let name = r.name { enabledOverrides[name] = enabled }
            r.isEnabled = enabled
        }
        flushWrites()
        onSceneChanged?()
    }

    /// fnmatch(3) without flags: a name is a name, not a path.
    package static func matches(_ pattern: String, _ name: String) -> Bool {
        fnmatch(pattern, name, 0) == 0
    }

    /// A `scene` command from `connection`: builds the views (refusing the whole command on any error),
    /// then puts them front-most, or where the same connection's scene of that name was (replacing
    /// it); no views removes that scene.
    public func setClientScene(connection: Int, name: String, views: [JSON], at time: Double) throws(ClientCommand.Refusal) {
        if clientScenes.contains(where: { $0.name == name && $0.connection != connection }) {
            throw ClientCommand.Refusal(message: "scene.name: \"\(name)\" is another connection's client scene; choose another name")
        }
        let old = clientScenes.firstIndex { $0.name == name }
        guard !views.isEmpty else {
            guard let old else {
                throw ClientCommand.Refusal(message: "scene: this connection has no client scene \"\(name)\" to remove")
            }
            passthrough?.time(time)
            actions?.clock(time)
            remove(clientScenes[old])
            clientScenes.remove(at: old)
            flushWrites()
            onSceneChanged?()
            return
        }
        let built = try ClientScene.build(name: name, views: views, connection: connection, keyboard: scene.keyboardLayout)
        // Names are unique across the daemon: the lines and patterns name recognizers alone.
        let taken = Set((scene.recognizers + clientScenes.filter { $0.name != name }.flatMap(\.recognizers)).compactMap(\.name))
        if let clash = built.recognizers.first(where: { taken.contains($0.name ?? "") }) {
            throw ClientCommand.Refusal(message: "scene: a recognizer is already named \"\(clash.name ?? "")\"; choose another scene name")
        }
        passthrough?.time(time)
        actions?.clock(time)
        var position: Int?
        if let old {
            let replaced = clientScenes[old]
            position = replaced.views.first.flatMap { v in scene.window.subviews.firstIndex { $0 === v } }
            remove(replaced)
            clientScenes.remove(at: old)
        }
        // The scene's own `enabled` keys are what its client means now.
        for r in built.recognizers { if let n = r.name { enabledOverrides[n] = nil } }
        attach(built, at: position)
        flushWrites()
        onSceneChanged?()
    }

    /// The connection went away: its client scenes go with it.
    public func removeClientScenes(of connection: Int, at time: Double) {
        let mine = clientScenes.filter { $0.connection == connection }
        guard !mine.isEmpty else { return }
        passthrough?.time(time)
        actions?.clock(time)
        for c in mine { remove(c) }
        clientScenes.removeAll { $0.connection == connection }
        flushWrites()
        onSceneChanged?()
    }

    /// Puts a client scene's views in the window (at `position` among the window's subviews, else
    /// front-most) and its recognizers to work.
    package func attach(_ c: ClientScene, at position: Int?) {
        let window = scene.window
        var index = position ?? window.subviews.count
        for v in c.views {
            window.insertSubview(v, at: index)
            index += 1
        }
        (window as? PassthroughWindow)?.reserve(c.reserved)
        for r in c.recognizers { wire(r) }
        if let actions { for (r, a) in c.actions { actions.bind(r, a) } }
        applyOverrides(to: c.recognizers)
        applyScopes(c.scopes)
        for w in c.warnings { log.warning("client scene \"\(c.name)\": \(w)") }
        clientScenes.append(c)
        clientScenes.sort { a, b in
            let ia = a.views.first.flatMap { v in window.subviews.firstIndex { $0 === v } } ?? 0
            let ib = b.views.first.flatMap { v in window.subviews.firstIndex { $0 === v } } ?? 0
            return ia < ib
        }
    }

    /// Takes a client scene away: its recognizers are disabled first (a gesture under way ends
    /// cancelled, one deciding fails), then its views leave the window. Touches on them keep their
    /// view (T4) until they lift; the scene stays alive until then.
    private func remove(_ c: ClientScene) {
        for r in c.recognizers { r.isEnabled = false }
        actions?.unbind(c.recognizers)
        for v in c.views { v.removeFromSuperview() }
        for r in c.recognizers { if let n = r.name { enabledOverrides[n] = nil } }
        removedClientScenes.append(c)
        if application.activeTouches.isEmpty { releaseRemovedClientScenes() }
    }

    /// Lets go of removed client scenes once no touch is down.
    package func releaseRemovedClientScenes() {
        guard application.activeTouches.isEmpty else { return }
        for c in removedClientScenes { (scene.window as? PassthroughWindow)?.unreserve(c.reserved) }
        removedClientScenes.removeAll()
    }

    /// What `set recognizers` decided, for recognizers new to the pipeline (a reloaded scene, a
    /// client scene built again).
    package func applyOverrides(to list: [GestureRecognizer]) {
        guard !enabledOverrides.isEmpty else { return }
        for r in list { if let n = r.name, let on = enabledOverrides[n] { r.isEnabled = on } }
    }
}
