/// A 2-D affine transform (CGAffineTransform). A point (x, y) maps to (a·x + c·y + tx, b·x + d·y + ty);
/// in matrix form it is the row vector [x y 1] times
///
///     | a  b  0 |
///     | c  d  0 |
///     | tx ty 1 |
///
/// so `t1.concatenating(t2)` applies t1 first, then t2, as in Core Graphics.
public struct AffineTransform: Hashable, Sendable, CustomStringConvertible {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A rotation by `angle` radians; positive angles turn clockwise on screen because y points down.
    public init(rotationAngle angle: Double) {
        let s = TouchMath.sin(angle), c = TouchMath.cos(angle)
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    public init(scaleX sx: Double, y sy: Double) {
        self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    public init(translationX x: Double, y: Double) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public var isIdentity: Bool { a == 1 && b == 0 && c == 0 && d == 1 && tx == 0 && ty == 0 }

    /// `self` followed by `t2` (CGAffineTransformConcat(self, t2)).
    public func concatenating(_ t2: AffineTransform) -> AffineTransform {
        AffineTransform(a: a * t2.a + b * t2.c,
                        b: a * t2.b + b * t2.d,
                        c: c * t2.a + d * t2.c,
                        d: c * t2.b + d * t2.d,
                        tx: tx * t2.a + ty * t2.c + t2.tx,
                        ty: tx * t2.b + ty * t2.d + t2.ty)
    }

    /// CGAffineTransformRotate: the rotation is applied first, then `self`.
    public func rotated(by angle: Double) -> AffineTransform {
        AffineTransform(rotationAngle: angle).concatenating(self)
    }

    /// CGAffineTransformScale: the scale is applied first, then `self`.
    public func scaledBy(x sx: Double, y sy: Double) -> AffineTransform {
        AffineTransform(scaleX: sx, y: sy).concatenating(self)
    }

    /// CGAffineTransformTranslate: the translation is applied first, then `self`.
    public func translatedBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform(translationX: x, y: y).concatenating(self)
    }

    /// a·d − b·c; zero for a transform that collapses the plane.
    public var determinant: Double { a * d - b * c }

    /// True when the transform can be undone (its determinant is finite and not zero).
    public var isInvertible: Bool { determinant != 0 && determinant.isFinite }

    /// The inverse transform; like CGAffineTransformInvert, a non-invertible transform is returned unchanged.
    public func inverted() -> AffineTransform {
        let det = determinant
        guard det != 0, det.isFinite else { return self }
        return AffineTransform(a: d / det, b: -b / det, c: -c / det, d: a / det,
                               tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    /// Maps a vector (a displacement): the linear part only, without translation.
    public func applyingToVector(_ v: Point) -> Point {
        Point(x: a * v.x + c * v.y, y: b * v.x + d * v.y)
    }

    public var description: String { "[\(a), \(b), \(c), \(d), \(tx), \(ty)]" }
}
