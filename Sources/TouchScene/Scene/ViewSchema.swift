import TouchCore
import TouchProtocol
import TouchSystem

/// One key of a scene's view (docs/scenes.md "Views"): how its value is read onto the view being built
/// (checked, with an error naming the JSON path) and how the scene line writes it back. As
/// `ConfigKey` is for device entries and `RecognizerProperty` for recognizers: the allowed keys, the
/// reader and the writer come from one table, so each key is written once.
package struct ViewKey: Sendable {
    package let key: String
    /// The error's text when a view lacks the key; nil for an optional one.
    package let missing: String?
    /// Written by the scene line only (derived from the tree), ignored when read: a saved scene line
    /// is a scene file. Listed last among the allowed keys.
    package let derived: Bool
    /// Reads the value at `path` onto `view`; the builder is there for what a view holds (recognizers,
    /// subviews) and for what the scene keeps about it (views the mirror never hears).
    package let read: @Sendable (inout Scene.Builder, View, JSON, String) throws -> Void
    /// Writes `"key": value`, or nothing where a file would leave the key out.
    package let write: @Sendable (Scene.ViewWriting, View, inout JSONWriter) -> Void
    /// What kind of value it takes (SchemaDescription).
    package let form: ValueForm

    init(_ key: String, missing: String? = nil, derived: Bool = false, form: ValueForm = .json,
         read: @escaping @Sendable (inout Scene.Builder, View, JSON, String) throws -> Void = { _, _, _, _ in },
         write: @escaping @Sendable (Scene.ViewWriting, View, inout JSONWriter) -> Void) {
        self.key = key
        self.missing = missing
        self.derived = derived
        self.form = form
        self.read = read
        self.write = write
    }

    /// A Bool property, always written.
    static func bool(_ key: String, _ kp: ReferenceWritableKeyPath<View, Bool> & Sendable) -> ViewKey {
        ViewKey(key, form: .bool, read: { b, v, json, p in v[keyPath: kp] = try b.reader.bool(json, p) },
                write: { _, v, w in w.key(string: key); w.bool(v[keyPath: kp]) })
    }
}

/// What writing a view needs beyond the view: the window its corners are given in, the views the
/// mirror never hears, the actions of recognizers, and the client scene a top-level view came from.
extension Scene {
    package struct ViewWriting {
        let window: Window
        let reserved: Set<ObjectIdentifier>
        let actions: [ObjectIdentifier: [Action]]
        var scopes: [ObjectIdentifier: AppScope] = [:]
        var clientScene: String? = nil
    }
}

