/// Recognizes dragging fingers (UIPanGestureRecognizer). Continuous. uikit-semantics PAN1–PAN6, F5.
///
///     possible → began        at least `minimumNumberOfTouches` fingers, and the centroid has moved
///                             `hysteresis` on either axis (the hysteresis is then taken off, PAN3)
///     began → changed*        the centroid moves
///     → ended                 every finger has lifted (dropping below the minimum does not end it)
///     possible → failed       every finger lifted before it began
///     → cancelled             the touches are cancelled (S6)
///
/// Translation is the centroid's travel from a reference point; when fingers land or lift the
/// reference moves with the centroid's jump so the translation stays continuous (PAN6).
open class PanGestureRecognizer: GestureRecognizer {
    /// PAN1: default 1.
    public final var minimumNumberOfTouches = 1
    /// PAN1: default Int.max; fingers beyond it are not counted.
    public final var maximumNumberOfTouches = Int.max
    /// PAN2: points of centroid travel on either axis before the pan begins; UIKit's `_defaultHysteresis`.
    public final var hysteresis = 10.0

    /// Fingers of the pan that are down, in the order they landed (screen points).
    private var panTouches: [Touch] = []
    /// The centroid the translation is measured from (screen points).
    private var reference = Point.zero
    private var hysteresisRemoved = false
    /// PAN5: the two latest velocity samples (screen points per second) and where the last one ended.
    private var latestSample = Point.zero
    private var previousSample = Point.zero
    private var lastSampleLocation = Point.zero
    private var lastSampleTime = 0.0

    override public init() { super.init() }

    /// The counted fingers: at most `maximumNumberOfTouches` (PAN6).
    private var counted: ArraySlice<Touch> { panTouches.prefix(max(0, maximumNumberOfTouches)) }

    private var centroid: Point {
        let c = counted
        guard !c.isEmpty else { return lastSampleLocation }
        var sum = Point.zero
        for t in c { sum += t.screenLocation }
        return sum / Double(c.count)
    }

    /// PAN4: the centroid's travel since the reference, as a vector in `view`'s space (nil: window).
    public final func translation(in view: View?) -> Point {
        screenVectorToView(lastSampleLocation - reference, view)
    }

    /// PAN4: moves the reference so that the translation reads `translation` now; resets the velocity.
    public final func setTranslation(_ translation: Point, in view: View?) {
        reference = lastSampleLocation - viewVectorToScreen(translation, view)
        latestSample = .zero
        previousSample = .zero
    }

    /// PAN5: points per second in `view`'s space: 0.2 · latest sample + 0.8 · the one before.
    public final func velocity(in view: View?) -> Point {
        screenVectorToView(latestSample * 0.2 + previousSample * 0.8, view)
    }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        let before = centroid
        let wasEmpty = panTouches.isEmpty
        if touches.count == 1, let only = touches.first {
            panTouches.append(only)                 // one finger at a time, the usual case: no sorted copy
        } else {
            panTouches.append(contentsOf: touches.sorted { $0.identifier < $1.identifier })
        }
        let after = centroid
        if wasEmpty {
            reference = after
            lastSampleTime = event.timestamp
        } else {
            reference += after - before        // PAN6: the jump is not a translation
        }
        lastSampleLocation = after
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        let c = centroid
        let dt = event.timestamp - lastSampleTime
        if dt > 0 {
            previousSample = latestSample
            latestSample = (c - lastSampleLocation) / dt
            lastSampleTime = event.timestamp
        }
        lastSampleLocation = c
        switch state {
        case .possible:
            guard counted.count >= minimumNumberOfTouches else {
                reference = c                  // too few fingers: their travel is not a translation yet
                return
            }
            let t = c - reference
            if hysteresisRemoved || abs(t.x) >= hysteresis || abs(t.y) >= hysteresis {      // PAN2: per axis
                if !hysteresisRemoved {
                    // PAN3: each component shrinks toward 0 by the hysteresis, clamped at 0.
                    reference += Point(x: clampToward(t.x), y: clampToward(t.y))
                    hysteresisRemoved = true
                }
                state = .began
            }
        case .began, .changed:
            state = .changed
        case .ended, .cancelled, .failed:
            break
        }
    }

    private func clampToward(_ v: Double) -> Double {
        v >= 0 ? min(v, hysteresis) : max(v, -hysteresis)
    }

    override open func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        super.touchesEnded(touches, with: event)
        let before = centroid
        panTouches.removeAll { touches.contains($0) }
        if !panTouches.isEmpty {
            let after = centroid
            reference += after - before        // PAN6
            lastSampleLocation = after
            return
        }
        endAfterLastLift()                     // PAN6: ends when every finger has lifted
    }

    override open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
        super.touchesCancelled(touches, with: event)
        panTouches.removeAll { touches.contains($0) }
        fail(because: "touches cancelled")     // S6: cancelled when it had begun
    }

    /// F5: a pan that waited for a failure requirement starts from zero.
    override func willBeginAfterSatisfyingFailureRequirements() {
        reference = lastSampleLocation
    }

    override open func reset() {
        super.reset()
        panTouches = []
        reference = .zero
        hysteresisRemoved = false
        latestSample = .zero
        previousSample = .zero
        lastSampleLocation = .zero
        lastSampleTime = 0
    }
}
