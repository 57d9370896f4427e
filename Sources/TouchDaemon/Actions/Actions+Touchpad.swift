import CEvdev
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// One gesture's fingers on the touchpad (AC9–AC11): where they are, what was last written, and
/// whether they are down or waiting to lift.
package final class TouchpadPlay {
    let fingers: TouchpadFingers
    /// Each finger's ABS_MT_TRACKING_ID; finger i is in slot i.
    let ids: [Int32]
    /// What each finger's position was last written as (device units).
    var written: [(x: Int32, y: Int32)]
    /// When the fingers landed (the pipeline's clock).
    let landed: Double
    /// Where the travel is measured from.
    let source: Source
    var phase = Phase.down

    enum Source {
        /// A pan's (or edge pan's) translation, from what it was when the fingers landed.
        case pan(PanGestureRecognizer, from: Point)
        /// A pinch's centre, from where it was, and its scale, from what it was.
        case pinch(PinchGestureRecognizer, from: Point, scale: Double)
        /// A swipe's touches, whose centre moved from `from`: it is recognized while they are still
        /// down, and they play until one of them lifts.
        case touches([Touch], from: Point)
    }

    enum Phase {
        case down
        /// The gesture ended: the fingers lift at `at`, no sooner than `Actions.touchpadMinimumDown`
        /// after they landed (AC10).
        case lifting(at: Double)
        /// The gesture was cancelled: one finger has lifted, and the others lift at `at`, once libinput
        /// has taken the changed count for a cancel (AC11).
        case cancelling(at: Double)
    }

    init(fingers: TouchpadFingers, ids: [Int32], landed: Double, source: Source) {
        self.fingers = fingers
        self.ids = ids
        self.landed = landed
        self.source = source
        written = Array(repeating: (0, 0), count: ids.count)
    }

    var isDown: Bool { if case .down = phase { true } else { false } }

    /// When the fingers still down lift (nil: they are down for as long as the gesture).
    var liftAt: Double? {
        switch phase {
        case .down: nil
        case .lifting(let at), .cancelling(let at): at
        }
    }
}

/// The touchpad action (docs/actions.md, "Touchpad"): a pan's, swipe's, edge pan's or pinch's fingers
/// played on `TouchBridge touchpad`, so that the compositor runs its own touchpad gesture and animates
/// it with them. One gesture plays at a time: the pad has one set of slots.
extension Actions {
    /// 120 ms: how long the other fingers stay after one lifted in a cancel. libinput waits 100 ms
    /// (its DEFAULT_GESTURE_SWITCH_TIMEOUT) before it takes a changed finger count as the gesture's
    /// cancel; all lifting sooner is an end (the lab: "cancelled" only with the rest 120 ms later).
    package static let touchpadCancelPause = 0.12

    /// 250 ms: the least time the fingers stay down. libinput takes fingers that lift within 180 ms
    /// (its tap timeout) without moving 1.3 mm for a tap, and three for a middle click; a quick
    /// flick scaled to the pad may move less. Held still a little longer, it ends as a gesture.
    package static let touchpadMinimumDown = 0.25

    func touchpad(_ o: TouchpadOptions, _ b: Binding, _ g: GestureRecognizer) {
        // A command's time when one cancelled it (a recognizer disabled), else the frame's.
        let time = max(g.currentTime, lastTime)
        switch g.state {
        case .began where !g.isDiscrete, .ended where g.isDiscrete:
            land(o, b, g, time: time)
        case .ended, .cancelled:
            guard case .touchpad(let play) = b.state, play.isDown else { return }
            let cancelled = g.state == .cancelled
            if !cancelled { follow(play, b, time: time, state: "ended") }
            lift(play, b, time: time, cancelled: cancelled)
        case .began, .changed, .possible, .failed:
            break                               // the frame's `follow` moves the fingers
        }
    }

