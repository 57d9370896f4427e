import TouchInput
import TouchSystem

/// A line a client sends on the socket, parsed: the whole line is understood before anything is done
/// with it, so a line with an error changes nothing (it gets `{"event":"error",…}` and the connection
/// stays usable). docs/protocol.md lists the commands.
///
/// - `{"subscribe": [TOPIC, …]}`: the set replaces the client's topics.
/// - `{"set": {"recognizers": [NAME or pattern, …], "enabled": BOOL}}`: control (`isControl`).
/// - `{"set": {"device": INDEX or "*", "rotation": …, "flipX": …, "flipY": …, "calibration": […]}}`: control.
/// - `{"set": {"display": "off" or "on"}}`: the display's power as the idle manager says it; control.
/// - `{"set": {"brightness": F}}`: the panel's backlight, a fraction of its maximum (docs/display.md); control.
/// - `{"set": {"focus": {"app": A, "title": T, "source": S, "whileConnected": B} or null}}`: the focused
///   app (docs/focus.md); control.
/// - `{"scene": {"name": N, "views": [VIEW, …]}}`: a client scene; control.
public enum ClientCommand: Equatable, Sendable {
    /// The topics, and their names in the order the client gave them.
    case subscribe(Topics, names: [String])
    /// Enables or disables the recognizers whose names match (shell patterns: `*`, `?`, `[…]`).
    case setRecognizers(patterns: [String], enabled: Bool)
    /// Changes a device's mapping onto the window, from its next touch sequence on.
    case setDevice(DeviceTarget, MappingChange)
    /// The display was turned off or on (the idle manager): while it is off, a touch sequence only
    /// wakes it (docs/screen-aware.md).
    case setDisplay(on: Bool)
    /// The panel's backlight brightness, a fraction (0, 1] of its maximum (docs/display.md): the display
    /// comes on at that brightness.
    case setBrightness(Double)
    /// The focused app as a follower or a script says it (nil: none known); recognizers with `apps` or
    /// `exceptApps` follow it from the next touch sequence on (FO2).
    case setFocus(Focus?)
    /// Puts this connection's scene `name` on top of the window's views (`views` in the scene file's
    /// format, checked when it is built); no views removes it.
    case scene(name: String, views: [JSON])

    /// The topics' names (`Topics.names`), for messages and for the commands that list them.
    public static var topicNames: [String] { Topics.names }

    /// The command's name, for `{"event":"ok","command":…}` and the log.
    public var name: String {
        switch self {
        case .subscribe: "subscribe"
        case .setRecognizers, .setDevice, .setDisplay, .setBrightness, .setFocus: "set"
        case .scene: "scene"
        }
    }

    /// What the log says of the command beyond its name: a client scene's name and size (the name is
    /// the peer's: the log escapes it).
    public var logDetail: String {
        if case .scene(let name, let views) = self { return " (scene \"\(name)\", \(counted(views.count, "view")))" }
        return ""
    }

    /// The first key of a line that opens an object (`{"set": …` → "set"), read without parsing the
    /// rest; nil when the line does not start so (a key with escapes, not an object, not JSON).
    public static func leadingKey(_ line: [UInt8]) -> String? {
        var i = 0
        func skipSpace() { while i < line.count, line[i] == 0x20 || line[i] == 0x09 || line[i] == 0x0d { i += 1 } }
        skipSpace()
        guard i < line.count, line[i] == 0x7b else { return nil }              // {
        i += 1
        skipSpace()
        guard i < line.count, line[i] == 0x22 else { return nil }              // "
        let keyStart = i + 1
        var j = keyStart
        while j < line.count, j - keyStart <= 16, line[j] != 0x22 {
            if line[j] == 0x5c { return nil }                                  // an escape: parse it properly
            j += 1
        }
        guard j < line.count, line[j] == 0x22 else { return nil }
        return String(decoding: line[keyStart..<j], as: UTF8.self)
    }

