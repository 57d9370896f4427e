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
        /// The gesture's fingers played on the `TouchBridge touchpad`, for the compositor's own
        /// touchpad gestures (docs/actions.md, "Touchpad"; AC9–AC11).
        case touchpad(TouchpadOptions)
        /// The finger's travel across the view as a value, told on the socket and, with a target,
        /// set there (a backlight's brightness; AC12).
        case value(ValueOptions)
    }

    /// When a keys or click action acts: a discrete recognizer when `recognized`; a continuous one at
    /// `began` (default) or `ended`. Scroll and zoom follow the whole gesture.
    public enum Moment: String, Sendable, CaseIterable {
        case began, ended, recognized
    }

    public var kind: Kind
    public var on: Moment
    /// A stroke's action for one shape only (`"on": "circle"`, docs/strokes.md); nil: any shape.
    public var shape: String? = nil

    /// Whether it writes to the action devices (a value only tells, and sets a backlight).
    public var needsDevices: Bool {
        if case .value = kind { return false }
        return true
    }

    /// The action's name on the socket (`"action"` of an action line): its key in a scene file.
    public var name: StaticString { ActionSchema.kind(of: kind).key }
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

/// How a gesture plays on the virtual touchpad (`{"touchpad": {…}}`).
public struct TouchpadOptions: Equatable, Sendable {
    /// Millimetres of touchpad travel for a point of travel on the panel, both axes; nil: per axis, so
    /// that a swipe across the device's region travels the distance GNOME Shell takes for a whole
    /// workspace or the overview (`defaultTravel`).
    public var scale: Double?
    /// How many fingers to play, whatever touched (a two-finger swipe as GNOME's three); nil: as many
    /// as touched.
    public var fingers: Int?

    /// The touchpad travel (mm) a swipe across the whole region stands for when no scale is given,
    /// horizontally and vertically: one workspace, or the overview, in GNOME Shell. Its swipe tracker
    /// (js/ui/swipeTracker.js) takes 400 horizontal and 300 vertical units of libinput's unaccelerated
    /// gesture delta, times its SWIPE_MULTIPLIER of 0.5, for one: 800 and 600 units. libinput reports
    /// a touchpad's finger travel as 1000/25.4 units a millimetre times its touchpad slowdown (0.2968)
    /// and its plateau factor (0.9): 10.52 units a mm — the lab measures 4.21 units for each 0.4 mm
    /// frame of a swipe (libinput 1.22). So 76.1 and 57.0 mm, about a laptop touchpad's width, as GNOME
    /// meant ("ideally this value matches physical touchpad size").
    public static let defaultTravel = (x: 800 / libinputUnitsPerMillimetre, y: 600 / libinputUnitsPerMillimetre)
    /// libinput's unaccelerated gesture delta for a millimetre of a touchpad's finger travel.
    public static let libinputUnitsPerMillimetre = 1000 / 25.4 * 0.2968 * 0.9
    /// Fingers a touchpad gesture may have: libinput's swipes and pinches have two to four (two moving
    /// together are its scrolling).
    public static let fingerRange = 2...4

    public init(scale: Double? = nil, fingers: Int? = nil) {
        self.scale = scale
        self.fingers = fingers
    }
}

/// A slider (`{"value": {…}}`): the finger's travel across the view, 1:1 over its length, moves a
/// value between `from` and `to`.
public struct ValueOptions: Equatable, Sendable {
    public enum Axis: String, Sendable, CaseIterable {
        /// The value grows as the finger moves up (a brightness or volume slider).
        case y
        /// It grows as the finger moves right.
        case x
    }
    /// Where the value goes besides the socket.
    public enum Target: Equatable, Sendable {
        /// A backlight's brightness, a fraction of its maximum: `name` in /sys/class/backlight, or
        /// nil for the panel's (firmware before platform before raw, as systemd-backlight ranks them).
        case backlight(String?)
    }
    public var from = 0.0
    public var to = 1.0
    public var along = Axis.y
    public var target: Target?

    public init() {}

    /// `v` clamped between `from` and `to` (either may be the larger).
    public func clamped(_ v: Double) -> Double { min(max(v, min(from, to)), max(from, to)) }

    /// The value after the finger travelled `translation` (window points, y down) over a view
    /// `length` points long on the axis, from `start`: 1:1, the whole view the whole range.
    public func value(from start: Double, translation: Point, length: Double) -> Double {
        guard length > 0 else { return clamped(start) }
        let travel = along == .y ? -translation.y : translation.x
        return clamped(start + travel / length * (to - from))
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
