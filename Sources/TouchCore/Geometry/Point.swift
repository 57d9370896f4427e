/// A location or a vector in a 2-D coordinate space, in points; y grows downward (CGPoint).
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    /// The point mapped through `t` (CGPointApplyAffineTransform): (a·x + c·y + tx, b·x + d·y + ty).
    public func applying(_ t: AffineTransform) -> Point {
        Point(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }

    /// True when both coordinates are finite (not NaN, not ±∞).
    public var isFinite: Bool { x.isFinite && y.isFinite }

    /// Euclidean length of the point taken as a vector.
    public var length: Double { (x * x + y * y).squareRoot() }

    /// Euclidean distance to `other`, in points.
    public func distance(to other: Point) -> Double { (self - other).length }

    public static func + (l: Point, r: Point) -> Point { Point(x: l.x + r.x, y: l.y + r.y) }
    public static func - (l: Point, r: Point) -> Point { Point(x: l.x - r.x, y: l.y - r.y) }
    public static func * (l: Point, s: Double) -> Point { Point(x: l.x * s, y: l.y * s) }
    public static func / (l: Point, s: Double) -> Point { Point(x: l.x / s, y: l.y / s) }
    public static prefix func - (p: Point) -> Point { Point(x: -p.x, y: -p.y) }
    public static func += (l: inout Point, r: Point) { l = l + r }
    public static func -= (l: inout Point, r: Point) { l = l - r }

    public var description: String { "(\(x), \(y))" }
}
