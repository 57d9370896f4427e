/// Recognizes one or more taps of one or more fingers (UITapGestureRecognizer). Discrete.
/// uikit-semantics TAP1–TAP3, X4.
///
///     possible → recognized   at the lift that completes `numberOfTapsRequired` taps
///     possible → failed       too many fingers, too much movement, held too long, the next tap came
///                             too late, fingers too far apart in time, too few fingers, cancelled
open class TapGestureRecognizer: GestureRecognizer {
    /// TAP1: default 1.
    public final var numberOfTapsRequired = 1
    /// TAP1: default 1.
    public final var numberOfTouchesRequired = 1

    /// TAP2: how far (pt) a finger may travel during a tap, and how far later taps may land from the
    /// first; UIKit's undocumented 45 pt.
    public final var allowableMovement = 45.0
    /// TAP2: the longest a tap may be held (s); UIKit's maximumSingleTapDuration, 0.75 s.
    public final var maximumTapDuration = 0.75
    /// TAP2: the longest pause between a lift and the next tap (s); UIKit's 0.35 s.
    public final var maximumIntervalBetweenSuccessiveTaps = 0.35
    /// TAP2: the required fingers of a multi-finger tap must all land within this time (s). UIKit's
    /// value is undocumented; 0.25 s accepts the stagger of a real two-finger tap (about 50 ms on the
    /// panels in Tests/Fixtures) and rejects two separate touches.
    public final var allowableTouchTimeSeparation = 0.25

    override open var isDiscrete: Bool { true }

    private var tapsCompleted = 0
    /// Fingers down in the current tap and where each began (screen points).
    private var down: [(touch: Touch, start: Point)] = []
    private var tapStart = 0.0
    private var fingersInTap = 0
    private var liftedInTap = false
    /// TAP3: the first tap's centroid (screen points), once all its fingers were down.
    private var firstTapLocation: Point?

    override public init() { super.init() }

    /// Once recognized, the fingers of the tap, lifted or not: a tap that waited for a double tap to
    /// fail is recognized after they lifted (F4), and is still a tap of that many fingers.
    override open var numberOfTouches: Int {
        state == .ended ? max(fingersInTap, super.numberOfTouches) : super.numberOfTouches
    }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        let now = event.timestamp
        if down.isEmpty {
            tapStart = now
            fingersInTap = 0
            liftedInTap = false
        } else if liftedInTap {
            fail(because: "a finger landed while the tap was lifting")
            return
        }
        for t in touches.sorted(by: { $0.identifier < $1.identifier }) {
            down.append((t, t.screenLocation))
        }
        fingersInTap = max(fingersInTap, down.count)
        if down.count > numberOfTouchesRequired {
            fail(because: "\(down.count) fingers, \(numberOfTouchesRequired) required")
            return
        }
        if now - tapStart > allowableTouchTimeSeparation {
            fail(because: "fingers landed \(Self.format(now - tapStart)) s apart (at most \(Self.format(allowableTouchTimeSeparation)) s)")
            return
        }
        if down.count == numberOfTouchesRequired {
            let c = GestureRecognizer.centroid(of: down.map(\.touch))
            if let first = firstTapLocation {
                if c.distance(to: first) > allowableMovement {
                    fail(because: "tapped \(Self.format(c.distance(to: first))) pt from the first tap (at most \(Self.format(allowableMovement)) pt)")
                    return
                }
            } else {
                firstTapLocation = c
            }
        }
        deadline = tapStart + maximumTapDuration
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        for d in down where d.touch.screenLocation.distance(to: d.start) > allowableMovement {
            fail(because: Self.moved(d.touch.screenLocation.distance(to: d.start), allowableMovement))
            return
        }
    }

    override open func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        super.touchesEnded(touches, with: event)
        if fingersInTap < numberOfTouchesRequired {
            fail(because: "lifted with \(fingersInTap) of \(numberOfTouchesRequired) fingers")
            return
        }
        for d in down where touches.contains(d.touch) && d.touch.screenLocation.distance(to: d.start) > allowableMovement {
            fail(because: Self.moved(d.touch.screenLocation.distance(to: d.start), allowableMovement))
            return
        }
        down.removeAll { touches.contains($0.touch) }
        liftedInTap = true
        guard down.isEmpty else { return }
        tapsCompleted += 1
        if tapsCompleted >= numberOfTapsRequired {
            deadline = nil
            state = .recognized
        } else {
            deadline = event.timestamp + maximumIntervalBetweenSuccessiveTaps
        }
    }

    override open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
        super.touchesCancelled(touches, with: event)
        fail(because: "touches cancelled")
    }

    /// The tap was held too long, or the next tap did not come in time.
    override open func deadlineReached(at time: Double) {
        if down.isEmpty {
            fail(because: "no next tap within \(Self.format(maximumIntervalBetweenSuccessiveTaps)) s (\(tapsCompleted) of \(numberOfTapsRequired) taps)")
        } else {
            fail(because: "held longer than \(Self.format(maximumTapDuration)) s")
        }
    }

    override open func reset() {
        super.reset()
        tapsCompleted = 0
        down = []
        fingersInTap = 0
        liftedInTap = false
        firstTapLocation = nil
    }

    /// TAP3: the first tap's location (the centroid of its fingers).
    override open func location(in view: View?) -> Point {
        guard let first = firstTapLocation else { return super.location(in: view) }
        return screenToView(first, view)
    }

    /// X4: a tap prevents another tap only when both need the same fingers and the other needs no
    /// more taps than this one; so a single tap never prevents a double tap.
    override open func canPrevent(_ other: GestureRecognizer) -> Bool {
        if let tap = other as? TapGestureRecognizer {
            return tap.numberOfTouchesRequired == numberOfTouchesRequired
                && tap.numberOfTapsRequired <= numberOfTapsRequired
        }
        return super.canPrevent(other)
    }
}
