import TouchCore
import TouchInput
import TouchProtocol
import TouchScene

/// The value action, a slider (docs/actions.md, "Sliders"; AC12): a pan's travel across its view, 1:1
/// over the view's length, moves a value from where it was, clamped to its range; each new value is an
/// action line (at most one a frame) and, with a target, the backlight's brightness.
extension Actions {
    /// What one slide started from.
    struct Slide {
        /// The value when the pan began.
        var start: Double
        /// The pan's translation then (its view's points).
        var from: Point
        /// The value last told.
        var told: Double
    }

    /// The value a binding's slide starts from: a backlight's brightness now, else the last value the
    /// slider reached (its `from` at first). A backlight that cannot be read starts from the last value.
    private func current(_ o: ValueOptions, _ b: Binding) -> Double {
        if let target = o.target, let now = brightness(target) { return o.clamped(now) }
        return values[b.name] ?? o.from
    }

    func slide(_ o: ValueOptions, _ b: Binding, _ g: GestureRecognizer) {
        guard let pan = g as? PanGestureRecognizer else { return }
        switch g.state {
        case .began:
            let start = current(o, b)
            b.state = .sliding(Slide(start: start, from: pan.translation(in: g.view), told: start))
        case .ended:
            followValue(b, time: g.currentTime, state: "ended")
            b.state = .idle
        case .cancelled, .failed, .possible:
            b.state = .idle                     // what the slide set stays set
        case .changed:
            break                               // the frame's `followValue` moves it
        }
    }

    /// Every slider under way takes its pan's travel (a frame's end).
    func followValues(at time: Double) {
        for b in bindings { if case .sliding = b.state { followValue(b, time: time, state: "changed") } }
    }

    private func followValue(_ b: Binding, time: Double, state: StaticString) {
        guard case .sliding(var s) = b.state, case .value(let o) = b.action.kind,
              let pan = b.recognizer as? PanGestureRecognizer, let view = pan.view else { return }
        let length = o.along == .y ? view.bounds.height : view.bounds.width
        let v = o.value(from: s.start, translation: pan.translation(in: view) - s.from, length: length)
        // Told to a ten-thousandth: finer steps are no step of a slider a finger moves.
        let rounded = (v * 10_000).rounded() / 10_000
        guard rounded != s.told else { return }
        s.told = rounded
        b.state = .sliding(s)
        values[b.name] = rounded
        if let target = o.target { backlightWrites.append((target, rounded)) }
        line(b, time, state: state, action: "value") { w in w.key("value"); w.number(rounded) }
    }
}
