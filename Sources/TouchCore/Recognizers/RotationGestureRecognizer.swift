/// Recognizes two fingers turning (UIRotationGestureRecognizer). Continuous. uikit-semantics RO1–RO3.
///
///     possible → began        both fingers down and the line between them has turned `threshold`
///     began → changed*        a finger moves while both are down
///     → ended                 both fingers have lifted
///     possible → failed       the fingers lifted before it began
///     → cancelled             the touches are cancelled (S6)
///
/// `rotation` is cumulative since began and may pass ±π; positive is clockwise on screen, so that
/// `transform.rotated(by: rotation)` follows the fingers (RO2).
open class RotationGestureRecognizer: TwoFingerGestureRecognizer {
    /// RO1: radians since began, clockwise positive. Setting it resets the velocity.
    public final var rotation: Double {
        get { currentRotation }
        set {
            currentRotation = newValue
            velocity = 0
        }
    }
    /// RO3: radians the fingers must turn before the rotation begins; UIKit's value is undocumented,
    /// 0.07 rad (4°) is used.
    public final var threshold = 0.07

    private var currentRotation = 0.0
    /// The finger line's angle at the last update, for unwrapping across ±π.
    private var lastAngle = 0.0
    private var turnedBeforeBegan = 0.0

    override public init() { super.init() }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        guard tracker.touchesBegan(touches, of: self, with: event) else { return }
        lastAngle = tracker.angle               // a new finger pair: no jump in rotation
        lastTime = event.timestamp
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        guard tracker.hasBoth else { return }
        let angle = tracker.angle
        let delta = TouchMath.normalizedAngle(angle - lastAngle)
        lastAngle = angle
        switch state {
        case .possible:
            turnedBeforeBegan += delta
            guard abs(turnedBeforeBegan) >= threshold else { return }
            currentRotation = 0
            begin(at: event.timestamp)
        case .began, .changed:
            currentRotation += delta
            changed(by: delta, at: event.timestamp)
        case .ended, .cancelled, .failed:
            break
        }
    }

    override open func reset() {
        super.reset()
        currentRotation = 0
        lastAngle = 0
        turnedBeforeBegan = 0
    }
}
