import CEvdev
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A pinch's zoom (AC6): ctrl with the wheel, a notch each time the scale crosses a power of `step`.
extension Actions {
    func zoom(step: Double, ctrl: UInt16, _ b: Binding, _ g: GestureRecognizer) {
        guard let pinch = g as? PinchGestureRecognizer else { return }
        switch g.state {
        case .began:
            queue(.pointer, move(to: g.location(in: nil), device: b.device))
            b.state = .zooming(level: 0)
        case .changed, .ended:
            guard case .zooming(let level) = b.state else { return }
            // Levels are whole steps of the scale: one notch each time the scale crosses step^k.
            let now = Int((Glibc.log(max(pinch.scale, 1e-6)) / Glibc.log(step)).rounded(.towardZero))
            if now != level {
                let n = Int32(now - level)
                queue(.keyboard, [event(EV_KEY, ctrl, 1), syn()])
                queue(.pointer, [event(EV_REL, ActionDeviceDescription.relWheelHiRes, n * 120),
                                 event(EV_REL, ActionDeviceDescription.relWheel, n), syn()])
                queue(.keyboard, [event(EV_KEY, ctrl, 0), syn()])
                line(b, g.currentTime, state: stateName(g)) { w in w.key("notches"); w.int(Int(n)) }
            }
            b.state = g.state == .ended ? .idle : .zooming(level: now)
        case .cancelled, .failed, .possible:
            b.state = .idle
        }
    }
}
