import CEvdev
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// Actions (README "Actions", uikit-semantics AC1–AC8): a recognizer's action becomes key, button and
/// wheel events on the action devices, and a line on the `actions` topic for each. Everything a frame
/// or a timer makes is queued and written by `flush`, which the pipeline calls after the mirrors' own
/// flush: the app has lost a claimed touch (its mirror's cancel) before the action's events arrive (AC7).
///
/// No key or button is ever held from one write to the next (AC8): a chord is pressed and released in
/// one write, a click likewise; only a zoom notch spans the keyboard and the pointer, in three writes
/// of the same flush.
public final class Actions {
    /// Where events go; nil: only lines are made (`touchbridgectl replay --actions`).
    public let devices: ActionDevices?
    package let log: Logger
    /// The `actions` topic's lines, one at a time, valid during the call.
    package var onLine: ((UnsafeBufferPointer<UInt8>) -> Void)?
    /// Writing failed: actions are off from now on (the daemon logs it and keeps serving).
    public var onFailure: ((Error) -> Void)?
    /// Where on the desktop a device's touches are: its region in the window and its `pointerArea`.
    package var area: (Int?) -> (region: Rect, pointerArea: Rect?) = { _ in (Rect(x: 0, y: 0, width: 1, height: 1), nil) }

    /// A frame's or timer's writes, in order; consecutive events for one device go in one write.
    enum Target { case keyboard, pointer, touchpad }
    private var writes: [(target: Target, events: [input_event])] = []
    private var lines: [[UInt8]] = []
    /// Every recognizer's binding; those coasting (AC5) are the ones whose state says so, and their
    /// ticks are the pipeline's deadlines too.
    var bindings: [Binding] = []
    /// The last finger's ABS_MT_TRACKING_ID on the touchpad.
    var trackingID: Int32 = 0
    /// Each slider's value, by recognizer name: the next slide of a plain value starts there.
    package internal(set) var values: [String: Double] = [:]
    /// Backlight brightness a slider set this frame, written by `flush`.
    var backlightWrites: [(ValueOptions.Target, Double)] = []
    /// A backlight's brightness now (a fraction of its maximum); nil: none, or unreadable.
    package var brightness: (ValueOptions.Target) -> Double? = { _ in nil }
    /// Sets a backlight's brightness (the pipeline's display, which knows the backlights).
    package var setBrightness: ((ValueOptions.Target, Double) -> Void)?

    /// Whether writing goes on. One way: a failed write ends actions until the daemon makes new ones.
    public enum Status: Equatable {
        case running
        /// A write failed (the devices are gone): nothing more is written or said.
        case failed
    }
    public private(set) var status = Status.running
    public var isFailed: Bool { status == .failed }

    /// The coasting's tick: 60 a second, a display's frame rate (UIScrollView moves content once a frame).
    package static let tick = 1.0 / 60

    /// No action devices could be made (no /dev/uinput): only what needs none acts (a slider), and the
    /// rest is not even told (a line would say keys were typed that were not).
    public let deviceless: Bool

    /// `devices` nil: lines only (`replay --actions`), or with `deviceless` only the sliders.
    public init(devices: ActionDevices?, deviceless: Bool = false, log: Logger) {
        self.devices = devices
        self.deviceless = deviceless
        self.log = log
    }

    /// What one recognizer's action is doing.
    package final class Binding {
        weak var recognizer: GestureRecognizer?
        let action: Action
        let name: String
        var state = State.idle
        /// The device of its touches, kept for the lines after they have gone (coasting).
        var device: Int?

        enum State {
            case idle
            /// A pan being followed: the translation already turned into wheel motion.
            case scrolling(last: Point, x: WheelAxis, y: WheelAxis)
            /// After the lift: the deceleration, how much of it is written, and the next tick.
            case coasting(ScrollDeceleration, written: Point, x: WheelAxis, y: WheelAxis, next: Double)
            /// A pinch being followed: the zoom level last written (notches from scale 1).
            case zooming(level: Int)
            /// Fingers on the touchpad.
            case touchpad(TouchpadPlay)
            /// A slider moving.
            case sliding(Slide)
        }

        var isCoasting: Bool { if case .coasting = state { true } else { false } }

        init(_ r: GestureRecognizer, _ action: Action) {
            recognizer = r
            self.action = action
            name = r.name ?? ""
        }
    }

