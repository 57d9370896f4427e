/// Recognizes two fingers moving apart or together (UIPinchGestureRecognizer). Continuous.
/// uikit-semantics PI1–PI3.
///
///     possible → began        both fingers down and their distance has changed by `hysteresis`
///     began → changed*        a finger moves while both are down
///     → ended                 both fingers have lifted
///     possible → failed       the fingers lifted before it began
///     → cancelled             the touches are cancelled (S6)
open class PinchGestureRecognizer: TwoFingerGestureRecognizer {
    /// PI1: the current distance ÷ the distance at began; 1.0 at began. Setting it resets the velocity.
    public final var scale: Double {
        get { currentScale }
        set {
            currentScale = newValue
            velocity = 0
            if tracker.hasBoth && newValue != 0 { referenceDistance = tracker.distance / newValue }
        }
    }
    /// PI3: points of distance change before the pinch begins; UIKit's value is undocumented
    /// ("about 5–10 pt"), 8 pt is used.
    public final var hysteresis = 8.0
    /// The distance must also change by this fraction of the starting distance (5%). Not in UIKit:
    /// real panels' contacts wobble by ±3% when two fingers are merely held (the Atmel maXTouch
    /// two-finger hold in Tests/Fixtures moves 18 pt at 550 pt apart), which must not be a pinch.
    public final var relativeHysteresis = 0.05

    private var currentScale = 1.0
    private var startDistance = 0.0
    private var referenceDistance = 0.0

    override public init() { super.init() }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        guard tracker.touchesBegan(touches, of: self, with: event) else { return }
        if state == .possible {
            startDistance = tracker.distance
        } else if currentScale != 0 {
            referenceDistance = tracker.distance / currentScale     // a finger came back: keep the scale
        }
        lastTime = event.timestamp
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        guard tracker.hasBoth else { return }
        let d = tracker.distance
        switch state {
        case .possible:
            guard abs(d - startDistance) >= max(hysteresis, startDistance * relativeHysteresis) else { return }
            referenceDistance = d
            currentScale = 1
            begin(at: event.timestamp)
        case .began, .changed:
            guard referenceDistance > 0 else { return }
            let newScale = d / referenceDistance
            let change = newScale - currentScale
            currentScale = newScale
            changed(by: change, at: event.timestamp)
        case .ended, .cancelled, .failed:
            break
        }
    }

    override open func reset() {
        super.reset()
        currentScale = 1
        startDistance = 0
        referenceDistance = 0
    }
}