    /// Whether the command changes what the daemon does for everyone: only some peers may send it
    /// (`touchbridged --control-group`).
    public var isControl: Bool {
        if case .subscribe = self { return false }
        return true
    }

    /// Which devices a `set` applies to.
    public enum DeviceTarget: Equatable, Sendable {
        /// The device with this index (the `device` of touch and gesture lines).
        case index(Int)
        /// The devices whose name (or node) matches this shell pattern, those that come later included.
        case name(String)
        /// Every device, those that come later included.
        case all

        /// A command line's `--device`: an index, `*` for every device, else a name or shell pattern.
        public init(option text: String) {
            self = Int(text).map { .index($0) } ?? (text == "*" ? .all : .name(text))
        }

        /// Whether the target takes the device with this index, name and node.
        public func selects(index: Int, name: String, node: String) -> Bool {
            switch self {
            case .index(let i): i == index
            case .name(let pattern): DeviceSelector.glob(pattern, name) || DeviceSelector.glob(pattern, node)
            case .all: true
            }
        }

        /// Whether every device this target selects is also selected by `other`.
        public func isCovered(by other: DeviceTarget) -> Bool { other == .all || other == self }
    }

    /// What a `set` changes in a device's mapping; nil leaves that part as it is.
    public struct MappingChange: Equatable, Sendable {
        public var rotation: CoordinateMapping.Rotation?
        public var flipX: Bool?
        public var flipY: Bool?
        public var calibration: [Double]?

        public init(rotation: CoordinateMapping.Rotation? = nil, flipX: Bool? = nil, flipY: Bool? = nil,
                    calibration: [Double]? = nil) {
            self.rotation = rotation
            self.flipX = flipX
            self.flipY = flipY
            self.calibration = calibration
        }

        /// This change without the parts `later` sets (they are `later`'s now).
        public func without(_ later: MappingChange) -> MappingChange {
            MappingChange(rotation: later.rotation == nil ? rotation : nil, flipX: later.flipX == nil ? flipX : nil,
                          flipY: later.flipY == nil ? flipY : nil, calibration: later.calibration == nil ? calibration : nil)
        }
    }

    /// Why a line was refused: the message of the error line.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    private static let names = ["subscribe", "set", "scene"]
    private static let commands = "{\"subscribe\": [...]}, {\"set\": {...}} or {\"scene\": {...}}"

