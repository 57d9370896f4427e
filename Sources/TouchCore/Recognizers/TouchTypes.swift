/// A set of touch types (UIGestureRecognizer.allowedTouchTypes, P5): which kinds of touch a recognizer
/// takes. UIKit keeps an array of `UITouch.TouchType` raw values; a set says the same.
public struct TouchTypes: NamedOptions, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let direct = TouchTypes(rawValue: 1 << Touch.TouchType.direct.rawValue)
    public static let indirect = TouchTypes(rawValue: 1 << Touch.TouchType.indirect.rawValue)
    public static let pencil = TouchTypes(rawValue: 1 << Touch.TouchType.pencil.rawValue)
    public static let indirectPointer = TouchTypes(rawValue: 1 << Touch.TouchType.indirectPointer.rawValue)
    /// UIKit's default: every type.
    public static let all: TouchTypes = [.direct, .indirect, .pencil, .indirectPointer]

    public static let named: [(name: String, value: TouchTypes)] = [
        ("direct", .direct), ("indirect", .indirect), ("pencil", .pencil), ("indirectPointer", .indirectPointer),
    ]

    /// Whether a touch of `type` is one of these.
    public func allows(_ type: Touch.TouchType) -> Bool { contains(TouchTypes(rawValue: 1 << type.rawValue)) }

    public var description: String { names.isEmpty ? "none" : names.joined(separator: "|") }
}
