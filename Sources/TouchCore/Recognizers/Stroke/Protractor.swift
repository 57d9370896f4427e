/// Drawn strokes compared with templates: the $1 recognizer's preparation (Wobbrock, Wilson and Li,
/// UIST 2007) with Protractor's closed-form match (Li, CHI 2010). uikit-semantics ST5.
///
/// A stroke is resampled to `pointCount` points evenly spaced along its path, moved so that its
/// centroid is the origin, turned (rotation-invariant: its first point straight right of the centroid;
/// orientation-sensitive: that angle only nudged to the nearest multiple of 45°), and made a vector of
/// length 1, which takes the size away and keeps the proportions. Two such vectors are as alike as the
/// cosine of the angle between them, after the rotation of one that brings them closest: with
/// a = Σ x·x′ + y·y′ and b = Σ x·y′ − y·x′, the best rotation is atan2(b, a) and the cosine there √(a² + b²).
/// The rotation is bounded (`rotationLimit`): $1 searches ±45° about the aligned angle, and an unbounded
/// turn would make a check of a caret turned over. The score is that cosine, 0 to 1.
public enum Protractor {
    /// Points a stroke is resampled to: Protractor's 16 (it found more no more accurate).
    public static let pointCount = 16

    /// How a stroke's orientation counts (`"orientation"` in scenes).
    public enum Orientation: String, Sendable, CaseIterable {
        /// Turned to a common angle: a circle is a circle however it is drawn around.
        case invariant
        /// Kept, but for a nudge to the nearest 45°: an arrow left is not an arrow right.
        case sensitive
    }

    /// The bound of the rotation the match may add (radians): ±45° rotation-invariant, as $1's search;
    /// ±22.5° orientation-sensitive, half the gap between two base orientations.
    public static func rotationLimit(_ o: Orientation) -> Double { o == .invariant ? Double.pi / 4 : Double.pi / 8 }

    /// A stroke prepared for matching: 2 × `pointCount` numbers, x and y in turn, of length 1; and the
    /// rotation it was given and the centroid and length it had, to draw a template back over it.
    public struct Vector: Sendable, Equatable {
        public var values: [Double]
        /// The angle (radians) the resampled stroke was turned by.
        public var rotation: Double
        public var centroid: Point
        /// The length of the centred, turned, resampled stroke before it was made 1.
        public var magnitude: Double
    }

    /// The length of a path (points).
    public static func pathLength(_ points: [Point]) -> Double {
        var d = 0.0
        for i in points.indices.dropFirst() { d += points[i].distance(to: points[i - 1]) }
        return d
    }

    /// `points` resampled to `n` points evenly spaced along the path ($1's step 1). Fewer than two
    /// distinct points give `n` copies of the first.
    public static func resample(_ points: [Point], _ n: Int = pointCount) -> [Point] {
        guard let first = points.first else { return [] }
        let length = pathLength(points)
        guard length > 0, n > 1 else { return Array(repeating: first, count: max(n, 0)) }
        let step = length / Double(n - 1)
        var out = [first]
        out.reserveCapacity(n)
        var travelled = 0.0
        var previous = first
        var i = 1
        while i < points.count {
            let p = points[i]
            let d = previous.distance(to: p)
            if d > 0, travelled + d >= step {
                let t = (step - travelled) / d
                let q = previous + (p - previous) * t
                out.append(q)
                previous = q                            // the new point starts the next interval
                travelled = 0
                if out.count == n { break }
            } else {
                travelled += d
                previous = p
                i += 1
            }
        }
        // Rounding can leave the last point out: it is the path's end.
        while out.count < n { out.append(points[points.count - 1]) }
        return out
    }

    /// The centroid of `points`.
    public static func centroid(_ points: [Point]) -> Point {
        var s = Point.zero
        for p in points { s += p }
        return points.isEmpty ? s : s / Double(points.count)
    }

    /// A stroke prepared for matching (resample, centre, turn, make length 1).
    public static func vector(_ points: [Point], orientation: Orientation) -> Vector {
        let resampled = resample(points)
        let c = centroid(resampled)
        let first = resampled.first.map { $0 - c } ?? .zero
        let indicative = TouchMath.atan2(first.y, first.x)
        var rotation = -indicative
        if orientation == .sensitive {
            // To the nearest of the eight base orientations (multiples of 45°).
            let base = (indicative / (Double.pi / 4)).rounded() * (Double.pi / 4)
            rotation = base - indicative
        }
        let s = TouchMath.sin(rotation), co = TouchMath.cos(rotation)
        var values = [Double](repeating: 0, count: resampled.count * 2)
        var sum = 0.0
        for (i, p) in resampled.enumerated() {
            let d = p - c
            let x = d.x * co - d.y * s, y = d.x * s + d.y * co
            values[2 * i] = x
            values[2 * i + 1] = y
            sum += x * x + y * y
        }
        let magnitude = sum.squareRoot()
        if magnitude > 0 { for i in values.indices { values[i] /= magnitude } }
        return Vector(values: values, rotation: rotation, centroid: c, magnitude: magnitude)
    }

    /// How alike two prepared strokes are: the cosine of the angle between them once `template` is
    /// turned by the best rotation within ±`limit` (radians), 0 when they are unlike; and that rotation.
    @inline(__always)
    public static func similarity(_ stroke: [Double], _ template: [Double], limit: Double) -> (score: Double, rotation: Double) {
        var a = 0.0, b = 0.0
        var i = 0
        let n = min(stroke.count, template.count)
        while i + 1 < n {
            let x = stroke[i], y = stroke[i + 1], tx = template[i], ty = template[i + 1]
            a += x * tx + y * ty
            b += x * ty - y * tx
            i += 2
        }
        // a·cos θ + b·sin θ = r·cos(θ − θ*), largest at θ* = atan2(b, a); bounded, at the nearer bound.
        let r = (a * a + b * b).squareRoot()
        let best = TouchMath.atan2(b, a)
        let score = abs(best) <= limit ? r : r * TouchMath.cos(abs(best) - limit)
        return (max(0, min(1, score)), abs(best) <= limit ? best : (best < 0 ? -limit : limit))
    }
}
