import Glibc
import TouchCore
import TouchProtocol
import TouchScene
import TouchSystem

/// Finger travel in points → wheel motion as a hi-res mouse sends it (README "Actions"): hi-res units,
/// 120 a notch, every frame (REL_WHEEL_HI_RES), and a whole notch (REL_WHEEL) each time 120 of them have
/// accumulated in one direction since the last, as the kernel's hid-input does for a hi-res wheel.
/// Fractions of a unit are kept, never lost: n points in any number of frames give n·120/pointsPerNotch
/// units in all, to within one.
package struct WheelAxis: Equatable {
    /// Hi-res units per point of travel (120 / pointsPerNotch).
    package let unitsPerPoint: Double
    /// Travel not yet written, in hi-res units (|fraction| < 1).
    package private(set) var fraction = 0.0
    /// Hi-res units written since the last whole notch (|sinceNotch| < 120).
    package private(set) var sinceNotch: Int32 = 0

    package init(pointsPerNotch: Double) {
        unitsPerPoint = 120 / pointsPerNotch
    }

    /// Adds `points` of travel (positive: REL_WHEEL's up, REL_HWHEEL's right); what to write now.
    package mutating func add(points: Double) -> (hiRes: Int32, notches: Int32) {
        let units = points * unitsPerPoint + fraction
        // Bounded: a frame's travel is at most the panel's size, far below Int32's range in units.
        // A hair past a whole unit counts as one: 40 pt at 6 units a point is 240, even when the
        // frames' deltas add up to 39.999999 pt.
        let whole = (units + (units < 0 ? -1e-6 : 1e-6)).rounded(.towardZero)
        fraction = units - whole
        let hiRes = Int32(max(-1e9, min(1e9, whole)))
        sinceNotch += hiRes
        let notches = sinceNotch / 120
        sinceNotch -= notches * 120
        return (hiRes, notches)
    }
}

/// UIScrollView's deceleration after the lift (uikit-semantics AC5): the content keeps the lift velocity
/// v₀ (points per second) and loses a fraction (1 − rate) of it every millisecond, so after t ms it has
/// moved Σₖ₌₁..ₜ v₀/1000·rateᵏ = D·(1 − rateᵗ) with D = v₀/1000 · rate/(1 − rate) its whole travel:
/// with rate 0.998 (normal), 499 ms of the lift velocity; with 0.99 (fast), 99 ms.
package struct ScrollDeceleration: Equatable {
    package let velocity: Point
    package let rate: Double
    /// When the finger lifted (seconds).
    package let start: Double

    /// The whole travel, in points, until the content rests.
    package var distance: Point {
        let k = rate / (1 - rate) / 1000
        return Point(x: velocity.x * k, y: velocity.y * k)
    }

    /// How far the content has travelled `time` seconds (on the start's clock) into the coast.
    package func offset(at time: Double) -> Point {
        let ms = max(0, (time - start) * 1000)
        let moved = 1 - pow(rate, ms)
        let d = distance
        return Point(x: d.x * moved, y: d.y * moved)
    }

    /// The coast is over when what is left of it, on both axes, is under `points`.
    package func isAtRest(at time: Double, within points: Double) -> Bool {
        let d = distance, o = offset(at: time)
        return abs(d.x - o.x) < points && abs(d.y - o.y) < points
    }
}