    /// `r`'s action runs from now on. Its target is added after the gesture line's: an action line
    /// follows the gesture line of the same state.
    package func bind(_ r: GestureRecognizer, _ action: Action) {
        if case .touchpad = action.kind, let devices {
            do {
                let made = try devices.prepareTouchpad()
                if made.made { log.info("actions: \"\(ActionDeviceDescription.touchpadName)\" (\(made.node ?? "a test sink")) for the scene's touchpad gestures") }
            } catch {
                log.warning("actions: the touchpad cannot be made (\(error)): touchpad actions are off; the rest still act")
            }
        }
        let b = Binding(r, action)
        bindings.append(b)
        // Weak: a recognizer outlives its binding when its scene is replaced (it may still act while it
        // retires), and then the binding is gone.
        r.addTarget { [weak self, weak b] g in if let b { self?.fired(b, g) } }
    }

    /// Every binding ends (a scene replaced, the daemon stopping): coasting stops, nothing more is
    /// written for them. The recognizers keep a target that now does nothing.
    package func unbindAll() {
        liftTouchpad(at: lastTime)
        for b in bindings { b.state = .idle; b.recognizer = nil }
        bindings = []
    }

    /// The bindings of these recognizers end (a client scene removed).
    package func unbind(_ recognizers: [GestureRecognizer]) {
        let gone = Set(recognizers.map(ObjectIdentifier.init))
        for b in bindings where b.recognizer.map({ gone.contains(ObjectIdentifier($0)) }) ?? true {
            if case .touchpad(let play) = b.state { liftNow(play, b, time: lastTime) }
            b.state = .idle
            b.recognizer = nil
        }
        bindings.removeAll { $0.recognizer == nil }
    }

    public var isCoasting: Bool { bindings.contains { $0.isCoasting } }

    /// Whether a flush has something to write or say.
    package var hasPending: Bool { !writes.isEmpty || !lines.isEmpty || !backlightWrites.isEmpty }

    /// Some gesture's fingers play on the touchpad, or a slider moves: each frame's end moves them
    /// (`follow`).
    package var isFollowing: Bool {
        bindings.contains { b in
            switch b.state {
            case .touchpad(let p): p.isDown
            case .sliding: true
            default: false
            }
        }
    }

    /// A frame was handled: the fingers on the touchpad and the sliders follow their touches, once.
    package func follow(at time: Double) {
        lastTime = max(lastTime, time)
        followTouchpad(at: time)
        followValues(at: time)
    }

    // MARK: Firing (AC1)

    private func fired(_ b: Binding, _ g: GestureRecognizer) {
        guard !isFailed, b.recognizer != nil, !(deviceless && b.action.needsDevices) else { return }
        lastTime = max(lastTime, g.currentTime)
        if let shape = b.action.shape, (g as? StrokeGestureRecognizer)?.recognizedShape != shape { return }     // a stroke's, for one shape
        if let d = g.gestureTouches.first?.device { b.device = d }
        switch b.action.kind {
        case .keys(let chords):
            guard acts(b.action, g.state) else { return }
            for c in chords { type(c, by: actor(b, g)) }
        case .click(let button, let count):
            guard acts(b.action, g.state) else { return }
            click(button, count: count, at: g.location(in: nil), by: actor(b, g))
        case .scroll(let options):
            scroll(options, b, g)
        case .zoom(let step, let ctrl):
            zoom(step: step, ctrl: ctrl, b, g)
        case .touchpad(let options):
            guard devices == nil || devices?.touchpad != nil else { return }     // it could not be made
            touchpad(options, b, g)
        case .value(let options):
            slide(options, b, g)
        }
    }

    /// A keys or click action acts at its moment: a discrete recognizer when recognized; a continuous
    /// one when it begins, or with `"on": "ended"` when it ends (not when it is cancelled).
    private func acts(_ a: Action, _ state: GestureRecognizer.State) -> Bool {
        switch a.on {
        case .recognized, .ended: state == .ended
        case .began: state == .began
        }
    }

    // MARK: Keys (AC2)

    /// Who a keys or click action acts for, as its line says: a binding's recognizer in its state, or
    /// a pen's barrel button (recognizer "pencil", state "pressed", and `pencilButton`).
    private struct Actor {
        var name: String
        var device: Int?
        var time: Double
        var state: StaticString
        var pencilButton: Int?
    }

    private func actor(_ b: Binding, _ g: GestureRecognizer) -> Actor {
        Actor(name: b.name, device: b.device, time: g.currentTime, state: stateName(g))
    }

