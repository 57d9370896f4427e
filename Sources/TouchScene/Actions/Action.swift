import TouchCore
import TouchProtocol
import TouchSystem

/// What a recognizer does on the desktop when it fires: a scene's `"action"` (README "Actions",
/// docs/scenes.md). Keys go to the `TouchBridge keyboard` device, clicks, wheel and zoom to the
/// `TouchBridge pointer` (ActionDevices).
public struct Action: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Chords typed one after another, each pressed and released whole.
        case keys([KeyChord])
        /// `count` clicks of `button` where the gesture is.
        case click(PointerButton, count: Int)
        /// A pan's translation as wheel motion, coasting after the lift.
        case scroll(ScrollOptions)
        /// A pinch's scale as ctrl + wheel notches, one per `step` crossed; `ctrl` is the key that
        /// is Control in the scene's layout.
        case zoom(step: Double, ctrl: UInt16)
    }

    /// When a keys or click action acts: a discrete recognizer when `recognized`; a continuous one at
    /// `began` (default) or `ended`. Scroll and zoom follow the whole gesture.
    public enum Moment: String, Sendable, CaseIterable {
        case began, ended, recognized
    }

    public var kind: Kind
    public var on: Moment

    /// The action's name on the socket (`"action"` of an action line).
    public var name: StaticString {
        switch kind {
        case .keys: "keys"
        case .click: "click"
        case .scroll: "scroll"
        case .zoom: "zoom"
        }
    }
}

public enum PointerButton: String, Sendable, CaseIterable {
    case left, right, middle
    /// BTN_LEFT, BTN_RIGHT, BTN_MIDDLE.
    public var code: UInt16 {
        switch self {
        case .left: 0x110
        case .right: 0x111
        case .middle: 0x112
        }
    }
}

/// How a pan scrolls (`{"scroll": {…}}`).
public struct ScrollOptions: Equatable, Sendable {
    /// How far the finger moves for one wheel notch (120 hi-res units), in window points. 50: browsers
    /// and toolkits scroll about three lines of text for a notch by default, some 45–60 px at common
    /// font sizes; at 50 pt a notch the content stays near the finger. A scene tunes it per app.
    public var pointsPerNotch = 50.0
    /// The content follows the finger (a finger moving down scrolls up), as on a phone.
    public var natural = true
    public var deceleration = Deceleration.normal

    /// UIScrollView's `decelerationRate`: what is left of the velocity after each millisecond.
    public enum Deceleration: String, Sendable, CaseIterable {
        case normal, fast, none
        /// UIScrollView.DecelerationRate.normal (0.998) and .fast (0.99); nil: no coasting.
        public var rate: Double? {
            switch self {
            case .normal: 0.998
            case .fast: 0.99
            case .none: nil
            }
        }
    }

    public init() {}
}

/// One chord of a keys action as written (`ctrl+z`) and the keys that type it in the scene's layout.
public struct KeyChord: Equatable, Sendable {
    public var text: String
    public var stroke: KeyStroke

    /// Modifier words (case does not matter) and the keysym each one is in a layout.
    package static let modifierWords: [(word: String, keysym: String)] = [
        ("ctrl", "Control_L"), ("control", "Control_L"), ("alt", "Alt_L"), ("shift", "Shift_L"),
        ("super", "Super_L"), ("altgr", "ISO_Level3_Shift"),
    ]

