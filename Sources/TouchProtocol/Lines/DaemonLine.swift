import TouchSystem

/// A line the daemon sent, as a client reads it: which line it is, read from its first key without
/// parsing (every encoder in Lines/ writes `"event"` first), and what it says, parsed only when asked
/// (`json`, or a line type's typed decoder). A bridge that forwards gesture lines by their recognizer
/// reads a few fields (`field`) and never parses them whole.
public struct DaemonLine {
    /// The `"event"` of a line: one case per line type of the protocol (docs/protocol.md).
    public enum Event: Equatable, Sendable {
        case hello, subscribed, ok, error, gesture, touch, device, scene, recognizer, action, activity, wake, pencil, focus, display
        /// A line this client does not know (a newer daemon's), or one whose event could not be read.
        case other

        public static let byName: [String: Event] = [
            "hello": .hello, "subscribed": .subscribed, "ok": .ok, "error": .error, "gesture": .gesture,
            "touch": .touch, "device": .device, "scene": .scene, "recognizer": .recognizer, "action": .action,
            "activity": .activity, "wake": .wake, "pencil": .pencil, "focus": .focus, "display": .display,
        ]
    }

    /// The line's bytes, without its newline; valid during the call that handed out the line.
    public let bytes: UnsafeBufferPointer<UInt8>
    public let event: Event

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        event = DaemonLine.event(of: bytes)
    }

    /// A copy of the bytes, to keep.
    public var array: [UInt8] { Array(bytes) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The line parsed, or nil when it is not JSON.
    public var json: JSON? {
        var parser = JSONParser(bytes: Array(bytes), recordsLines: false)
        return try? parser.parse()
    }

    /// `{"event":"NAME"` at the start, the way the daemon writes it; otherwise the line is parsed.
    static func event(of bytes: UnsafeBufferPointer<UInt8>) -> Event {
        let prefix = #"{"event":""#.utf8
        if bytes.count > prefix.count, bytes.starts(with: prefix) {
            var i = prefix.count
            let start = i
            while i < bytes.count, i - start <= 12, bytes[i] != 0x22, bytes[i] != 0x5c { i += 1 }
            if i < bytes.count, bytes[i] == 0x22 {
                return Event.byName[String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)] ?? .other
            }
        }
        var parser = JSONParser(bytes: Array(bytes), recordsLines: false)
        guard let name = (try? parser.parse())?["event"]?.stringValue else { return .other }
        return Event.byName[name] ?? .other
    }

    /// The value of `"key":` in the line, read without parsing it: a string without escapes, or a
    /// number's text; nil when absent or escaped (then parse: `json`). For the many lines a bridge
    /// forwards by one or two fields (a gesture's recognizer, a touch frame's time).
    public func field(_ key: String) -> String? {
        let needle = Array("\"\(key)\":".utf8)
        guard needle.count <= bytes.count else { return nil }
        var at = -1
        var i = 0
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0] && bytes[i..<(i + needle.count)].elementsEqual(needle) { at = i; break }
            i += 1
        }
        guard at >= 0 else { return nil }
        i = at + needle.count
        guard i < bytes.count else { return nil }
        if bytes[i] == 0x22 {                                           // a string
            i += 1
            let start = i
            while i < bytes.count && bytes[i] != 0x22 {
                if bytes[i] == 0x5c { return nil }
                i += 1
            }
            return i < bytes.count ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self) : nil
        }
        let start = i
        while i < bytes.count && bytes[i] != 0x2c && bytes[i] != 0x7d { i += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    }
}

// MARK: Typed decoders: what each line type says, from its JSON (nil when the line is not that type's)

extension HelloLine {
    public struct Decoded: Equatable, Sendable {
        public var version: String
        public var protocolVersion: Int
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "hello" else { return nil }
        return Decoded(version: json["version"]?.stringValue ?? "", protocolVersion: json["protocol"]?.intValue ?? 0)
    }
}

extension GestureLine {
    /// The fields every gesture line has (docs/protocol.md); the rest (translation, scale…) by `json`.
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        public var device: Int?
        public var recognizer: String
        public var type: String
        public var state: String
        public var view: String?
        public var x: Double?
        public var y: Double?
        public var touches: Int?
        /// A stroke's: the shape recognized and its score (0–1).
        public var shape: String? = nil
        public var score: Double? = nil
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "gesture", let r = json["recognizer"]?.stringValue, let s = json["state"]?.stringValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, device: json["device"]?.intValue, recognizer: r,
                       type: json["type"]?.stringValue ?? "", state: s, view: json["view"]?.stringValue,
                       x: json["x"]?.numberValue, y: json["y"]?.numberValue, touches: json["touches"]?.intValue,
                       shape: json["shape"]?.stringValue, score: json["score"]?.numberValue)
    }
}

