/// Edges of a rectangle (UIRectEdge), with UIKit's raw values.
public struct RectEdge: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let top = RectEdge(rawValue: 1 << 0)
    public static let left = RectEdge(rawValue: 1 << 1)
    public static let bottom = RectEdge(rawValue: 1 << 2)
    public static let right = RectEdge(rawValue: 1 << 3)
    public static let all: RectEdge = [.top, .left, .bottom, .right]

    /// The names of the edges in the set, in the order top, left, bottom, right.
    public var names: [String] {
        var result: [String] = []
        if contains(.top) { result.append("top") }
        if contains(.left) { result.append("left") }
        if contains(.bottom) { result.append("bottom") }
        if contains(.right) { result.append("right") }
        return result
    }

    public var description: String { names.isEmpty ? "none" : names.joined(separator: "|") }
}
