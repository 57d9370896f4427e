import CEvdev
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A pan's scroll (AC4): its translation as wheel motion, hi-res and notches; the coasting after the
/// lift (AC5) is ticked by `advance(to:)`.
extension Actions {
    func scroll(_ o: ScrollOptions, _ b: Binding, _ g: GestureRecognizer) {
        guard let pan = g as? PanGestureRecognizer else { return }
        switch g.state {
        case .began:
            stopCoasting(b)
            let t = pan.translation(in: nil)
            // Where the pan began: the wheel scrolls what is under the finger.
            let start = Point(x: g.location(in: nil).x - t.x, y: g.location(in: nil).y - t.y)
            queue(.pointer, move(to: start, device: b.device))
            b.state = .scrolling(last: t, x: WheelAxis(pointsPerNotch: o.pointsPerNotch), y: WheelAxis(pointsPerNotch: o.pointsPerNotch))
        case .changed, .ended:
            guard case .scrolling(let last, var x, var y) = b.state else { return }
            let t = pan.translation(in: nil)
            wheel(Point(x: t.x - last.x, y: t.y - last.y), o, &x, &y, b, time: g.currentTime, state: stateName(g))
            b.state = .scrolling(last: t, x: x, y: y)
            if g.state == .ended {
                b.state = .idle
                if let rate = o.deceleration.rate {
                    let v = pan.velocity(in: nil)
                    let d = ScrollDeceleration(velocity: v, rate: rate, start: g.currentTime)
                    // Nothing to coast: under one hi-res unit of travel in all.
                    if !d.isAtRest(at: d.start, within: 1 / x.unitsPerPoint) {
                        b.state = .coasting(d, written: .zero, x: x, y: y, next: d.start + Self.tick)
                    }
                }
            }
        case .cancelled, .failed, .possible:
            stopCoasting(b)
            b.state = .idle
        }
    }

    /// Finger travel `delta` (window points) as wheel motion: with natural scrolling the content
    /// follows the finger, so a finger moving down scrolls up (REL_WHEEL positive) and one moving right
    /// scrolls left (REL_HWHEEL negative).
    func wheel(_ delta: Point, _ o: ScrollOptions, _ x: inout WheelAxis, _ y: inout WheelAxis,
               _ b: Binding, time: Double, state: StaticString) {
        let sign = o.natural ? 1.0 : -1.0
        let h = x.add(points: -delta.x * sign)
        let v = y.add(points: delta.y * sign)
        guard h.hiRes != 0 || v.hiRes != 0 else { return }
        var e: [input_event] = []
        if v.hiRes != 0 { e.append(event(EV_REL, ActionDeviceDescription.relWheelHiRes, v.hiRes)) }
        if v.notches != 0 { e.append(event(EV_REL, ActionDeviceDescription.relWheel, v.notches)) }
        if h.hiRes != 0 { e.append(event(EV_REL, ActionDeviceDescription.relHWheelHiRes, h.hiRes)) }
        if h.notches != 0 { e.append(event(EV_REL, ActionDeviceDescription.relHWheel, h.notches)) }
        e.append(syn())
        queue(.pointer, e)
        line(b, time, state: state, action: "scroll") { w in
            w.key("dx"); w.int(Int(h.hiRes))
            w.key("dy"); w.int(Int(v.hiRes))
        }
    }
}
