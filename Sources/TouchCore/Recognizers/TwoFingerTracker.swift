/// The two fingers a pinch or a rotation follows: the first two that land; later ones are ignored
/// by the recognizer. Velocity is smoothed as 0.75 · previous + 0.25 · latest sample (PI2).
struct TwoFingerTracker {
    private(set) var fingers: [Touch] = []

    var hasBoth: Bool { fingers.count == 2 }
    var isEmpty: Bool { fingers.isEmpty }

    /// Adds the touches it can take and returns those it cannot (beyond two).
    mutating func add(_ touches: Set<Touch>) -> [Touch] {
        var rejected: [Touch] = []
        for t in touches.sorted(by: { $0.identifier < $1.identifier }) {
            if fingers.count < 2 { fingers.append(t) } else { rejected.append(t) }
        }
        return rejected
    }

    mutating func remove(_ touches: Set<Touch>) {
        fingers.removeAll { touches.contains($0) }
    }

    mutating func removeAll() { fingers = [] }

    // The two-finger recognizers' shared lifecycle (PI3, RO3):

    /// Touches landed on `r`: the first two are followed, later ones ignored (C5). True when both
    /// fingers are down.
    mutating func touchesBegan(_ touches: Set<Touch>, of r: GestureRecognizer, with event: Event) -> Bool {
        for t in add(touches) { r.ignore(t, for: event) }
        return hasBoth
    }

    /// Fingers lifted: the gesture lasts until both have, then ends (or fails, had it not begun).
    mutating func touchesEnded(_ touches: Set<Touch>, of r: GestureRecognizer) {
        remove(touches)
        if isEmpty { r.endAfterLastLift() }
    }

    /// Fingers were cancelled: the gesture is cancelled, or fails if it had not begun (S6).
    mutating func touchesCancelled(_ touches: Set<Touch>, of r: GestureRecognizer) {
        remove(touches)
        r.fail(because: "touches cancelled")
    }

    /// Distance between the two fingers, in screen points.
    var distance: Double { fingers[0].screenLocation.distance(to: fingers[1].screenLocation) }

    /// Angle of the vector from the first finger to the second, radians, clockwise on screen.
    var angle: Double {
        let d = fingers[1].screenLocation - fingers[0].screenLocation
        return TouchMath.atan2(d.y, d.x)
    }

    /// PI2, RO1: exponential smoothing of a rate.
    static func smoothedVelocity(previous: Double, change: Double, dt: Double) -> Double {
        guard dt > 0 else { return previous }
        return 0.75 * previous + 0.25 * (change / dt)
    }
}

/// What a pinch and a rotation share (uikit-semantics PI1–PI3, RO1–RO3): the first two fingers that land
/// are followed (later ones ignored, C5), the gesture lasts until both have lifted, a cancellation
/// cancels it (S6), and its velocity is the smoothed rate of its value (PI2). Not a UIKit class: the two
/// UIKit recognizers each do this themselves.
open class TwoFingerGestureRecognizer: GestureRecognizer {
    /// PI2, RO1: the value's change per second, smoothed.
    public final internal(set) var velocity = 0.0
    var tracker = TwoFingerTracker()
    /// The time of the last update, for the velocity.
    var lastTime = 0.0

    override public init() { super.init() }

    /// The gesture begins (`state` → began) at `time`, its velocity at rest.
    final func begin(at time: Double) {
        velocity = 0
        lastTime = time
        state = .began
    }

    /// The value changed by `change` at `time` (`state` → changed).
    final func changed(by change: Double, at time: Double) {
        velocity = TwoFingerTracker.smoothedVelocity(previous: velocity, change: change, dt: time - lastTime)
        lastTime = time
        state = .changed
    }

    override open func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        super.touchesEnded(touches, with: event)
        tracker.touchesEnded(touches, of: self)
    }

    override open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
        super.touchesCancelled(touches, with: event)
        tracker.touchesCancelled(touches, of: self)
    }

    override open func reset() {
        super.reset()
        tracker.removeAll()
        velocity = 0
    }
}
