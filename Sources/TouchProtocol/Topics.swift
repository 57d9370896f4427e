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
}
