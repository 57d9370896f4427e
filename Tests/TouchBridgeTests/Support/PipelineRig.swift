import TouchCore
import CEvdev
import TouchInput
@testable import TouchDaemon
@testable import TouchProtocol
@testable import TouchScene
@testable import TouchSystem

/// One daemon pipeline under test, driven as litest drives libinput: a scene, then verbs with times,
/// then one ordered log to compare.
///
/// Two ways in. The **evdev verbs** (`down`, `move`, `up` on a slot, `frame(t)` to end the frame,
/// `syn` for SYN_DROPPED) speak for device 0, `PipelineRig.panel`, through a `RecordingPlayer` as the
/// kernel's events would arrive (for what the mirror and the slots see). The **contact verbs**
/// (`touch`, `lift`) hand the pipeline a calibrated frame of every contact of a device, as the device
/// monitor does (for what the recognizers see). `advance(to:)` runs the timers.
///
/// Every line the pipeline sends is kept in `lines`; those `describe` names (by default each gesture
/// line as "recognizer state") go to `log`, and `take()` hands out what came since the last look.
class PipelineRig {
    let scene: Scene
    let pipeline: Pipeline
    /// Every line sent, parsed, in order.
    var lines: [JSON] = []
    /// The script's log: one entry per line `describe` names.
    var log: [String] = []
    private let describe: (JSON) -> String?

    /// 800 × 480 device units mapped one to one onto an 800 × 480 window, ten slots.
    static let panel = DeviceDescription.panel(name: "Test Panel", width: 799, height: 479)
    private var player: RecordingPlayer
    private var pending: [InputEvent] = []
    private var nextTrackingID: Int32 = 100
    /// The contacts down per device, by id (the contact verbs).
    private var contacts: [Int: [Int: Point]] = [:]

