/// Edges of a rectangle (UIRectEdge), with UIKit's raw values.
public struct RectEdge: NamedOptions, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let top = RectEdge(rawValue: 1 << 0)
    public static let left = RectEdge(rawValue: 1 << 1)
    public static let bottom = RectEdge(rawValue: 1 << 2)
    public static let right = RectEdge(rawValue: 1 << 3)
    public static let all: RectEdge = [.top, .left, .bottom, .right]

    /// The edges' names, in the order they are listed: top, left, bottom, right; "all" reads as all four.
    public static let named: [(name: String, value: RectEdge)] = [("top", .top), ("left", .left), ("bottom", .bottom), ("right", .right)]
    public static let aliases: [(name: String, value: RectEdge)] = [("all", .all)]

    public var description: String { names.isEmpty ? "none" : names.joined(separator: "|") }
}
