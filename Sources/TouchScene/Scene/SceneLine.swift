import TouchCore
import TouchInput
import TouchProtocol
import TouchSystem

/// `{"event":"scene","scene":{…}}` (protocol 2, topic `scene`): the whole current scene as a scene file
/// would say it — the window, the device entries, every view with its recognizers and their current
/// `enabled` — with the client scenes' views after the file's (front-most, in push order, names
/// prefixed, `"clientScene": N` on their top-level views), and on every view its `"windowFrame"`: the
/// four corners of its bounds in window coordinates, after every transform on the way (top-left,
/// top-right, bottom-right, bottom-left), for programs that draw the scene. The scene reader ignores
/// `windowFrame` and `clientScene`, so a saved scene line is a scene file.
package enum SceneLine {
    /// `passthroughDevices`: the devices whose touches reach no recognizer now, an app of their entry's
    /// `passthroughApps` being focused (FO3); written after the scene, when there are any.
    package static func encode(_ scene: Scene, clients: [ClientScene], passthroughDevices: [Int] = []) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.key("event"); w.staticString("scene")
        w.key("scene")
        w.beginObject()
        w.key(string: SceneSchema.window)
        w.beginObject()
        w.key(string: SceneSchema.width); w.number(scene.window.bounds.width)
        w.key(string: SceneSchema.height); w.number(scene.window.bounds.height)
        w.endObject()
        if let k = scene.keyboard {
            w.key(string: SceneSchema.keyboard)
            KeyboardSchema.schema.write(k, &w)
        }
        if let d = scene.display {
            w.key(string: SceneSchema.display)
            DisplaySchema.schema.write(d, &w)
        }
        if !scene.devices.isEmpty {
            w.key(string: SceneSchema.devices)
            w.beginArray()
            for d in scene.devices { device(d, &w) }
            w.endArray()
        }
        // Every view of the window in its place: the file's and the clients', in window order.
        var owner: [ObjectIdentifier: ClientScene] = [:]
        var reserved = Set(scene.reservedViews.map(ObjectIdentifier.init))
        for c in clients {
            for v in c.views { owner[ObjectIdentifier(v)] = c }
            for v in c.reserved { reserved.insert(ObjectIdentifier(v)) }
        }
        var actions: [ObjectIdentifier: [Action]] = [:]
        for (r, a) in scene.actions + clients.flatMap(\.actions) { actions[ObjectIdentifier(r), default: []].append(a) }
        var writer = Scene.ViewWriting(window: scene.window, reserved: reserved, actions: actions)
        for (r, s) in scene.scopes + clients.flatMap(\.scopes) { writer.scopes[ObjectIdentifier(r)] = s }
        w.key(string: SceneSchema.views)
        w.beginArray()
        for v in scene.window.subviews {
            writer.clientScene = owner[ObjectIdentifier(v)]?.name
            writer.view(v, &w)
        }
        w.endArray()
        if !scene.pencilButtonActions.isEmpty {
            w.key(string: SceneSchema.pencilButtons)
            w.beginObject()
            for b in SceneSchema.buttons {
                guard let a = scene.pencilButtonActions[Int(b)!] else { continue }
                w.key(string: b)
                ActionSchema.write(a, discrete: true, &w)
            }
            w.endObject()
        }
        w.endObject()
        if !passthroughDevices.isEmpty {
            w.key("passthroughDevices")
            w.numbers(passthroughDevices.map(Double.init))
        }
        w.endObject()
        return w.bytes
    }

    package static func device(_ d: DeviceConfig, _ w: inout JSONWriter) { DeviceSchema.schema.write(d, &w) }

}

extension Scene.ViewWriting {
    /// A view as `ViewSchema` writes it, key by key.
    func view(_ v: View, _ w: inout JSONWriter) {
        w.beginObject()
        for key in ViewSchema.keys { key.write(self, v, &w) }
        w.endObject()
    }

