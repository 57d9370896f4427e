/// An axis-aligned rectangle (CGRect). Like Core Graphics, the edge accessors are standardized:
/// a rectangle with a negative width still reports `minX ≤ maxX` and a non-negative `width`.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The null rectangle (CGRectNull): what `insetBy` returns when the inset eats the whole rectangle.
    public static let null = Rect(x: .infinity, y: .infinity, width: 0, height: 0)

    public var isNull: Bool { origin.x == .infinity || origin.y == .infinity }
    public var isEmpty: Bool { isNull || size.width == 0 || size.height == 0 }

    public var minX: Double { Swift.min(origin.x, origin.x + size.width) }
    public var maxX: Double { Swift.max(origin.x, origin.x + size.width) }
    public var midX: Double { origin.x + size.width / 2 }
    public var minY: Double { Swift.min(origin.y, origin.y + size.height) }
    public var maxY: Double { Swift.max(origin.y, origin.y + size.height) }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { abs(size.width) }
    public var height: Double { abs(size.height) }

    /// The same rectangle with a non-negative size (CGRectStandardize).
    public var standardized: Rect { Rect(x: minX, y: minY, width: width, height: height) }

    /// Half-open containment, as CGRectContainsPoint: the min edges are inside, the max edges are not
    /// (uikit-semantics H5), so two abutting views never both contain a point on their shared edge.
    public func contains(_ p: Point) -> Bool {
        guard !isNull else { return false }
        return p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }

    /// True when `r` lies entirely inside this rectangle.
    public func contains(_ r: Rect) -> Bool {
        guard !isNull, !r.isNull else { return false }
        return r.minX >= minX && r.maxX <= maxX && r.minY >= minY && r.maxY <= maxY
    }

    /// CGRectInsetBy: moves each edge inward by dx (left and right) and dy (top and bottom);
    /// negative values grow the rectangle. Returns `.null` when the result would have a negative size.
    public func insetBy(dx: Double, dy: Double) -> Rect {
        guard !isNull else { return self }
        let r = Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
        return (r.size.width < 0 || r.size.height < 0) ? .null : r
    }

    /// UIEdgeInsetsInsetRect: moves each edge inward by its inset; negative insets grow the rectangle.
    public func inset(by insets: EdgeInsets) -> Rect {
        guard !isNull else { return self }
        let r = Rect(x: minX + insets.left, y: minY + insets.top,
                     width: width - insets.left - insets.right,
                     height: height - insets.top - insets.bottom)
        return (r.size.width < 0 || r.size.height < 0) ? .null : r
    }

    public func offsetBy(dx: Double, dy: Double) -> Rect {
        guard !isNull else { return self }
        return Rect(x: origin.x + dx, y: origin.y + dy, width: size.width, height: size.height)
    }

    /// The axis-aligned bounding box of the four corners mapped through `t` (CGRectApplyAffineTransform).
    public func applying(_ t: AffineTransform) -> Rect {
        guard !isNull else { return self }
        return Rect.boundingBox(of: corners.map { $0.applying(t) })
    }

    /// The smallest rectangle containing both (CGRectUnion); the null rectangle is the identity.
    public func union(_ r: Rect) -> Rect {
        if isNull { return r }
        if r.isNull { return self }
        let x0 = Swift.min(minX, r.minX), y0 = Swift.min(minY, r.minY)
        return Rect(x: x0, y: y0, width: Swift.max(maxX, r.maxX) - x0, height: Swift.max(maxY, r.maxY) - y0)
    }

    /// The overlap of both (CGRectIntersection), or `.null` when they do not overlap.
    public func intersection(_ r: Rect) -> Rect {
        guard !isNull, !r.isNull else { return .null }
        let x0 = Swift.max(minX, r.minX), y0 = Swift.max(minY, r.minY)
        let x1 = Swift.min(maxX, r.maxX), y1 = Swift.min(maxY, r.maxY)
        guard x0 <= x1, y0 <= y1 else { return .null }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func intersects(_ r: Rect) -> Bool {
        let i = intersection(r)
        return !i.isNull && !i.isEmpty
    }

    /// The four corners: top-left, top-right, bottom-right, bottom-left.
    public var corners: [Point] {
        [Point(x: minX, y: minY), Point(x: maxX, y: minY), Point(x: maxX, y: maxY), Point(x: minX, y: maxY)]
    }

    /// The bounding box of a non-empty list of points.
    static func boundingBox(of points: [Point]) -> Rect {
        var x0 = points[0].x, x1 = points[0].x, y0 = points[0].y, y1 = points[0].y
        for p in points.dropFirst() {
            x0 = Swift.min(x0, p.x); x1 = Swift.max(x1, p.x)
            y0 = Swift.min(y0, p.y); y1 = Swift.max(y1, p.y)
        }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public var description: String { "(\(origin.x), \(origin.y), \(size.width), \(size.height))" }
}
