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
    package static func encode(_ scene: Scene, clients: [ClientScene]) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.key("event"); w.staticString("scene")
        w.key("scene")
        w.beginObject()
        w.key("window")
        w.beginObject()
        w.key("width"); w.number(scene.window.bounds.width)
        w.key("height"); w.number(scene.window.bounds.height)
        w.endObject()
        if let k = scene.keyboard {
            w.key("keyboard")
            KeyboardSchema.schema.write(k, &w)
        }
        if !scene.devices.isEmpty {
            w.key("devices")
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
        var actions: [ObjectIdentifier: Action] = [:]
        for (r, a) in scene.actions + clients.flatMap(\.actions) { actions[ObjectIdentifier(r)] = a }
        let writer = ViewWriter(window: scene.window, reserved: reserved, actions: actions)
        w.key("views")
        w.beginArray()
        for v in scene.window.subviews { writer.view(v, clientScene: owner[ObjectIdentifier(v)]?.name, &w) }
        w.endArray()
        w.endObject()
        w.endObject()
        return w.bytes
    }

    package static func device(_ d: DeviceConfig, _ w: inout JSONWriter) { DeviceSchema.schema.write(d, &w) }

    package static func numbers(_ list: [Double], _ w: inout JSONWriter) {
        w.beginArray()
        for n in list { w.number(n) }
        w.endArray()
    }

    package struct ViewWriter {
        let window: Window
        let reserved: Set<ObjectIdentifier>
        let actions: [ObjectIdentifier: Action]

        func view(_ v: View, clientScene: String?, _ w: inout JSONWriter) {
            w.beginObject()
            w.key("name"); w.string(v.name ?? "")
            if let clientScene { w.key("clientScene"); w.string(clientScene) }
            // The frame as a scene file gives it: the untransformed rectangle about `center` (G2), which
            // the reader turns back into the same center and bounds size.
            let b = v.bounds
            w.key("frame"); numbers([v.center.x - b.width / 2, v.center.y - b.height / 2, b.width, b.height], &w)
            if b.origin != .zero { w.key("bounds"); numbers([b.origin.x, b.origin.y, b.width, b.height], &w) }
            let t = v.transform
            if t != .identity { w.key("transform"); numbers([t.a, t.b, t.c, t.d, t.tx, t.ty], &w) }
            w.key("windowFrame")
            w.beginArray()
            for corner in [Point(x: b.minX, y: b.minY), Point(x: b.maxX, y: b.minY),
                           Point(x: b.maxX, y: b.maxY), Point(x: b.minX, y: b.maxY)] {
                let p = v.convert(corner, to: window)
                numbers([p.x, p.y], &w)
            }
            w.endArray()
            w.key("alpha"); w.number(v.alpha)
            w.key("hidden"); w.bool(v.isHidden)
            w.key("userInteractionEnabled"); w.bool(v.isUserInteractionEnabled)
            w.key("multipleTouchEnabled"); w.bool(v.isMultipleTouchEnabled)
            w.key("exclusiveTouch"); w.bool(v.isExclusiveTouch)
            let i = v.touchInsets
            if i != .zero { w.key("touchInsets"); numbers([i.top, i.left, i.bottom, i.right], &w) }
            if reserved.contains(ObjectIdentifier(v)) && !(v.superview.map { reserved.contains(ObjectIdentifier($0)) } ?? false) {
                w.key("passthrough"); w.bool(false)
            }
            if !v.gestureRecognizers.isEmpty {
                w.key("recognizers")
                w.beginArray()
                for r in v.gestureRecognizers { recognizer(r, &w) }
                w.endArray()
            }
            if !v.subviews.isEmpty {
                w.key("subviews")
                w.beginArray()
                for s in v.subviews { view(s, clientScene: nil, &w) }
                w.endArray()
            }
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
            if let a = actions[ObjectIdentifier(r)] { w.key(string: RecognizerSchema.actionKey); a.write(into: &w, discrete: r.isDiscrete) }
            w.endObject()
        }
    }
}
