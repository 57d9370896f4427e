/// Inset distances for the four edges of a rectangle (UIEdgeInsets). Positive values shrink the
/// rectangle, negative values grow it.
public struct EdgeInsets: Hashable, Sendable, CustomStringConvertible {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public static let zero = EdgeInsets(top: 0, left: 0, bottom: 0, right: 0)

    public var description: String { "(top: \(top), left: \(left), bottom: \(bottom), right: \(right))" }
}