extension DeviceLine {
    public struct Decoded: Equatable, Sendable {
        /// "added", "removed" or "changed".
        public var action: String
        public var device: Int
        public var node: String
        public var name: String
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "device", let d = json["device"]?.intValue, let a = json["action"]?.stringValue else { return nil }
        return Decoded(action: a, device: d, node: json["node"]?.stringValue ?? "", name: json["name"]?.stringValue ?? "")
    }
}

extension ActivityLine {
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        public var device: Int
        public var touching: Bool
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "activity", let d = json["device"]?.intValue, let on = json["touching"]?.boolValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, device: d, touching: on)
    }
}

extension PencilLine {
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        public var device: Int
        public var button: Int
        public var pressed: Bool
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "pencil", let b = json["button"]?.intValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, device: json["device"]?.intValue ?? 0, button: b,
                       pressed: json["state"]?.stringValue == "pressed")
    }
}

extension SubscribedLine {
    public static func decode(_ json: JSON) -> [String]? {
        guard json["event"]?.stringValue == "subscribed" else { return nil }
        return (json["topics"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

extension OkLine {
    public struct Decoded: Equatable, Sendable {
        public var command: String
        public var warning: String?
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "ok" else { return nil }
        return Decoded(command: json["command"]?.stringValue ?? "", warning: json["warning"]?.stringValue)
    }
}

extension ErrorLine {
    /// The refusal's message.
    public static func decode(_ json: JSON) -> String? {
        guard json["event"]?.stringValue == "error" else { return nil }
        return json["message"]?.stringValue ?? ""
    }
}

extension DisplayLine {
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        /// "on", "dimmed" or "off".
        public var state: String
        public var brightness: Double?
        /// "idle", "touch" or "command".
        public var cause: String
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "display", let state = json["state"]?.stringValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, state: state, brightness: json["brightness"]?.numberValue,
                       cause: json["cause"]?.stringValue ?? "")
    }
}

extension WakeLine {
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        public var device: Int
        public var x: Double
        public var y: Double
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "wake", let d = json["device"]?.intValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, device: d, x: json["x"]?.numberValue ?? 0, y: json["y"]?.numberValue ?? 0)
    }
}

extension RecognizerLine {
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        public var recognizer: String
        public var type: String
        public var view: String?
        public var from: String
        public var to: String
        public var cause: String
        public var reason: String?
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "recognizer", let r = json["recognizer"]?.stringValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, recognizer: r, type: json["type"]?.stringValue ?? "",
                       view: json["view"]?.stringValue, from: json["from"]?.stringValue ?? "", to: json["to"]?.stringValue ?? "",
                       cause: json["cause"]?.stringValue ?? "", reason: json["reason"]?.stringValue)
    }
}

extension TouchLines {
    /// One touch line's fields (docs/protocol.md); a pencil's extras by `json`.
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        public var device: Int
        public var id: Int
        public var phase: String
        public var x: Double
        public var y: Double
        public var view: String?
        public var tapCount: Int
        public var type: String
        /// Points; 0 when the device does not say.
        public var majorRadius: Double = 0
        /// 0…1 of the device's range (1 is UIKit's "average touch" only for a pencil's scale).
        public var force: Double = 0
        /// A pencil's altitude over the surface (radians, π/2 upright); nil without tilt.
        public var altitude: Double?
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "touch", let d = json["device"]?.intValue, let id = json["id"]?.intValue,
              let phase = json["phase"]?.stringValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, device: d, id: id, phase: phase, x: json["x"]?.numberValue ?? 0,
                       y: json["y"]?.numberValue ?? 0, view: json["view"]?.stringValue, tapCount: json["tapCount"]?.intValue ?? 0,
                       type: json["type"]?.stringValue ?? "direct", majorRadius: json["majorRadius"]?.numberValue ?? 0,
                       force: json["force"]?.numberValue ?? 0, altitude: json["altitude"]?.numberValue)
    }
}

extension ActionLine {
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        public var device: Int?
        public var recognizer: String
        public var state: String
        public var action: String
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "action", let r = json["recognizer"]?.stringValue, let a = json["action"]?.stringValue else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, device: json["device"]?.intValue, recognizer: r,
                       state: json["state"]?.stringValue ?? "", action: a)
    }
}
