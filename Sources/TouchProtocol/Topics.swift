import TouchSystem

/// The daemon's topics: what a client subscribes to (docs/protocol.md).
/// What a client can subscribe to.
public struct Topics: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let gestures = Topics(rawValue: 1)
    public static let touches = Topics(rawValue: 2)
    public static let devices = Topics(rawValue: 4)
    /// Every recognizer's every state change (protocol 2).
    public static let recognizers = Topics(rawValue: 8)
    /// The whole current scene, on subscribing and after every change (protocol 2).
    public static let scene = Topics(rawValue: 16)
    /// One line per action written to the action devices (README "Actions").
    public static let actions = Topics(rawValue: 32)
    /// A line when a device's first finger lands and when its last lifts: what a presence sensor needs,
    /// without every touch (`touchbridgectl mqtt`).
    public static let activity = Topics(rawValue: 64)
    /// The focused app, when it is learnt or changes (docs/focus.md).
    public static let focus = Topics(rawValue: 128)

    /// Every topic with its name, in the order the protocol lists them (docs/protocol.md): the one
    /// vocabulary of topic names.
    public static let named: [(name: String, topic: Topics)] = [
        ("gestures", .gestures), ("touches", .touches), ("devices", .devices), ("recognizers", .recognizers),
        ("scene", .scene), ("actions", .actions), ("activity", .activity), ("focus", .focus),
    ]

    public static var names: [String] { named.map(\.name) }

    /// The names of the topics in this set, in the protocol's order.
    public var memberNames: [String] { Topics.named.filter { contains($0.topic) }.map(\.name) }

    /// The topic called `name`, or nil.
    public init?(name: String) {
        guard let t = Topics.named.first(where: { $0.name == name })?.topic else { return nil }
        self = t
    }

    /// The topics of the names that are topics (the others are left out).
    public init(names: [String]) {
        self = names.reduce(into: Topics()) { set, n in if let t = Topics(name: n) { set.insert(t) } }
    }
}