    private func land(_ o: TouchpadOptions, _ b: Binding, _ g: GestureRecognizer, time: Double) {
        if case .touchpad(let old) = b.state { liftNow(old, b, time: time) }
        // The pad has one set of slots: a gesture still playing keeps it; one only waiting to lift
        // lifts now.
        for other in bindings where other !== b {
            guard case .touchpad(let p) = other.state else { continue }
            if p.isDown {
                log.debug("touchpad: \(b.name) began while \(other.name) plays: it is not played")
                return
            }
            liftNow(p, other, time: time)
        }
        let touches = g.gestureTouches.filter(\.isLive)
        guard !touches.isEmpty else { return }
        let n = min(max(o.fingers ?? touches.count, TouchpadOptions.fingerRange.lowerBound), TouchpadOptions.fingerRange.upperBound)
        let places = touches.map { $0.location(in: nil) }
        let region = area(b.device).region
        let scale = o.scale.map { Point(x: $0, y: $0) } ?? TouchpadFingers.defaultScale(region: region)
        let source: TouchpadPlay.Source
        switch g {
        case let pan as PanGestureRecognizer: source = .pan(pan, from: pan.translation(in: nil))
        case let pinch as PinchGestureRecognizer: source = .pinch(pinch, from: g.location(in: nil), scale: pinch.scale)
        default: source = .touches(touches, from: places.reduce(.zero, +) / Double(places.count))
        }
        let ids = (0..<n).map { _ in nextTrackingID() }
        let fingers = TouchpadFingers(touches: places, fingers: n, scale: scale, region: region)
        let play = TouchpadPlay(fingers: fingers, ids: ids, landed: time, source: source)
        b.state = .touchpad(play)
        // Landing a step back, then the step: libinput spends its start threshold on it (AC9).
        let start = fingers.positions(translation: .zero)
        // Which way the gesture goes: the touches' last step (a pan begins, a swipe is recognized, on
        // a frame that moved them), else a pan's velocity or translation.
        var direction = touches.reduce(Point.zero) { $0 + $1.location(in: nil) - $1.previousLocation(in: nil) }
        if direction.length == 0, let pan = g as? PanGestureRecognizer {
            let velocity = pan.velocity(in: nil)
            direction = velocity.length > 0 ? velocity : pan.translation(in: nil)
        }
        if let landing = fingers.landing(pinch: g is PinchGestureRecognizer, direction: direction) {
            write(play, landing, landing: true, b, time: time, state: stateName(g))
            // The step in a write of its own: in the same write the kernel gives both frames one
            // timestamp, and libinput then starts from the step, not the landing (the lab measured
            // it: 95.8 % of a swipe reported that way, 100.0 % with the step a write later).
            write(play, start, landing: false, b, time: time, state: stateName(g), separate: true)
        } else {
            write(play, start, landing: true, b, time: time, state: stateName(g))
        }
    }

    private func nextTrackingID() -> Int32 {
        trackingID = (trackingID + 1) & 0xffff
        return trackingID
    }

    /// Moves every playing gesture's fingers to where its touches are now (a frame's end), and lifts
    /// a swipe's once one of its touches has.
    func followTouchpad(at time: Double) {
        for b in bindings {
            guard case .touchpad(let play) = b.state, play.isDown else { continue }
            if case .touches(let touches, _) = play.source, touches.contains(where: { !$0.isLive }) {
                follow(play, b, time: time, state: "ended")
                lift(play, b, time: time, cancelled: touches.contains { $0.phase == .cancelled })
            } else {
                follow(play, b, time: time, state: "changed")
            }
        }
    }

    private func follow(_ play: TouchpadPlay, _ b: Binding, time: Double, state: StaticString) {
        let translation: Point, spread: Double
        switch play.source {
        case .pan(let pan, let from):
            translation = pan.translation(in: nil) - from
            spread = 1
        case .pinch(let pinch, let from, let scale):
            translation = pinch.location(in: nil) - from
            spread = scale > 0 ? pinch.scale / scale : 1
        case .touches(let touches, let from):
            translation = touches.reduce(Point.zero) { $0 + $1.location(in: nil) } / Double(touches.count) - from
            spread = 1
        }
        write(play, play.fingers.positions(translation: translation, spread: spread), landing: false, b, time: time, state: state)
    }

    /// The gesture is over: its fingers lift now, or when they have been down long enough; a cancel
    /// lifts one now and the others after the pause that makes libinput call it a cancel.
    private func lift(_ play: TouchpadPlay, _ b: Binding, time: Double, cancelled: Bool) {
        let earliest = play.landed + Self.touchpadMinimumDown
        if cancelled && play.ids.count > 1 {
            dropOne(play, b, time: time)
            play.phase = .cancelling(at: max(time + Self.touchpadCancelPause, earliest))
        } else {
            play.phase = .lifting(at: max(time, earliest))
            if time >= earliest { liftNow(play, b, time: time) }
        }
    }

    /// The last finger lifts: BTN_TOOL_* says one fewer.
    private func dropOne(_ play: TouchpadPlay, _ b: Binding, time: Double) {
        let n = play.ids.count
        queue(.touchpad, [event(EV_ABS, UInt16(ABS_MT_SLOT), Int32(n - 1)), event(EV_ABS, UInt16(ABS_MT_TRACKING_ID), -1),
                          event(EV_KEY, Self.toolCode(n), 0), event(EV_KEY, Self.toolCode(n - 1), 1), syn()])
        let left = play.written.prefix(n - 1)
        line(b, time, state: "cancelled", action: "touchpad") { w in Self.writeFingers(left, &w) }
    }

