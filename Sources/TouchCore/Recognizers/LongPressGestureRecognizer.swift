/// Recognizes fingers held still for a while (UILongPressGestureRecognizer). Continuous.
/// uikit-semantics LP1–LP4.
///
///     possible → began        `numberOfTouchesRequired` fingers down for `minimumPressDuration`
///                             without moving more than `allowableMovement` (a timer, D3)
///     possible → failed       movement, a lift, too many fingers, or cancellation before that
///     began → changed*        any finger moves (no movement limit any more, LP4)
///     → ended                 any finger lifts
///     → cancelled             the touches are cancelled
open class LongPressGestureRecognizer: GestureRecognizer {
    /// LP1: seconds the fingers must be held; default 0.5.
    public final var minimumPressDuration = 0.5
    /// LP1: points a finger may move before the press begins; default 10.
    public final var allowableMovement = 10.0
    /// LP1: full taps required before the press; default 0.
    public final var numberOfTapsRequired = 0
    /// LP1: default 1.
    public final var numberOfTouchesRequired = 1
    /// TAP2 values for the taps before the press.
    public final var maximumTapDuration = 0.75
    public final var maximumIntervalBetweenSuccessiveTaps = 0.35

    private var tapsCompleted = 0
    private var down: [(touch: Touch, start: Point)] = []

    override public init() { super.init() }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        for t in touches.sorted(by: { $0.identifier < $1.identifier }) { down.append((t, t.screenLocation)) }
        guard state == .possible else { return }     // after began new fingers simply join (LP4)
        if down.count > numberOfTouchesRequired {
            fail(because: "\(down.count) fingers, \(numberOfTouchesRequired) required")
            return
        }
        if tapsCompleted < numberOfTapsRequired {
            deadline = event.timestamp + maximumTapDuration          // a tap before the press
        } else if down.count == numberOfTouchesRequired {
            deadline = event.timestamp + minimumPressDuration        // LP2
        }
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        switch state {
        case .possible:
            for d in down where d.touch.screenLocation.distance(to: d.start) > allowableMovement {
                fail(because: Self.moved(d.touch.screenLocation.distance(to: d.start), allowableMovement))     // LP3
                return
            }
        case .began, .changed:
            state = .changed             // LP4: no limit once began
        case .ended, .cancelled, .failed:
            break
        }
    }

    override open func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        super.touchesEnded(touches, with: event)
        down.removeAll { touches.contains($0.touch) }
        switch state {
        case .possible:
            if tapsCompleted < numberOfTapsRequired {
                guard down.isEmpty else { return }
                tapsCompleted += 1
                deadline = event.timestamp + maximumIntervalBetweenSuccessiveTaps
            } else {
                fail(because: "lifted before \(Self.format(minimumPressDuration)) s")     // LP3
            }
        case .began, .changed:
            state = .ended               // LP4: any finger lift ends it
        case .ended, .cancelled, .failed:
            break
        }
    }

    override open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
        super.touchesCancelled(touches, with: event)
        fail(because: "touches cancelled")   // S6: cancelled when it had begun
    }

    override open func deadlineReached(at time: Double) {
        guard state == .possible else { return }
        if tapsCompleted >= numberOfTapsRequired && down.count == numberOfTouchesRequired {
            state = .began               // LP2: fired by the timer, with no touch event
        } else {
            fail(because: down.isEmpty ? "no next tap in time" : "a tap before the press held too long")
        }
    }

    override open func reset() {
        super.reset()
        tapsCompleted = 0
        down = []
    }
}