    func recognizer(_ r: GestureRecognizer, _ w: inout JSONWriter) {
        w.beginObject()
        w.key(string: RecognizerSchema.nameKey); w.string(r.name ?? "")
        w.key(string: RecognizerSchema.typeKey); w.staticString(RecognizerKind(r).name)
        // The recognizer's properties as its type's schema reads and writes them (RecognizerSchema).
        for property in RecognizerSchema.common + (RecognizerSchema.of(r)?.properties ?? []) { property.write(r, &w) }
        let required = r.failureRequirements
        if !required.isEmpty {
            w.key(string: RecognizerSchema.requireToFailKey)
            w.beginArray()
            for o in required { w.string(o.name ?? "") }
            w.endArray()
        }
        if let d = r.delegate as? SceneDelegate {
            let s = d.simultaneousDeclaration(of: r)
            if s.everyone {
                w.key(string: RecognizerSchema.simultaneousKey); w.staticString("*")
            } else if !s.names.isEmpty {
                w.key(string: RecognizerSchema.simultaneousKey)
                w.beginArray()
                for o in s.names { w.string(o.name ?? "") }
                w.endArray()
            }
        }
        if let a = actions[ObjectIdentifier(r)] { w.key(string: RecognizerSchema.actionKey); ActionSchema.write(a, discrete: r.isDiscrete, &w) }
        if let s = r as? StrokeGestureRecognizer {
            // Derived: the shapes its templates have, for a client that cannot read its file (MQTT triggers).
            w.key(string: StrokeSchema.templateNamesKey)
            w.beginArray()
            for n in s.prepared.names { w.string(n) }
            w.endArray()
        }
        if let s = scopes[ObjectIdentifier(r)] {
            RecognizerSchema.writeScope(s, &w)
            // Derived, as the window's frame is: whether the focused app lets it take part now (FO1).
            w.key(string: RecognizerSchema.activeKey); w.bool(!r.isScopedOut)
        }
        w.endObject()
    }
}

extension SceneLine {
    /// What a client reads of a scene line: the window's size and every view and recognizer in tree
    /// order (the client scenes' included), by the names the scene's tables write them with.
    package struct Outline {
        package struct Recognizer {
            package var name: String
            package var type: String
            package var enabled: Bool
            /// A stroke's shapes: those it takes ("shapes"), else every template's.
            package var shapes: [String] = []
            /// Its action's kind ("keys", "value", …), nil without one.
            package var action: String? = nil
        }
        package var width = 0.0, height = 0.0
        package var viewCount = 0
        package var recognizers: [Recognizer] = []

        /// `line`: `{"event":"scene","scene":{…}}`; nil without its `scene`.
        package static func decode(_ line: JSON) -> Outline? {
            guard let scene = line["scene"] else { return nil }
            var o = Outline()
            o.width = scene[SceneSchema.window]?[SceneSchema.width]?.numberValue ?? 0
            o.height = scene[SceneSchema.window]?[SceneSchema.height]?.numberValue ?? 0
            func walk(_ views: JSON?) {
                for v in views?.arrayValue ?? [] {
                    o.viewCount += 1
                    for r in v[ViewSchema.recognizersKey]?.arrayValue ?? [] {
                        guard let n = r[RecognizerSchema.nameKey]?.stringValue, !n.isEmpty else { continue }
                        let shapes = (r["shapes"] ?? r[StrokeSchema.templateNamesKey])?.arrayValue?.compactMap(\.stringValue) ?? []
                        let action = r[RecognizerSchema.actionKey]?.objectValue?.first { ActionSchema.kindNames.contains($0.0) }?.0
                        o.recognizers.append(Recognizer(name: n, type: r[RecognizerSchema.typeKey]?.stringValue ?? "",
                                                        enabled: r[RecognizerSchema.enabledKey]?.boolValue ?? true, shapes: shapes,
                                                        action: action))
                    }
                    walk(v[ViewSchema.subviewsKey])
                }
            }
            walk(scene[SceneSchema.views])
            return o
        }
    }
}