    /// Lifts what `play` has down at `time`: all of them (an end, or what a cancel left), or, when the
    /// gesture is still down (a scene replaced, actions stopping: no time to wait), one and then the rest.
    func liftNow(_ play: TouchpadPlay, _ b: Binding, time: Double) {
        var down = play.ids.count
        var state: StaticString = "ended"
        switch play.phase {
        case .lifting: break
        case .cancelling:
            down -= 1
            state = "cancelled"
        case .down:
            state = "cancelled"
            if down > 1 {
                dropOne(play, b, time: time)
                down -= 1
            }
        }
        var e: [input_event] = []
        for i in 0..<down { e += [event(EV_ABS, UInt16(ABS_MT_SLOT), Int32(i)), event(EV_ABS, UInt16(ABS_MT_TRACKING_ID), -1)] }
        e += [event(EV_KEY, KeyCode.touch, 0), event(EV_KEY, Self.toolCode(down), 0), syn()]
        queue(.touchpad, e)
        line(b, time, state: state, action: "touchpad") { w in Self.writeFingers([], &w) }
        b.state = .idle
    }

    /// Writes the fingers at `positions` (mm) and its action line, if anything moved (or they land).
    private func write(_ play: TouchpadPlay, _ positions: [Point], landing: Bool, _ b: Binding, time: Double, state: StaticString,
                       separate: Bool = false) {
        var e: [input_event] = []
        for (i, p) in positions.enumerated() {
            let u = TouchpadFingers.units(p), w = play.written[i]
            if landing {
                e += [event(EV_ABS, UInt16(ABS_MT_SLOT), Int32(i)), event(EV_ABS, UInt16(ABS_MT_TRACKING_ID), play.ids[i]),
                      event(EV_ABS, UInt16(ABS_MT_POSITION_X), u.x), event(EV_ABS, UInt16(ABS_MT_POSITION_Y), u.y)]
            } else if u != w {
                e.append(event(EV_ABS, UInt16(ABS_MT_SLOT), Int32(i)))
                if u.x != w.x { e.append(event(EV_ABS, UInt16(ABS_MT_POSITION_X), u.x)) }
                if u.y != w.y { e.append(event(EV_ABS, UInt16(ABS_MT_POSITION_Y), u.y)) }
            }
            play.written[i] = u
        }
        guard !e.isEmpty else { return }
        // The single-touch axes follow the first finger, as a touchpad's firmware reports them.
        e += [event(EV_ABS, UInt16(ABS_X), play.written[0].x), event(EV_ABS, UInt16(ABS_Y), play.written[0].y)]
        if landing { e += [event(EV_KEY, KeyCode.touch, 1), event(EV_KEY, Self.toolCode(play.ids.count), 1)] }
        e.append(syn())
        queue(.touchpad, e, separate: separate)
        let fingers = play.written
        line(b, time, state: state, action: "touchpad") { w in Self.writeFingers(fingers[...], &w) }
    }

    /// BTN_TOOL_FINGER … BTN_TOOL_QUADTAP: how many fingers are down.
    static func toolCode(_ n: Int) -> UInt16 {
        switch n {
        case 1: KeyCode.toolFinger
        case 2: KeyCode.toolDoubleTap
        case 3: KeyCode.toolTripleTap
        default: KeyCode.toolQuadTap
        }
    }

    /// `"fingers":[[x,y],…]`: millimetres on the pad, as written (a 40th of a millimetre each unit).
    static func writeFingers(_ units: ArraySlice<(x: Int32, y: Int32)>, _ w: inout JSONWriter) {
        let r = Double(ActionDeviceDescription.touchpadResolution)
        w.key("fingers")
        w.beginArray()
        for u in units {
            w.beginArray()
            w.number(Double(u.x) / r)
            w.number(Double(u.y) / r)
            w.endArray()
        }
        w.endArray()
    }

    /// Lifts every gesture on the pad now (the scene replaced, actions stopping).
    func liftTouchpad(at time: Double) {
        for b in bindings { if case .touchpad(let play) = b.state { liftNow(play, b, time: time) } }
    }

    /// The earliest pending lift.
    var nextTouchpadLift: Double? {
        var best: Double?
        for b in bindings {
            if case .touchpad(let p) = b.state, let at = p.liftAt, best.map({ at < $0 }) ?? true { best = at }
        }
        return best
    }

    /// Pending lifts due by `time`, each at its own time.
    func advanceTouchpad(to time: Double) {
        for b in bindings {
            guard case .touchpad(let p) = b.state, let at = p.liftAt, at <= time else { continue }
            liftNow(p, b, time: at)
        }
    }
}