    private func type(_ c: KeyChord, by a: Actor) {
        queue(.keyboard, strokes(c))
        line(name: a.name, device: a.device, a.time, state: a.state, action: "keys") { w in
            w.key("keys"); w.string(c.text)
            w.key("codes")
            w.beginArray()
            for n in c.codeNames { w.string(n) }
            w.endArray()
            if let n = a.pencilButton { w.key("pencilButton"); w.int(n) }
        }
    }

    /// A chord's events.
    private func strokes(_ c: KeyChord) -> [input_event] {
        var e: [input_event] = []
        let s = c.stroke
        // As a keyboard sends a chord: the modifiers down together, the key down, the key up, the
        // modifiers up in the reverse order; a report after each step.
        if !s.modifiers.isEmpty {
            for m in s.modifiers { e.append(event(EV_KEY, m, 1)) }
            e.append(syn())
        }
        e.append(event(EV_KEY, s.key, 1)); e.append(syn())
        e.append(event(EV_KEY, s.key, 0)); e.append(syn())
        if !s.modifiers.isEmpty {
            for m in s.modifiers.reversed() { e.append(event(EV_KEY, m, 0)) }
            e.append(syn())
        }
        return e
    }

    // MARK: Click (AC3)

    /// The pointer moves to `p` (window points) and the button is pressed and released `count` times.
    private func click(_ button: PointerButton, count: Int, at p: Point, by a: Actor) {
        var e = move(to: p, device: a.device)
        for _ in 0..<count {
            e.append(event(EV_KEY, button.code, 1)); e.append(syn())
            e.append(event(EV_KEY, button.code, 0)); e.append(syn())
        }
        queue(.pointer, e)
        line(name: a.name, device: a.device, a.time, state: a.state, action: "click") { w in
            w.key("button"); w.string(button.rawValue)
            if count != 1 { w.key("count"); w.int(count) }
            w.key("x"); w.number(p.x)
            w.key("y"); w.number(p.y)
            if let n = a.pencilButton { w.key("pencilButton"); w.int(n) }
        }
    }

    // MARK: Pencil barrel buttons (docs/pens.md)

    /// A barrel button bound in the scene (`"pencilButtons"`) was pressed with the pen at `p` (window
    /// points): a click there, or keys. Its line names the recognizer "pencil" and the state "pressed".
    package func pencilButton(_ button: Int, _ action: Action, at p: Point, device: Int, time: Double) {
        guard !isFailed else { return }
        let a = Actor(name: "pencil", device: device, time: time, state: "pressed", pencilButton: button)
        switch action.kind {
        case .click(let pointer, let count): click(pointer, count: count, at: p, by: a)
        case .keys(let chords): for c in chords { type(c, by: a) }
        case .scroll, .zoom, .touchpad, .value:
            assertionFailure("a pencil button acts with a click or keys only (ActionSchema.readPencilButton)")
        }
    }

    /// The pointer's absolute position for window point `p` of `device`'s touches: the point's place
    /// in the device's region, carried into its `pointerArea` of the desktop (the whole desktop when
    /// none is given), on the pointer's 0…32767 axes.
    package func pointerPosition(_ p: Point, device: Int?) -> (x: Int32, y: Int32) {
        let (region, area) = self.area(device)
        let u = min(1, max(0, (p.x - region.minX) / region.width))
        let v = min(1, max(0, (p.y - region.minY) / region.height))
        let a = area ?? Rect(x: 0, y: 0, width: 1, height: 1)
        let m = Double(ActionDeviceDescription.pointerMaximum)
        return (Int32(((a.minX + u * a.width) * m).rounded()), Int32(((a.minY + v * a.height) * m).rounded()))
    }

    func move(to p: Point, device: Int?) -> [input_event] {
        let (x, y) = pointerPosition(p, device: device)
        return [event(EV_ABS, UInt16(ABS_X), x), event(EV_ABS, UInt16(ABS_Y), y), syn()]
    }

    /// The next coasting tick or touchpad lift, if any.
    package var nextDeadline: Double? {
        var best = nextTouchpadLift
        for b in bindings {
            if case .coasting(_, _, _, _, let next) = b.state, best == nil || next < best! { best = next }
        }
        return best
    }