    /// Resolves `ctrl+shift+t`, `super+Left`, `at`, `KEY_LEFTMETA` in `layout` (compiled only when a
    /// keysym needs it). Modifiers written come first, in the order written; those the layout needs
    /// for the key's level follow (`at` on a German layout: altgr).
    package static func resolve(_ text: String, layout: () throws(KeyboardError) -> KeyboardLayout) throws(KeyboardError) -> KeyChord {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard let keyName = parts.last, !keyName.isEmpty, !parts.dropLast().contains("") else {
            throw KeyboardError(description: "\"\(text)\" is not a chord: modifiers and one key joined by \"+\" (\"ctrl+z\"); the + key is \"plus\"")
        }
        var modifiers: [UInt16] = []
        func add(_ codes: [UInt16]) { for c in codes where !modifiers.contains(c) { modifiers.append(c) } }
        for word in parts.dropLast() {
            guard let m = modifierWords.first(where: { $0.word == word.lowercased() }) else {
                let words = modifierWords.map(\.word)
                let hint = DidYouMean.hint(word, in: words)
                throw KeyboardError(description: "unknown modifier \"\(word)\" in \"\(text)\"\(hint); modifiers: ctrl, alt, shift, super, altgr")
            }
            let l = try layout()
            guard let s = l.stroke(for: KeyboardLayout.keysym(named: m.keysym)!) else {
                throw KeyboardError(description: "the keyboard layout \(l.names) has no \(m.word) key (\(m.keysym))")
            }
            add(s.modifiers + [s.key])
        }
        // The key: a kernel name as it is, a modifier word as its key, else a keysym of the layout.
        if let code = KeyboardLayout.kernelCode(named: keyName) {
            return KeyChord(text: text, stroke: KeyStroke(modifiers: modifiers, key: code))
        }
        let name = modifierWords.first { $0.word == keyName.lowercased() }?.keysym ?? keyName
        guard let keysym = KeyboardLayout.keysym(named: name) else {
            let hint = KeyboardLayout.closestName(to: keyName).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw KeyboardError(description: "unknown key \"\(keyName)\"\(hint): keys are xkb keysym names (Left, Page_Up, a, at, F11, XF86AudioRaiseVolume) or kernel names (KEY_LEFTMETA)")
        }
        let l = try layout()
        guard let s = l.stroke(for: keysym) else {
            // A desktop with a second layout for Latin letters ("ru" and "us") has both in its keymap.
            let both = l.names.layout.split(separator: ",").contains("us") ? "" : " (a desktop with two layouts names both: \"\(l.names.layout),us\")"
            throw KeyboardError(description: "the keyboard layout \(l.names) cannot type \"\(keyName)\": no key of it has that keysym; name the layout that has it in the scene's \"keyboard\"\(both)")
        }
        add(s.modifiers)
        modifiers.removeAll { $0 == s.key }
        return KeyChord(text: text, stroke: KeyStroke(modifiers: modifiers, key: s.key))
    }

    /// Kernel names of the codes pressed, in order ("KEY_LEFTCTRL", "KEY_Y").
    public var codeNames: [String] { (stroke.modifiers + [stroke.key]).map(KeyboardLayout.kernelName) }
}

// MARK: Scene syntax

extension Action {
    package static let kindKeys = ["keys", "click", "scroll", "zoom"]
    package static let allowedKeys = kindKeys + ["count", "on"]
    package static let scrollKeys = ["pointsPerNotch", "natural", "deceleration"]
    package static let zoomKeys = ["step"]
    /// A pinch's default zoom step: the first ctrl+wheel step of Firefox (zoom levels 1, 1.1, 1.2,
    /// 1.33, 1.5, 1.7, 2: about 1.1 apart) and of Chromium (1, 1.1, 1.25, 1.5), so that a pinch to
    /// 1.5× zooms a page to about 1.5×.
    package static let defaultZoomStep = 1.1