/// The keys of a view, in the order the scene line writes them.
package enum ViewSchema {
    package static let recognizersKey = "recognizers", subviewsKey = "subviews"

    package static let keys: [ViewKey] = [
        ViewKey("name", missing: "missing \"name\"", form: .string, read: { b, v, json, p in
            let name = try b.reader.string(json, p)
            guard !name.isEmpty else { throw b.reader.error(p, "must not be empty: the socket's lines name the view") }
            v.name = name
        }, write: { _, v, w in w.key(string: "name"); w.string(v.name ?? "") }),
        // The client scene a top-level view came from (protocol 2): derived.
        ViewKey("clientScene", derived: true, write: { c, _, w in
            if let s = c.clientScene { w.key(string: "clientScene"); w.string(s) }
        }),
        // Written as a scene file gives it: the untransformed rectangle about `center` (G2), which the
        // reader turns back into the same center and bounds size.
        ViewKey("frame", missing: "missing \"frame\": [x, y, width, height]", form: .numbers(4), read: { b, v, json, p in
            let f = try b.reader.numbers(json, p, count: 4, what: "[x, y, width, height]")
            guard f[2] >= 0, f[3] >= 0 else { throw b.reader.error(p, "width and height must not be negative") }
            v.frame = Rect(x: f[0], y: f[1], width: f[2], height: f[3])
        }, write: { _, v, w in
            let b = v.bounds
            w.key(string: "frame"); w.numbers([v.center.x - b.width / 2, v.center.y - b.height / 2, b.width, b.height])
        }),
        ViewKey("bounds", form: .numbers(4), read: { b, v, json, p in
            let r = try b.reader.numbers(json, p, count: 4, what: "[x, y, width, height]")
            v.bounds = Rect(x: r[0], y: r[1], width: r[2], height: r[3])
        }, write: { _, v, w in
            let b = v.bounds
            if b.origin != .zero { w.key(string: "bounds"); w.numbers([b.origin.x, b.origin.y, b.width, b.height]) }
        }),
        ViewKey("transform", form: .numbers(6), read: { b, v, json, p in
            let t = try b.reader.numbers(json, p, count: 6, what: "[a, b, c, d, tx, ty]")
            let transform = AffineTransform(a: t[0], b: t[1], c: t[2], d: t[3], tx: t[4], ty: t[5])
            guard transform.isInvertible else { throw b.reader.error(p, "is not invertible (a·d − b·c = 0): the view could never be hit") }
            v.transform = transform
        }, write: { _, v, w in
            let t = v.transform
            if t != .identity { w.key(string: "transform"); w.numbers([t.a, t.b, t.c, t.d, t.tx, t.ty]) }
        }),
        // The four corners of the bounds in window coordinates, after every transform on the way
        // (top-left, top-right, bottom-right, bottom-left), for programs that draw the scene: derived.
        ViewKey("windowFrame", derived: true, write: { c, v, w in
            let b = v.bounds
            w.key(string: "windowFrame")
            w.beginArray()
            for corner in [Point(x: b.minX, y: b.minY), Point(x: b.maxX, y: b.minY),
                           Point(x: b.maxX, y: b.maxY), Point(x: b.minX, y: b.maxY)] {
                let p = v.convert(corner, to: c.window)
                w.numbers([p.x, p.y])
            }
            w.endArray()
        }),
        ViewKey("alpha", form: .number(min: 0, max: 1), read: { b, v, json, p in
            let a = try b.reader.number(json, p)
            guard (0...1).contains(a) else { throw b.reader.error(p, "must be between 0 and 1, found \(a)") }
            v.alpha = a
        }, write: { _, v, w in w.key(string: "alpha"); w.number(v.alpha) }),
        .bool("hidden", \.isHidden),
        .bool("userInteractionEnabled", \.isUserInteractionEnabled),
        .bool("multipleTouchEnabled", \.isMultipleTouchEnabled),
        .bool("exclusiveTouch", \.isExclusiveTouch),
        ViewKey("touchInsets", form: .numbers(4), read: { b, v, json, p in
            let i = try b.reader.numbers(json, p, count: 4, what: "[top, left, bottom, right]")
            v.touchInsets = EdgeInsets(top: i[0], left: i[1], bottom: i[2], right: i[3])
        }, write: { _, v, w in
            let i = v.touchInsets
            if i != .zero { w.key(string: "touchInsets"); w.numbers([i.top, i.left, i.bottom, i.right]) }
        }),
        // `false`: touches whose hit-test view is this one, or inside it, never reach a mirror. Written
        // on the outermost such view only (its subviews are reserved with it).
        ViewKey("passthrough", form: .bool, read: { b, v, json, p in
            if try !b.reader.bool(json, p) { b.reserved.append(v) }
        }, write: { c, v, w in
            if c.reserved.contains(ObjectIdentifier(v)) && !(v.superview.map { c.reserved.contains(ObjectIdentifier($0)) } ?? false) {
                w.key(string: "passthrough"); w.bool(false)
            }
        }),
        ViewKey(recognizersKey, read: { b, v, json, p in
            guard let list = json.arrayValue else { throw b.reader.error(p, "must be an array of recognizers") }
            for (i, rec) in list.enumerated() {
                do { v.addGestureRecognizer(try b.recognizer(rec, "\(p)[\(i)]")) } catch {
                    if let n = rec[RecognizerSchema.nameKey]?.stringValue { b.failedNames.insert(n) }
                    try b.note(error)
                }
            }
        }, write: { c, v, w in
            guard !v.gestureRecognizers.isEmpty else { return }
            w.key(string: recognizersKey)
            w.beginArray()
            for r in v.gestureRecognizers { c.recognizer(r, &w) }
            w.endArray()
        }),
        ViewKey(subviewsKey, read: { b, v, json, p in
            guard let list = json.arrayValue else { throw b.reader.error(p, "must be an array of views") }
            for (i, sub) in list.enumerated() {
                do { v.addSubview(try b.view(sub, "\(p)[\(i)]")) } catch { try b.note(error) }
            }
        }, write: { c, v, w in
            guard !v.subviews.isEmpty else { return }
            var inner = c
            inner.clientScene = nil
            w.key(string: subviewsKey)
            w.beginArray()
            for s in v.subviews { inner.view(s, &w) }
            w.endArray()
        }),
    ]

    /// The keys a view may have: the file's own first, in the order written, then the derived ones.
    package static let allowed = keys.filter { !$0.derived }.map(\.key) + keys.filter(\.derived).map(\.key)
    /// Read before the rest, in this order, whatever the file's: the view needs its frame first.
    static let required = keys.filter { $0.missing != nil }
    static let byKey = Dictionary(uniqueKeysWithValues: keys.map { ($0.key, $0) })
}

/// A scene file's own keys (docs/scenes.md): the top level and the window. Views, recognizers, device
/// entries, the keyboard and actions have their tables (ViewSchema, RecognizerSchema, DeviceSchema,
/// KeyboardSchema, ActionSchema); these few are read and written once each, in Scene.parse and
/// SceneLine, by these names.
package enum SceneSchema {
    package static let window = "window", devices = "devices", views = "views", keyboard = "keyboard",
                       pencilButtons = "pencilButtons", display = "display"
    /// The top level's keys, as an unknown key's error lists them.
    package static let topLevel = [window, devices, views, keyboard, pencilButtons, display]
    package static let width = "width", height = "height"
    /// A pencil's barrel buttons, as `"pencilButtons"` names them.
    package static let buttons = ["1", "2"]
}