    /// Coasting ticks due by `time`, each written at its own time (the pipeline calls this at its
    /// deadlines, in order).
    package func advance(to time: Double) {
        lastTime = max(lastTime, time)
        advanceTouchpad(to: time)
        for b in bindings {
            guard case .coasting(let d, let written, var x, var y, let next) = b.state, next <= time else { continue }
            guard let r = b.recognizer, r.isEnabled, case .scroll(let o) = b.action.kind else {
                stopCoasting(b)                 // a disabled recognizer stops coasting
                continue
            }
            // At rest once what is left is under one hi-res unit: the rest of the travel is written
            // now, so a coast moves the content exactly its distance.
            let done = d.isAtRest(at: next, within: 1 / x.unitsPerPoint) || next - d.start > 10
            let offset = done ? d.distance : d.offset(at: next)
            wheel(Point(x: offset.x - written.x, y: offset.y - written.y), o, &x, &y, b, time: next, state: "coasting")
            b.state = done ? .idle : .coasting(d, written: offset, x: x, y: y, next: next + Self.tick)
        }
    }

    /// A finger landed anywhere on the panel: coasting stops, as a touch stops a UIScrollView.
    package func touchBegan() {
        for b in bindings where b.isCoasting { b.state = .idle }
    }

    /// Coasting stops (SIGTERM, SIGHUP, an unplugged device: `device` nil stops every coast).
    public func stopCoasting(device: Int? = nil) {
        for b in bindings where b.isCoasting && (device == nil || b.device == device) { b.state = .idle }
    }

    func stopCoasting(_ b: Binding) {
        if b.isCoasting { b.state = .idle }
    }

    // MARK: Writing

    func event(_ type: Int32, _ code: UInt16, _ value: Int32) -> input_event {
        input_event(time: timeval(), type: UInt16(type), code: code, value: value)
    }

    func syn() -> input_event { event(EV_SYN, UInt16(SYN_REPORT), 0) }

    /// `separate`: a write of its own, which the kernel stamps a little later than the one before
    /// (libinput takes two frames of one timestamp as one moment: the touchpad's landing step, AC9).
    func queue(_ target: Target, _ events: [input_event], separate: Bool = false) {
        guard devices != nil else { return }
        if !separate, let last = writes.last, last.target == target {
            writes[writes.count - 1].events += events
        } else {
            writes.append((target, events))
        }
    }

    /// Writes what the last frame or timer made, then tells it on the `actions` topic. A failed write
    /// turns actions off: the devices are removed (the kernel releases what they hold), the lines
    /// not yet sent are dropped, and `onFailure` says why.
    package func flush() {
        let pending = writes, said = lines, backlight = backlightWrites
        writes = []
        lines = []
        backlightWrites = []
        if let devices, !isFailed {
            for w in pending {
                let sink: MirrorSink
                switch w.target {
                case .keyboard: sink = devices.keyboard
                case .pointer: sink = devices.pointer
                case .touchpad:
                    guard let t = devices.touchpad else { continue }
                    sink = t
                }
                do {
                    try w.events.withUnsafeBufferPointer { try sink.write($0) }
                } catch {
                    fail(error)
                    return
                }
            }
        }
        guard !isFailed else { return }
        if let setBrightness { for (target, v) in backlight { setBrightness(target, v) } }
        for l in said { l.withUnsafeBufferPointer { onLine?($0) } }
    }

    private func fail(_ error: Error) {
        status = .failed
        unbindAll()
        devices?.destroy()
        onFailure?(error)
    }

    private var writer = JSONWriter(capacity: 256)
    /// The latest time seen (frames, timers, actions, commands): when a lift that no frame causes happens.
    var lastTime = 0.0

    /// Time has come to `time` outside a frame (a command that disables recognizers).
    package func clock(_ time: Double) { lastTime = max(lastTime, time) }

    /// An action line (ActionLine) for binding `b`.
    func line(_ b: Binding, _ time: Double, state: StaticString, action: StaticString? = nil,
                      _ fields: (inout JSONWriter) -> Void) {
        line(name: b.name, device: b.device, time, state: state, action: action ?? b.action.name, fields)
    }

    private func line(name: String, device: Int?, _ time: Double, state: StaticString, action: StaticString,
                      _ fields: (inout JSONWriter) -> Void) {
        ActionLine.write(into: &writer, time: time, device: device, recognizer: name, state: state, action: action, fields)
        lines.append(writer.bytes)
    }

    func stateName(_ g: GestureRecognizer) -> StaticString { GestureLine.state(g) }
}
