// The test harness: tests read as scripts. Build a scene, feed timestamped frames, compare one
// ordered log of view callbacks and recognizer actions.
@testable import TouchCore

/// One ordered log shared by every view and recognizer of a scene.
final class Recorder {
    var lines: [String] = []
    func add(_ line: String) { lines.append(line) }
    func take() -> [String] {
        defer { lines = [] }
        return lines
    }
}

/// "#1 #2": the touches of a callback, by identifier.
func ids(_ touches: Set<Touch>) -> String {
    touches.map(\.identifier).sorted().map { "#\($0)" }.joined(separator: " ")
}

/// A view that logs its touch callbacks; with `forwards` it also passes them up the chain (R3).
final class RecordingView: View {
    let recorder: Recorder
    var forwards = false

    init(_ name: String, _ frame: Rect, _ recorder: Recorder) {
        self.recorder = recorder
        super.init(frame: frame)
        self.name = name
    }

    override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        recorder.add("\(name!).began \(ids(touches))")
        if forwards { super.touchesBegan(touches, with: event) }
    }
    override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
        recorder.add("\(name!).moved \(ids(touches))")
        if forwards { super.touchesMoved(touches, with: event) }
    }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
        recorder.add("\(name!).ended \(ids(touches))")
        if forwards { super.touchesEnded(touches, with: event) }
    }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
        recorder.add("\(name!).cancelled \(ids(touches))")
        if forwards { super.touchesCancelled(touches, with: event) }
    }
}

/// A window, its application and a recorder, with helpers to build views and feed frames.
final class Scene {
    let recorder = Recorder()
    let window: Window
    let app: Application
    /// The contacts down now, per device, so that a script only states what changes.
    private var contacts: [Int: [Int: Point]] = [:]
    var transitions: [String] = []

    init(width: Double = 400, height: Double = 400) {
        window = Window(frame: Rect(x: 0, y: 0, width: width, height: height))
        window.name = "window"
        app = Application(window: window)
        app.debugLog = { [unowned self] in self.transitions.append($0) }
    }

    @discardableResult
    func view(_ name: String, _ x: Double, _ y: Double, _ w: Double, _ h: Double, in parent: View? = nil) -> RecordingView {
        let v = RecordingView(name, Rect(x: x, y: y, width: w, height: h), recorder)
        (parent ?? window).addSubview(v)
        return v
    }

    /// Attaches `r` to `view` under `name` and logs every action as "name state".
    @discardableResult
    func attach<R: GestureRecognizer>(_ r: R, _ name: String, to view: View,
                                      detail: ((R) -> String)? = nil) -> R {
        r.name = name
        view.addGestureRecognizer(r)
        r.addTarget { [unowned self, unowned r] _ in
            let extra = detail.map { " " + $0(r) } ?? ""
            self.recorder.add("\(name) \(r.state)\(extra)")
        }
        return r
    }

    /// Puts finger `id` down (or moves it) at (x, y) at time `t`, other fingers unchanged.
    func touch(_ id: Int, _ x: Double, _ y: Double, at t: Double, device: Int = 0) {
        contacts[device, default: [:]][id] = Point(x: x, y: y)
        send(t, device: device)
    }

    /// Moves several fingers at once at time `t`.
    func move(_ fingers: [Int: (Double, Double)], at t: Double, device: Int = 0) {
        for (id, p) in fingers { contacts[device, default: [:]][id] = Point(x: p.0, y: p.1) }
        send(t, device: device)
    }

    /// Lifts the given fingers at time `t`.
    func lift(_ ids: Int..., at t: Double, device: Int = 0) {
        lift(ids, at: t, device: device)
    }

    func lift(_ ids: [Int], at t: Double, device: Int = 0) {
        for id in ids { contacts[device]?[id] = nil }
        send(t, device: device)
    }

    /// Cancels the given fingers at time `t` (palm, device gone).
    func cancel(_ ids: Int..., at t: Double, device: Int = 0) {
        var list = (contacts[device] ?? [:]).sorted { $0.key < $1.key }.map { Contact(id: $0.key, location: $0.value) }
        for i in list.indices where ids.contains(list[i].id) { list[i].isCancelled = true }
        for id in ids { contacts[device]?[id] = nil }
        app.handle(DigitizerFrame(device: device, timestamp: t, contacts: list))
    }

    /// A tap of one finger: down at `t`, up 0.05 s later.
    func tap(_ id: Int, _ x: Double, _ y: Double, at t: Double) {
        touch(id, x, y, at: t)
        lift(id, at: t + 0.05)
    }

    /// Drags finger `id` from its current place by (dx, dy) in `steps` frames `dt` apart, from time `t`.
    func drag(_ id: Int, by dx: Double, _ dy: Double, steps: Int, from t: Double, dt: Double = 0.01) {
        let start = contacts[0]?[id] ?? .zero
        for i in 1...steps {
            let f = Double(i) / Double(steps)
            touch(id, start.x + dx * f, start.y + dy * f, at: t + dt * Double(i))
        }
    }

    func advance(to t: Double) { app.advance(to: t) }

    private func send(_ t: Double, device: Int) {
        let list = (contacts[device] ?? [:]).sorted { $0.key < $1.key }.map { Contact(id: $0.key, location: $0.value) }
        app.handle(DigitizerFrame(device: device, timestamp: t, contacts: list))
    }
}

func approx(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }
func approx(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    approx(a.x, b.x, tolerance) && approx(a.y, b.y, tolerance)
}
func approx(_ a: Rect, _ b: Rect, _ tolerance: Double = 1e-9) -> Bool {
    approx(a.origin, b.origin, tolerance) && approx(a.size.width, b.size.width, tolerance)
        && approx(a.size.height, b.size.height, tolerance)
}