    /// `touches`, `recognizers`: the pipeline also writes those lines (as for a subscriber of them).
    init(scene: Scene, touches: Bool = false, recognizers: Bool = false,
         describe: @escaping (JSON) -> String? = PipelineRig.gesture) {
        self.scene = scene
        self.describe = describe
        pipeline = Pipeline(scene: scene, log: Logger(program: "test", level: .error))
        pipeline.wantsTouches = touches
        pipeline.wantsRecognizers = recognizers
        player = RecordingPlayer(device: PipelineRig.panel, mapping: CoordinateMapping(device: PipelineRig.panel, target: scene.window.bounds)!)
        pipeline.onLines = { [unowned self] _, bytes in
            for text in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let json = try! JSONParser.parse(String(text))
                lines.append(json)
                if let entry = self.describe(json) { log.append(entry) }
            }
        }
    }

    /// A scene file's text (`passthrough`: every device passes through, as `--passthrough` says).
    convenience init(_ sceneText: String, passthrough: Bool = false, touches: Bool = false, recognizers: Bool = false,
                     describe: @escaping (JSON) -> String? = PipelineRig.gesture) throws {
        self.init(scene: try Scene.parse(sceneText, file: "test scene", passthrough: passthrough, systemKeyboard: KeyboardNames()),
                  touches: touches, recognizers: recognizers, describe: describe)
    }

    /// A gesture line as "recognizer state".
    static func gesture(_ j: JSON) -> String? {
        guard j["event"]?.stringValue == "gesture" else { return nil }
        return "\(j["recognizer"]!.stringValue!) \(j["state"]!.stringValue!)"
    }

    /// What was logged since the last look.
    func take() -> [String] {
        defer { log = [] }
        return log
    }

    /// The lines of `event` sent so far.
    func lines(_ event: String) -> [JSON] { lines.filter { $0["event"]?.stringValue == event } }

    // MARK: evdev verbs (device 0, in device units)

    private func abs(_ code: UInt16, _ v: Int32) { pending.append(InputEvent(time: 0, type: EventType.abs, code: code, value: v)) }

    func down(_ slot: Int32, _ x: Int32, _ y: Int32) {
        abs(AbsCode.mtSlot, slot); abs(AbsCode.mtTrackingID, nextTrackingID); nextTrackingID += 1
        abs(AbsCode.mtPositionX, x); abs(AbsCode.mtPositionY, y)
    }

    func move(_ slot: Int32, _ x: Int32, _ y: Int32) {
        abs(AbsCode.mtSlot, slot); abs(AbsCode.mtPositionX, x); abs(AbsCode.mtPositionY, y)
    }

    func up(_ slot: Int32) { abs(AbsCode.mtSlot, slot); abs(AbsCode.mtTrackingID, -1) }

    /// Ends the frame at `t` (SYN_REPORT) and runs it through the pipeline.
    func frame(_ t: Double) {
        pending.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        for var e in pending {
            e.time = t
            if let f = player.play(e) { pipeline.handle(f) }
        }
        pending = []
    }

    /// An EV_SYN event of its own (SYN_DROPPED) at `t`.
    func syn(_ code: UInt16, at t: Double) {
        if let f = player.play(InputEvent(time: t, type: EventType.syn, code: code, value: 0)) { pipeline.handle(f) }
    }

    // MARK: contact verbs (window points)

    /// Contact `id` of `device` is down at (x, y) at `t`: a frame of every contact of the device.
    func touch(_ id: Int, _ x: Double, _ y: Double, at t: Double, device: Int = 0) {
        contacts[device, default: [:]][id] = Point(x: x, y: y)
        send(device, t)
    }

    /// Several contacts of `device` down where `points` says, in one frame at `t`.
    func touch(_ points: [Int: Point], at t: Double, device: Int = 0) {
        for (id, p) in points { contacts[device, default: [:]][id] = p }
        send(device, t)
    }

    /// Contact `id` of `device` lifts at `t`.
    func lift(_ id: Int, at t: Double, device: Int = 0) {
        contacts[device, default: [:]][id] = nil
        send(device, t)
    }

    /// A tap: contact `id` down at (x, y) at `t`, lifted 50 ms later.
    func tap(_ x: Double, _ y: Double, at t: Double, id: Int = 1, device: Int = 0) {
        touch(id, x, y, at: t, device: device)
        lift(id, at: t + 0.05, device: device)
    }

    /// Every contact of `device` lifts at `t`.
    func liftAll(at t: Double, device: Int = 0) {
        contacts[device] = [:]
        send(device, t)
    }

    private func send(_ device: Int, _ t: Double) {
        let list = (contacts[device] ?? [:]).sorted { $0.key < $1.key }.map { Contact(id: $0.key, location: $0.value) }
        pipeline.handle(DigitizerFrame(device: device, timestamp: t, contacts: list))
    }

    /// A pen (`device`) above (x, y) at `t`, or out of range (nil), with `buttons` held: a frame with
    /// its hover and no contact (the tip is a contact of type pencil).
    func pen(_ p: (Double, Double)?, at t: Double, buttons: PencilButtons = [], device: Int = 1) {
        pipeline.handle(DigitizerFrame(device: device, timestamp: t, contacts: [],
                                       hover: p.map { Hover(location: Point(x: $0.0, y: $0.1)) }, pencilButtons: buttons))
    }

    /// Runs the timers due by `t` (long press, tap count, coasting).
    func advance(to t: Double) { pipeline.advance(to: t) }

    // MARK: The mirror (pass-through)

    /// Device 0's mirror, when it passes through to a `MemorySink`.
    private(set) var memory: MemorySink?
    /// The mirror's ABS_MT_SLOT as the kernel holds it, from one write to the next.
    private var mirrorSlot: Int32 = 0

    /// Device 0 passes through to `sink` (a `MemorySink` the rig reads, by default), the grab held
    /// from `grabbedSince` on (before it, the compositor had the panel).
    func passThrough(to sink: MirrorSink? = nil, grabbedSince: @escaping () -> Double? = { -.infinity }) {
        let s = sink ?? MemorySink()
        memory = s as? MemorySink
        pipeline.addMirror(device: 0, name: "Test Panel", source: PipelineRig.panel, sink: s, grabbedSince: grabbedSince)
    }

    /// What the mirror was written since the last look, one string per touch change:
    /// "@T down SLOT (X,Y)", "@T move SLOT (X,Y)", "@T up SLOT", "@T cancel SLOT" (with "(X,Y)" when
    /// the lift's frame also moved it).
    func mirror() -> [String] {
        guard let memory else { return [] }
        var out: [String] = []
        for write in memory.writes {
            var x: Int32?, y: Int32?, began = false, palm = false, lifted = false
            func note(_ t: Double) {
                let time = "@\((t * 1000).rounded() / 1000)"
                if began { out.append("\(time) down \(mirrorSlot) (\(x ?? -1),\(y ?? -1))") }
                else if lifted {
                    let at = x != nil || y != nil ? " (\(x.map(String.init) ?? "_"),\(y.map(String.init) ?? "_"))" : ""
                    out.append("\(time) \(palm ? "cancel" : "up") \(mirrorSlot)\(at)")
                }
                else if x != nil || y != nil { out.append("\(time) move \(mirrorSlot) (\(x.map(String.init) ?? "_"),\(y.map(String.init) ?? "_"))") }
                x = nil; y = nil; began = false; palm = false; lifted = false
            }
            for e in write {
                switch (e.type, e.code) {
                case (EventType.abs, AbsCode.mtSlot): note(e.time); mirrorSlot = e.value
                case (EventType.abs, AbsCode.mtTrackingID): if e.value >= 0 { began = true } else { lifted = true }
                case (EventType.abs, AbsCode.mtPositionX): x = e.value
                case (EventType.abs, AbsCode.mtPositionY): y = e.value
                case (EventType.abs, AbsCode.mtToolType): palm = e.value == MTToolType.palm
                case (EventType.syn, SynCode.report): note(e.time)
                default: break
                }
            }
        }
        memory.writes = []
        return out
    }
}

/// A mirror that keeps every write: the events of each, in order.
final class MemorySink: MirrorSink {
    var writes: [[InputEvent]] = []
    func write(_ events: UnsafeBufferPointer<input_event>) throws {
        writes.append(events.map { InputEvent(time: Double($0.time.tv_sec) + Double($0.time.tv_usec) / 1e6,
                                              type: $0.type, code: $0.code, value: $0.value) })
    }
}