    /// Reads `"action"` of a recognizer `g` at `path`; `layout` gives the scene's keyboard layout.
    package static func read(_ json: JSON, _ path: String, for g: GestureRecognizer, _ r: ConfigReader,
                     layout: () throws(KeyboardError) -> KeyboardLayout) throws -> Action {
        let members = try r.object(json, path, allowed: allowedKeys)
        let kinds = members.filter { kindKeys.contains($0.0) }
        guard kinds.count == 1 else {
            throw r.error(path, kinds.isEmpty ? "needs one of \"keys\", \"click\", \"scroll\", \"zoom\""
                                              : "has \(kinds.map { "\"\($0.0)\"" }.joined(separator: " and ")): one action per recognizer")
        }
        let (key, value) = kinds[0]
        let p = r.join(path, key)
        let kind = RecognizerKind(g)
        var action: Action
        switch key {
        case "keys":
            let texts: [(String, String)]
            if let s = value.stringValue { texts = [(s, p)] } else {
                guard value.arrayValue != nil else { throw r.error(p, "must be a chord (\"ctrl+z\") or a list of chords, found \(value.kindName)") }
                texts = try r.strings(value, p).enumerated().map { ($0.element, "\(p)[\($0.offset)]") }
                guard !texts.isEmpty else { throw r.error(p, "needs at least one chord") }
            }
            var chords: [KeyChord] = []
            for (text, tp) in texts {
                do { chords.append(try KeyChord.resolve(text, layout: layout)) } catch { throw r.error(tp, error.description) }
            }
            action = Action(kind: .keys(chords), on: g.isDiscrete ? .recognized : .began)
        case "click":
            let name = try r.string(value, p)
            guard let button = PointerButton(rawValue: name) else {
                let names = PointerButton.allCases.map(\.rawValue)
                let hint = DidYouMean.hint(name, in: names)
                throw r.error(p, "unknown button \"\(name)\"\(hint); one of left, right, middle")
            }
            var count = 1
            if let c = json["count"] {
                count = try r.integer(c, r.join(path, "count"), min: 1)
                guard count <= 3 else { throw r.error(r.join(path, "count"), "must be 1, 2 or 3 (a triple click at most), found \(count)") }
            }
            action = Action(kind: .click(button, count: count), on: g.isDiscrete ? .recognized : .began)
        case "scroll":
            guard kind == .pan || kind == .screenEdgePan else {
                throw r.error(p, "scrolls only on a pan or a screenEdgePan (a \(kind.name) has no translation to scroll by)")
            }
            var o = ScrollOptions()
            for (k, v) in try r.object(value, p, allowed: scrollKeys) {
                let kp = r.join(p, k)
                switch k {
                case "pointsPerNotch":
                    o.pointsPerNotch = try r.number(v, kp)
                    guard o.pointsPerNotch > 0 else { throw r.error(kp, "must be greater than 0, found \(o.pointsPerNotch)") }
                case "natural": o.natural = try r.bool(v, kp)
                default:
                    let name = try r.string(v, kp)
                    guard let d = ScrollOptions.Deceleration(rawValue: name) else {
                        throw r.error(kp, "must be \"normal\", \"fast\" or \"none\", found \"\(name)\"")
                    }
                    o.deceleration = d
                }
            }
            action = Action(kind: .scroll(o), on: .began)
        default:
            guard kind == .pinch else { throw r.error(p, "zooms only on a pinch (a \(kind.name) has no scale)") }
            var step = defaultZoomStep
            for (k, v) in try r.object(value, p, allowed: zoomKeys) {
                step = try r.number(v, r.join(p, k))
                guard step > 1 else { throw r.error(r.join(p, k), "must be greater than 1 (a scale factor per notch), found \(step)") }
            }
            let ctrl: KeyChord
            do { ctrl = try KeyChord.resolve("ctrl", layout: layout) } catch { throw r.error(p, error.description) }
            action = Action(kind: .zoom(step: step, ctrl: ctrl.stroke.key), on: .began)
        }
        if key != "click", json["count"] != nil { throw r.error(r.join(path, "count"), "belongs to a click") }
        if let o = json["on"] {
            let op = r.join(path, "on")
            let name = try r.string(o, op)
            guard let moment = Moment(rawValue: name) else {
                throw r.error(op, "must be \"began\", \"ended\" or \"recognized\", found \"\(name)\"")
            }
            switch action.kind {
            case .scroll, .zoom: throw r.error(op, "a \(key) follows the whole gesture: it has no \"on\"")
            case .keys, .click:
                if g.isDiscrete && moment != .recognized {
                    throw r.error(op, "a \(kind.name) is discrete: it acts when \"recognized\"")
                }
                if !g.isDiscrete && moment == .recognized {
                    throw r.error(op, "a \(kind.name) is continuous: it acts at \"began\" or \"ended\"")
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
        _ = try r.object(json, path, allowed: ["click", "count", "keys"])
        // A press is discrete: read as a tap's action would be, which acts when "recognized".
        return try read(json, path, for: TapGestureRecognizer(), r, layout: layout)
    }

    /// Writes the action back as a scene file has it (the scene line).
    package func write(into w: inout JSONWriter, discrete: Bool) {
        w.beginObject()
        switch kind {
        case .keys(let chords):
            w.key(string: "keys")
            if chords.count == 1 { w.string(chords[0].text) } else {
                w.beginArray()
                for c in chords { w.string(c.text) }
                w.endArray()
            }
        case .click(let button, let count):
            w.key(string: "click"); w.string(button.rawValue)
            if count != 1 { w.key(string: "count"); w.int(count) }
        case .scroll(let o):
            w.key(string: "scroll")
            w.beginObject()
            w.key(string: "pointsPerNotch"); w.number(o.pointsPerNotch)
            w.key(string: "natural"); w.bool(o.natural)
            w.key(string: "deceleration"); w.string(o.deceleration.rawValue)
            w.endObject()
        case .zoom(let step, _):
            w.key(string: "zoom")
            w.beginObject()
            w.key(string: "step"); w.number(step)
            w.endObject()
        }
        if case .keys = kind, !discrete, on == .ended { w.key(string: "on"); w.string("ended") }
        if case .click = kind, !discrete, on == .ended { w.key(string: "on"); w.string("ended") }
        w.endObject()
    }
}