    /// The command of one line (without its newline); nil for a blank line, which is ignored.
    public static func parse(_ line: [UInt8]) throws(Refusal) -> ClientCommand? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) { return nil }
        // A line whose first key is no command is refused unparsed: no work for what is refused anyway.
        if let key = leadingKey(line), !names.contains(key) {
            throw Refusal(message: "unknown command \"\(key)\"; the commands are \(commands)")
        }
        var parser = JSONParser(bytes: line, recordsLines: false)
        let json: JSON
        do { json = try parser.parse() } catch {
            throw Refusal(message: "not JSON (\(error)); send {\"subscribe\": [\"gestures\", \"touches\", \"devices\"]}")
        }
        guard let members = json.objectValue, !members.isEmpty else {
            throw Refusal(message: "expected a command such as {\"subscribe\": [\"gestures\"]}, got \(json.objectValue == nil ? json.kindName : "an empty object")")
        }
        guard members.count == 1, let (key, value) = members.first else {
            // The first few keys are named: a line of thousands gets a short answer.
            let named = members.prefix(5).map { "\"\($0.0)\"" }.joined(separator: ", ") + (members.count > 5 ? ", …" : "")
            throw Refusal(message: "one command a line, found \(members.count): \(named)")
        }
        switch key {
        case "subscribe": return try subscribe(value)
        case "set": return try set(value)
        case "scene": return try scene(value)
        default: throw Refusal(message: "unknown command \"\(key)\"; the commands are \(commands)")
        }
    }

    private static func subscribe(_ value: JSON) throws(Refusal) -> ClientCommand {
        let expected = "\"subscribe\" takes an array of topics: \(topicNames.map { "\"\($0)\"" }.joined(separator: ", "))"
        guard let list = value.arrayValue else { throw Refusal(message: expected) }
        var topics: Topics = []
        var names: [String] = []
        for item in list {
            guard let n = item.stringValue else { throw Refusal(message: expected) }
            guard let topic = Topics(name: n) else {
                throw Refusal(message: "unknown topic \"\(n)\"; topics are \(topicNames.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            topics.insert(topic)
            names.append(n)
        }
        return .subscribe(topics, names: names)
    }

    private static func set(_ value: JSON) throws(Refusal) -> ClientCommand {
        guard let members = value.objectValue else {
            throw Refusal(message: "set: must be an object: {\"recognizers\": [...], \"enabled\": false} or {\"device\": 0, \"rotation\": 90}")
        }
        let keys = members.map(\.0)
        if keys.contains("focus") {
            for k in keys where k != "focus" {
                throw Refusal(message: "set.\(k): not with \"focus\"; set the focus alone: {\"set\": {\"focus\": {\"app\": \"firefox\"}}}")
            }
            return .setFocus(try focus(value["focus"]!))
        }
        if keys.contains("display") {
            for k in keys where k != "display" {
                throw Refusal(message: "set.\(k): not with \"display\"; set the display alone: {\"set\": {\"display\": \"off\"}}")
            }
            switch value["display"]?.stringValue {
            case "off": return .setDisplay(on: false)
            case "on": return .setDisplay(on: true)
            default: throw Refusal(message: "set.display: must be \"off\" or \"on\"")
            }
        }
        if keys.contains("brightness") {
            for k in keys where k != "brightness" {
                throw Refusal(message: "set.\(k): not with \"brightness\"; set the brightness alone: {\"set\": {\"brightness\": 0.5}}")
            }
            guard let f = value["brightness"]?.numberValue, f > 0, f <= 1 else {
                throw Refusal(message: "set.brightness: must be a number above 0 and at most 1 (a fraction of the backlight's maximum); to turn the panel off, {\"set\": {\"display\": \"off\"}}")
            }
            return .setBrightness(f)
        }
        if keys.contains("recognizers") || keys.contains("enabled") {
            for k in keys where k != "recognizers" && k != "enabled" {
                throw Refusal(message: "set.\(k): not with \"recognizers\"; set recognizers and a device in separate commands")
            }
            guard let list = value["recognizers"] else { throw Refusal(message: "set: missing \"recognizers\": [NAME or pattern, ...]") }
            guard let items = list.arrayValue, !items.isEmpty else {
                throw Refusal(message: "set.recognizers: must be a non-empty array of recognizer names or patterns")
            }
            var patterns: [String] = []
            for (i, item) in items.enumerated() {
                guard let s = item.stringValue, !s.isEmpty else {
                    throw Refusal(message: "set.recognizers[\(i)]: must be a recognizer name or a pattern such as \"edge*\"")
                }
                patterns.append(s)
            }
            guard let enabled = value["enabled"] else { throw Refusal(message: "set: missing \"enabled\": true or false") }
            guard case .bool(let on) = enabled else { throw Refusal(message: "set.enabled: must be true or false, found \(enabled.kindName)") }
            return .setRecognizers(patterns: patterns, enabled: on)
        }
        if keys.contains("device") {
            var change = MappingChange()
            var target = DeviceTarget.all
            for (k, v) in members {
                switch k {
                case "device":
                    if v.stringValue == "*" {
                        target = .all
                    } else if let pattern = v.stringValue, !pattern.isEmpty, pattern.utf8.count <= 256 {
                        target = .name(pattern)
                    } else if let n = v.numberValue, n >= 0, n == n.rounded(), n < 1e9 {
                        target = .index(Int(n))
                    } else {
                        throw Refusal(message: "set.device: must be a device index (the \"device\" of touch lines), a device name or shell pattern (\"N-Trig*\"), or \"*\" for every device")
                    }
                case "rotation":
                    guard let n = v.intValue, let r = CoordinateMapping.Rotation(rawValue: n) else {
                        throw Refusal(message: "set.rotation: must be 0, 90, 180 or 270 (degrees clockwise)")
                    }
                    change.rotation = r
                case "flipX", "flipY":
                    guard case .bool(let b) = v else { throw Refusal(message: "set.\(k): must be true or false") }
                    if k == "flipX" { change.flipX = b } else { change.flipY = b }
                case "calibration":
                    guard let list = v.arrayValue, list.count == 6, list.allSatisfy({ $0.numberValue?.isFinite == true }) else {
                        throw Refusal(message: "set.calibration: must be six numbers, libinput's calibration matrix [a, b, c, d, e, f]")
                    }
                    change.calibration = list.compactMap(\.numberValue)
                default:
                    throw Refusal(message: "set.\(k): unknown; a device takes \"rotation\", \"flipX\", \"flipY\", \"calibration\"")
                }
            }
            guard change != MappingChange() else {
                throw Refusal(message: "set: nothing to change for the device; give \"rotation\", \"flipX\", \"flipY\" or \"calibration\"")
            }
            return .setDevice(target, change)
        }
        throw Refusal(message: "set: give \"recognizers\" and \"enabled\", \"device\" and what to change (\"rotation\", \"flipX\", \"flipY\", \"calibration\"), \"display\", \"brightness\" or \"focus\"")
    }

    /// `{"app": A, "title": T, "source": S, "whileConnected": B}`, or null.
    private static func focus(_ value: JSON) throws(Refusal) -> Focus? {
        if case .null = value { return nil }
        guard let members = value.objectValue else {
            throw Refusal(message: "set.focus: must be {\"app\": \"firefox\", \"title\": …} or null (no focus known)")
        }
        func text(_ k: String, _ v: JSON, max: Int) throws(Refusal) -> String {
            guard let s = v.stringValue, s.utf8.count <= max else { throw Refusal(message: "set.focus.\(k): must be a string of at most \(max) bytes") }
            return s
        }
        var f = Focus(app: "")
        var app: String?
        for (k, v) in members {
            switch k {
            case "app": app = try text(k, v, max: Focus.maximumApp)
            case "title": f.title = try text(k, v, max: Focus.maximumTitle)
            case "source": f.source = try text(k, v, max: Focus.maximumSource)
            case "whileConnected":
                guard case .bool(let b) = v else { throw Refusal(message: "set.focus.whileConnected: must be true or false") }
                f.whileConnected = b
            default: throw Refusal(message: "set.focus.\(k): unknown; the focus has \"app\", \"title\", \"source\" and \"whileConnected\"")
            }
        }
        guard let app, !app.isEmpty else { throw Refusal(message: "set.focus: missing \"app\": the focused window's app id (null for none)") }
        f.app = app
        return f
    }

    /// A client scene's two keys (the `scene` command's, and a `scene push` file's).
    package static let sceneNameKey = "name", sceneViewsKey = "views"

    private static func scene(_ value: JSON) throws(Refusal) -> ClientCommand {
        guard let members = value.objectValue else {
            throw Refusal(message: "scene: must be an object: {\"name\": \"kiosk\", \"views\": [...]}")
        }
        for (k, _) in members where k != sceneNameKey && k != sceneViewsKey {
            throw Refusal(message: "scene.\(k): unknown key; a client scene has \"name\" and \"views\"")
        }
        guard let nameJSON = value[sceneNameKey] else { throw Refusal(message: "scene: missing \"name\"") }
        guard let name = nameJSON.stringValue, !name.isEmpty, !name.contains("/") else {
            throw Refusal(message: "scene.name: must be a non-empty string without \"/\" (it prefixes the scene's names: \"name/view\")")
        }
        guard let viewsJSON = value[sceneViewsKey] else { throw Refusal(message: "scene: missing \"views\" ([] removes the scene)") }
        guard let views = viewsJSON.arrayValue else { throw Refusal(message: "scene.views: must be an array of views") }
        return .scene(name: name, views: views)
    }
}
