import TouchCore
import TouchProtocol
import TouchSystem

/// A recognizer's `"action"` in a scene file (docs/actions.md), one table: each kind of action with its
/// key, its reader and its writer, and the two keys that modify one (`count`, `on`). The allowed keys,
/// the errors' lists and the scene line all come from it, so each key is written once.
package enum ActionSchema {
    /// One kind of action: `{"keys": …}`, `{"click": …}`, `{"scroll": {…}}`, `{"zoom": {…}}`.
    package struct KindKey: Sendable {
        /// The key in a scene file, and the action's name on the socket.
        package let key: StaticString
        let matches: @Sendable (Action.Kind) -> Bool
        /// A pencil barrel button may have it (a press is discrete: nothing that follows a gesture).
        let onPencilButton: Bool
        /// The recognizer types it acts on (nil: every type), as its reader checks them: for a program
        /// that offers only what fits (the editor; a test holds the two together).
        var recognizers: [RecognizerKind]? = nil
        /// Reads the kind's value at `path`; `action` is the whole action object at `actionPath` (a
        /// click's count is beside it), `g` the recognizer it belongs to.
        let read: @Sendable (_ value: JSON, _ path: String, _ action: JSON, _ actionPath: String, _ g: GestureRecognizer,
                             _ r: ConfigReader, _ layout: () throws(KeyboardError) -> KeyboardLayout) throws -> Action.Kind
        /// Writes the kind's value (after its key) and what modifies it.
        let write: @Sendable (Action.Kind, inout JSONWriter) -> Void
        var name: String { key.description }
    }

    static let countKey = "count", onKey = "on"

    package static let kinds: [KindKey] = [
        KindKey(key: "keys", matches: { if case .keys = $0 { true } else { false } }, onPencilButton: true, read: { value, p, _, _, _, r, layout in
            let texts: [(String, String)]
            if let s = value.stringValue { texts = [(s, p)] } else {
                guard value.arrayValue != nil else { throw r.error(p, "must be a chord (\"ctrl+z\") or a list of chords, found \(value.kindName)") }
                texts = try r.strings(value, p).enumerated().map { ($0.element, "\(p)[\($0.offset)]") }
                guard !texts.isEmpty else { throw r.error(p, "needs at least one chord") }
            }
            var chords: [KeyChord] = []
            for (text, tp) in texts {
                do throws(KeyboardError) { chords.append(try KeyChord.resolve(text, layout: layout)) } catch { throw r.error(tp, error.description) }
            }
            return .keys(chords)
        }, write: { kind, w in
            guard case .keys(let chords) = kind else { return }
            if chords.count == 1 { w.string(chords[0].text) } else {
                w.beginArray()
                for c in chords { w.string(c.text) }
                w.endArray()
            }
        }),
        KindKey(key: "click", matches: { if case .click = $0 { true } else { false } }, onPencilButton: true, read: { value, p, action, actionPath, _, r, _ in
            let name = try r.string(value, p)
            guard let button = PointerButton(rawValue: name) else {
                let names = PointerButton.allCases.map(\.rawValue)
                let hint = DidYouMean.hint(name, in: names)
                throw r.error(p, "unknown button \"\(name)\"\(hint); one of \(names.joined(separator: ", "))")
            }
            var count = 1
            if let c = action[countKey] {
                let cp = r.join(actionPath, countKey)
                count = try r.integer(c, cp, min: 1)
                guard count <= 3 else { throw r.error(cp, "must be 1, 2 or 3 (a triple click at most), found \(count)") }
            }
            return .click(button, count: count)
        }, write: { kind, w in
            guard case .click(let button, let count) = kind else { return }
            w.string(button.rawValue)
            if count != 1 { w.key(string: countKey); w.int(count) }
        }),
        KindKey(key: "scroll", matches: { if case .scroll = $0 { true } else { false } }, onPencilButton: false, recognizers: [.pan, .screenEdgePan], read: { value, p, _, _, g, r, _ in
            let kind = RecognizerKind(g)
            guard kind == .pan || kind == .screenEdgePan else {
                throw r.error(p, "scrolls only on a pan or a screenEdgePan (a \(kind.name) has no translation to scroll by)")
            }
            var o = ScrollOptions()
            try scroll.read(value, p, r, into: &o)
            return .scroll(o)
        }, write: { kind, w in
            guard case .scroll(let o) = kind else { return }
            scroll.write(o, &w)
        }),
        KindKey(key: "zoom", matches: { if case .zoom = $0 { true } else { false } }, onPencilButton: false, recognizers: [.pinch], read: { value, p, _, _, g, r, layout in
            let kind = RecognizerKind(g)
            guard kind == .pinch else { throw r.error(p, "zooms only on a pinch (a \(kind.name) has no scale)") }
            var step = defaultZoomStep
            try zoom.read(value, p, r, into: &step)
            let ctrl: KeyChord
            do throws(KeyboardError) { ctrl = try KeyChord.resolve("ctrl", layout: layout) } catch { throw r.error(p, error.description) }
            return .zoom(step: step, ctrl: ctrl.stroke.key)
        }, write: { kind, w in
            guard case .zoom(let step, _) = kind else { return }
            zoom.write(step, &w)
        }),
        KindKey(key: "touchpad", matches: { if case .touchpad = $0 { true } else { false } }, onPencilButton: false,
                recognizers: [.pan, .screenEdgePan, .swipe, .pinch], read: { value, p, _, _, g, r, _ in
            let kind = RecognizerKind(g)
            guard [.pan, .screenEdgePan, .swipe, .pinch].contains(kind) else {
                throw r.error(p, "plays on the touchpad only from a pan, a screenEdgePan, a swipe or a pinch (a \(kind.name) has no fingers moving together)")
            }
            var o = TouchpadOptions()
            try touchpad.read(value, p, r, into: &o)
            return .touchpad(o)
        }, write: { kind, w in
            guard case .touchpad(let o) = kind else { return }
            touchpad.write(o, &w)
        }),
        KindKey(key: "value", matches: { if case .value = $0 { true } else { false } }, onPencilButton: false, recognizers: [.pan, .screenEdgePan], read: { value, p, _, _, g, r, _ in
            let kind = RecognizerKind(g)
            guard kind == .pan || kind == .screenEdgePan else {
                throw r.error(p, "slides only on a pan or a screenEdgePan (a \(kind.name) has no travel to slide by)")
            }
            var o = ValueOptions()
            try slider.read(value, p, r, into: &o)
            guard o.from != o.to else { throw r.error(p, "\"from\" and \"to\" are both \(o.from): a value needs a range") }
            if o.target != nil, !(0...1).contains(o.from) || !(0...1).contains(o.to) {
                throw r.error(p, "a backlight's value is a fraction of its maximum brightness: \"from\" and \"to\" between 0 and 1, found \(o.from) and \(o.to)")
            }
            return .value(o)
        }, write: { kind, w in
            guard case .value(let o) = kind else { return }
            slider.write(o, &w)
        }),
    ]

    /// The keys of a kind's options object, in order (`{"scroll": {…}}`); nil for a kind without one.
    package static func optionKeys(of kind: String) -> [String]? {
        switch kind {
        case "scroll": scroll.names
        case "zoom": zoom.names
        case "touchpad": touchpad.names
        case "value": slider.names
        default: nil
        }
    }

    package static let kindNames = kinds.map(\.name)
    package static let allowedKeys = kindNames + [countKey, onKey]

    /// `{"scroll": {…}}`: how a pan scrolls.
    static let scroll = ConfigSchema<ScrollOptions>(keys: [
        ConfigKey("pointsPerNotch", form: .number(min: 0), read: { o, json, p, r in
            o.pointsPerNotch = try r.number(json, p)
            guard o.pointsPerNotch > 0 else { throw r.error(p, "must be greater than 0, found \(o.pointsPerNotch)") }
        }, write: { o, w in w.key(string: "pointsPerNotch"); w.number(o.pointsPerNotch) }),
        .bool("natural", \.natural),
        ConfigKey("deceleration", form: .choice(ScrollOptions.Deceleration.allCases.map(\.rawValue)), read: { o, json, p, r in
            let name = try r.string(json, p)
            guard let d = ScrollOptions.Deceleration(rawValue: name) else {
                throw r.error(p, "must be \(alternatives(ScrollOptions.Deceleration.allCases.map(\.rawValue))), found \"\(name)\"")
            }
            o.deceleration = d
        }, write: { o, w in w.key(string: "deceleration"); w.string(o.deceleration.rawValue) }),
    ])

    /// `{"zoom": {"step": 1.1}}`: the scale factor a ctrl + wheel notch stands for.
    static let zoom = ConfigSchema<Double>(keys: [
        ConfigKey("step", form: .number(min: 1), read: { step, json, p, r in
            step = try r.number(json, p)
            guard step > 1 else { throw r.error(p, "must be greater than 1 (a scale factor per notch), found \(step)") }
        }, write: { step, w in w.key(string: "step"); w.number(step) }),
    ])

    /// `{"touchpad": {"scale": 0.05, "fingers": 3}}`: how the fingers play on the touchpad.
    static let touchpad = ConfigSchema<TouchpadOptions>(keys: [
        ConfigKey("scale", form: .number(min: 0), read: { o, json, p, r in
            let scale = try r.number(json, p)
            guard scale > 0 else { throw r.error(p, "must be greater than 0 (touchpad millimetres a point of travel), found \(scale)") }
            o.scale = scale
        }, write: { o, w in if let s = o.scale { w.key(string: "scale"); w.number(s) } }),
        ConfigKey("fingers", form: .integer(min: TouchpadOptions.fingerRange.lowerBound, max: TouchpadOptions.fingerRange.upperBound), read: { o, json, p, r in
            let n = try r.integer(json, p, min: TouchpadOptions.fingerRange.lowerBound)
            guard TouchpadOptions.fingerRange.contains(n) else {
                throw r.error(p, "must be 2, 3 or 4 (libinput's touchpad gestures have two to four fingers), found \(n)")
            }
            o.fingers = n
        }, write: { o, w in if let n = o.fingers { w.key(string: "fingers"); w.int(n) } }),
    ])

    /// `{"value": {"from": 0, "to": 1, "along": "y", "target": "backlight"}}`: a slider.
    static let slider = ConfigSchema<ValueOptions>(keys: [
        ConfigKey("from", form: .number(), read: { o, json, p, r in o.from = try r.number(json, p) },
                  write: { o, w in w.key(string: "from"); w.number(o.from) }),
        ConfigKey("to", form: .number(), read: { o, json, p, r in o.to = try r.number(json, p) },
                  write: { o, w in w.key(string: "to"); w.number(o.to) }),
        ConfigKey("along", form: .choice(ValueOptions.Axis.allCases.map(\.rawValue)), read: { o, json, p, r in
            let name = try r.string(json, p)
            guard let a = ValueOptions.Axis(rawValue: name) else {
                throw r.error(p, "must be \"y\" (the value grows upwards) or \"x\" (rightwards), found \"\(name)\"")
            }
            o.along = a
        }, write: { o, w in w.key(string: "along"); w.string(o.along.rawValue) }),
        ConfigKey("target", form: .string, read: { o, json, p, r in
            let text = try r.string(json, p)
            if text == "backlight" { o.target = .backlight(nil); return }
            guard text.hasPrefix("backlight:"), case let name = String(text.dropFirst("backlight:".count)),
                  !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
                throw r.error(p, "must be \"backlight\" (the panel's) or \"backlight:NAME\" (a directory of /sys/class/backlight), found \"\(text)\"")
            }
            o.target = .backlight(name)
        }, write: { o, w in
            guard case .backlight(let name) = o.target else { return }
            w.key(string: "target"); w.string(name.map { "backlight:" + $0 } ?? "backlight")
        }),
    ])

    /// A recognizer's `touchpad` action plays 2…4 fingers: `fingers`, or as many as its touches, which
    /// its properties fix (checked once they are read). A pan whose count may vary plays the touches
    /// down; its range must lie within 2…4.
    package static func checkTouchpad(_ o: TouchpadOptions, _ g: GestureRecognizer) -> String? {
        if o.fingers != nil { return nil }
        let range = TouchpadOptions.fingerRange
        let (low, high): (Int, Int)
        switch g {
        case let pan as PanGestureRecognizer:           // a screenEdgePan too: one touch
            (low, high) = (pan.minimumNumberOfTouches, pan.maximumNumberOfTouches)
        case let s as SwipeGestureRecognizer: (low, high) = (s.numberOfTouchesRequired, s.numberOfTouchesRequired)
        default: (low, high) = (2, 2)           // a pinch: two fingers
        }
        guard range.contains(low), range.contains(high) else {
            let has = low == high ? "\(low)" : (high == Int.max ? "\(low) or more" : "\(low) to \(high)")
            return "a touchpad gesture has 2 to 4 fingers and this \(RecognizerKind(g).name) has \(has) touch\(low == 1 && high == 1 ? "" : "es"): give \"fingers\" (a one-finger edge swipe as GNOME's three: \"fingers\": 3)" + (high > 4 && low >= 2 ? " or \"maximumNumberOfTouches\"" : "")
        }
        return nil
    }

    /// A pinch's default zoom step: the first ctrl+wheel step of Firefox (zoom levels 1, 1.1, 1.2,
    /// 1.33, 1.5, 1.7, 2: about 1.1 apart) and of Chromium (1, 1.1, 1.25, 1.5), so that a pinch to
    /// 1.5× zooms a page to about 1.5×.
    package static let defaultZoomStep = 1.1

    /// `"a", "b" or "c"`.
    static func alternatives(_ words: [String]) -> String {
        let q = words.map { "\"\($0)\"" }
        return q.count < 2 ? q.joined() : q.dropLast().joined(separator: ", ") + " or " + q.last!
    }

    static func kind(of k: Action.Kind) -> KindKey { kinds.first { $0.matches(k) }! }
    static func kind(named key: String) -> KindKey? { kinds.first { $0.name == key } }

    /// Reads `"action"` of a recognizer `g` at `path`; `layout` gives the scene's keyboard layout.
    package static func read(_ json: JSON, _ path: String, for g: GestureRecognizer, _ r: ConfigReader,
                             allowed: [String] = allowedKeys,
                             layout: () throws(KeyboardError) -> KeyboardLayout) throws -> Action {
        let members = try r.object(json, path, allowed: allowed)
        let present = members.compactMap { m in kind(named: m.0).map { (m.1, $0) } }
        guard present.count == 1 else {
            throw r.error(path, present.isEmpty ? "needs one of \(kindNames.map { "\"\($0)\"" }.joined(separator: ", "))"
                                                : "has \(present.map { "\"\($0.1.name)\"" }.joined(separator: " and ")): one action per recognizer")
        }
        let (value, entry) = present[0]
        let read = try entry.read(value, r.join(path, entry.name), json, path, g, r, layout)
        var action = Action(kind: read, on: g.isDiscrete ? .recognized : .began)
        if case .click = read {} else if json[countKey] != nil { throw r.error(r.join(path, countKey), "belongs to a click") }
        if let o = json[onKey] {
            let op = r.join(path, onKey)
            let name = try r.string(o, op)
            // A stroke's action may name its shape: it acts when that one is recognized (checked
            // against the templates once they are read, Scene.Builder).
            if g is StrokeGestureRecognizer, Action.Moment(rawValue: name) == nil {
                guard StrokeTemplatesFile.isName(name) else { throw r.error(op, "must be \"recognized\" or a shape's name: " + StrokeTemplatesFile.nameRule(name)) }
                action.shape = name
                return action
            }
            guard let moment = Action.Moment(rawValue: name) else {
                throw r.error(op, "must be \(alternatives(Action.Moment.allCases.map(\.rawValue))), found \"\(name)\"")
            }
            let recognizer = RecognizerKind(g).name
            switch read {
            case .scroll, .zoom, .touchpad, .value: throw r.error(op, "a \(entry.name) follows the whole gesture: it has no \"\(onKey)\"")
            case .keys, .click:
                if g.isDiscrete && moment != .recognized {
                    throw r.error(op, "a \(recognizer) is discrete: it acts when \"\(Action.Moment.recognized.rawValue)\"")
                }
                if !g.isDiscrete && moment == .recognized {
                    throw r.error(op, "a \(recognizer) is continuous: it acts at \"\(Action.Moment.began.rawValue)\" or \"\(Action.Moment.ended.rawValue)\"")
                }
            }
            action.on = moment
        }
        return action
    }

    /// Reads a pencil barrel button's action (the scene's `"pencilButtons"`): a click where the pen is,
    /// or keys, when the button is pressed. Nothing that follows a gesture (scroll, zoom, "on").
    package static func readPencilButton(_ json: JSON, _ path: String, _ r: ConfigReader,
                                         layout: () throws(KeyboardError) -> KeyboardLayout) throws -> Action {
        // A press is discrete: read as a tap's action would be, which acts when "recognized".
        try read(json, path, for: TapGestureRecognizer(), r, allowed: kinds.filter(\.onPencilButton).map(\.name) + [countKey], layout: layout)
    }

    /// Writes `action` back as a scene file has it (the scene line); `discrete`: its recognizer's.
    package static func write(_ action: Action, discrete: Bool, _ w: inout JSONWriter) {
        let entry = kind(of: action.kind)
        w.beginObject()
        w.key(string: entry.name)
        entry.write(action.kind, &w)
        switch action.kind {
        case .keys, .click:
            if let shape = action.shape { w.key(string: onKey); w.string(shape) }
            else if !discrete, action.on == .ended { w.key(string: onKey); w.string(action.on.rawValue) }
        case .scroll, .zoom, .touchpad, .value: break
        }
        w.endObject()
    }

    /// A recognizer's actions as a scene file has them: one object, or a list (a stroke's, a shape each).
    package static func write(_ actions: [Action], discrete: Bool, _ w: inout JSONWriter) {
        guard actions.count != 1 else { return write(actions[0], discrete: discrete, &w) }
        w.beginArray()
        for a in actions { write(a, discrete: discrete, &w) }
        w.endArray()
    }
}
