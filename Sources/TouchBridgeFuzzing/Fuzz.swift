import CEvdev
import TouchClients
import TouchCore
import TouchDaemon
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// The bodies of the fuzz targets (docs/development.md, "Tests"): each takes any bytes and must neither crash nor
/// break a contract. `fuzz/` runs them under libFuzzer with AddressSanitizer; every input that ever
/// crashed one is kept in `Tests/FuzzRegressions/TARGET/` and run again by the Swift tests.
///
/// - `scene`: the bytes as a scene file (plain and for pass-through); a scene that parses gets a few
///   touches through a pipeline.
/// - `client-line`: the bytes as a line a client sends on the socket; a control command is carried out
///   on the built-in scene's pipeline (a client scene gets a touch, then goes with its connection), and
///   the scene line must read back as a scene file.
/// - `recording`: the bytes as a recording (evemu, evtest text, libinput record's YAML, or E: lines of a
///   known device); one that parses is replayed through the built-in scene.
/// - `websocket`: the bytes as what a client sends `touchbridgectl websocket`: a request head (to its first
///   blank line), through the checks every request passes (Host, method, token) and the upgrade's (the
///   key, the version, Origin, the query); what follows, as WebSocket frames through wslay, with
///   `--control` off (a message closes the connection) and on (a message is a `set` command or refused
///   with a message). Only an admitted request with a loopback Host, the token and an allowed Origin
///   upgrades; the output stays within its bound; a refused client is left closing.
/// - `frames`: the bytes as kernel events of a protocol B, protocol A or single-touch panel, or of a pen
///   and its protocol B finger panel (palm rejection, hover, barrel buttons), through the
///   frame assembler (SYN_DROPPED included) and the whole pipeline with a pass-through mirror. After
///   every frame without a contact no touch is down; every touch's phases are well formed (began once
///   and first, then moves, then ended or cancelled once, last); the mirror's slots begin and end in
///   turn; while a pen is in range no finger of its panel is down (PR2, PR3), and no hover goes on while
///   the pen is away or touching (HV3); and at the end, once the recording is over as an unplugged device
///   is, nothing is under way (`Application.isIdle`) and the mirror has no touch down.
public enum Fuzz {
    public static let targets = ["scene", "client-line", "recording", "frames", "mqtt", "websocket"]

    /// Runs `target` on `data`.
    public static func run(_ target: String, _ data: UnsafeRawBufferPointer) {
        switch target {
        case "scene": scene(data)
        case "client-line": clientLine(data)
        case "recording": recording(data)
        case "frames": frames(data)
        case "mqtt": mqtt(data)
        case "websocket": websocket(data)
        default: preconditionFailure("no fuzz target \(target); the targets are \(targets)")
        }
    }

    static let log = Logger(program: "fuzz", level: .error)

    // MARK: scene

    public static func scene(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        for passthrough in [false, true] {
            let s: Scene
            do { s = try Scene.parse(text, file: "fuzz.json", passthrough: passthrough, systemKeyboard: KeyboardNames()) } catch {
                check(!"\(error)".isEmpty, "a scene error without a message")
                if let e = error as? ConfigErrors {
                    check(e.errors.count >= 2 && e.errors.count <= ConfigErrors.limit, "\(e.errors.count) errors reported together")
                }
                continue
            }
            // A tap and a drag across the window, through every view and recognizer it reaches.
            let p = Pipeline(scene: s, log: log)
            p.wantsTouches = true
            p.onLines = { _, _ in }
            // Its actions too, written to devices that check that nothing stays pressed (AC8).
            let keyboard = HeldKeys(), pointer = HeldKeys(), touchpad = HeldKeys()
            p.startActions(Actions(devices: ActionDevices(keyboard: keyboard, pointer: pointer, touchpad: touchpad), log: log)) { _ in }
            let w = s.window.bounds
            for (i, f) in [(0.2, 0.2), (0.5, 0.5), (0.8, 0.6), (0.99, 0.99)].enumerated() {
                let point = Point(x: w.minX + w.width * f.0, y: w.minY + w.height * f.1)
                p.handle(DigitizerFrame(timestamp: Double(i) * 0.05, contacts: [Contact(id: 1, location: point)]))
            }
            p.handle(DigitizerFrame(timestamp: 0.2, contacts: []))
            p.finish()
            check(p.application.isIdle, "a scene left something under way after every finger lifted")
            check(keyboard.held.isEmpty && pointer.held.isEmpty, "an action left keys or buttons down: \(keyboard.held) \(pointer.held)")
            check(touchpad.held.isEmpty, "the touchpad was left with fingers down: \(touchpad.held)")
            check(p.nextDeadline == nil, "a coast went on after finish()")
        }
    }

    /// An action device that keeps which keys and buttons are down after each write.
    final class HeldKeys: MirrorSink {
        var held: Set<UInt16> = []
        func write(_ events: UnsafeBufferPointer<input_event>) throws {
            for e in events where e.type == EventType.key {
                if e.value != 0 { held.insert(e.code) } else { held.remove(e.code) }
            }
        }
    }

    // MARK: client-line

    public static func clientLine(_ data: UnsafeRawBufferPointer) {
        let command: ClientCommand?
        do throws(ClientCommand.Refusal) {
            command = try ClientCommand.parse(Array(data))
        } catch {
            check(!error.message.isEmpty, "a refused client line without a message")
            return
        }
        let pipeline: Pipeline
        switch command {
        case .setRecognizers(let patterns, let enabled)?:
            pipeline = Pipeline(scene: Scene.builtIn(), log: log)
            do throws(ClientCommand.Refusal) {
                try pipeline.setEnabled(patterns: patterns, enabled: enabled, at: 0)
            } catch {
                check(!error.message.isEmpty, "a refused set without a message")
                return
            }
        case .scene(let name, let views)?:
            pipeline = Pipeline(scene: Scene.builtIn(), log: log)
            do throws(ClientCommand.Refusal) {
                try pipeline.setClientScene(connection: 1, name: name, views: views, at: 0)
            } catch {
                check(!error.message.isEmpty, "a refused scene without a message")
                return
            }
            pipeline.handle(DigitizerFrame(timestamp: 1, contacts: [Contact(id: 1, location: Point(x: 100, y: 100))]))
        case .setDisplay(let on)?:
            // A tap before, and one after, the display's change: the first passes; with the display off
            // the second is swallowed and the scene stays idle.
            pipeline = Pipeline(scene: Scene.builtIn(), log: log)
            var gestures = 0
            pipeline.onLines = { topic, _ in if topic == .gestures { gestures += 1 } }
            pipeline.setDisplay(on: !on, at: 0)
            pipeline.setDisplay(on: on, at: 0.5)
            pipeline.handle(DigitizerFrame(timestamp: 2, contacts: [Contact(id: 1, location: Point(x: 100, y: 100))]))
            pipeline.handle(DigitizerFrame(timestamp: 2.05, contacts: []))
            pipeline.finish()
            check(on || gestures == 0, "a touch reached a recognizer while the display was off")
            check(pipeline.application.isIdle, "a swallowed sequence left a touch down")
        default:
            return
        }
        let line = pipeline.sceneLine()
        var parser = JSONParser(bytes: line)
        guard let json = try? parser.parse(), let scene = json["scene"] else {
            return check(false, "the scene line is not JSON: \(String(decoding: line, as: UTF8.self))")
        }
        var w = JSONWriter()
        w.value(scene)
        do {
            _ = try Scene.parse(String(decoding: w.bytes, as: UTF8.self), file: "scene line")
        } catch {
            check(false, "the scene line does not read back as a scene file: \(error)")
        }
        pipeline.removeClientScenes(of: 1, at: 1.1)
        pipeline.handle(DigitizerFrame(timestamp: 1.2, contacts: []))
        pipeline.finish()
        check(pipeline.application.isIdle, "a recognizer is still under way after the client scene went and the finger lifted")
    }

    // MARK: recording

    public static func recording(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        var parsed: [Recording] = []
        if let r = try? Recording.parse(text, file: "fuzz") { parsed.append(r) }
        if let r = try? Recording.parse(text, file: "fuzz", description: Device.slots) { parsed.append(r) }
        for r in parsed where r.events.count < 20_000 {
            do {
                try OfflineReplay.play(r, scene: nil, options: OfflineReplay.Options(topics: [.gestures, .touches]), log: log) { _ in }
            } catch {
                check(!"\(error)".isEmpty, "a replay error without a message")
            }
        }
    }

    // MARK: frames

    /// The panels the `frames` target plays events of.
    enum Device {
        static var slots: DeviceDescription {
            .panel(name: "fuzz protocol B", resolution: 16, pressure: true, touchMajor: true, toolType: true,
                   singleTouchAxes: true)
        }

        static var anonymous: DeviceDescription {
            var d = DeviceDescription(name: "fuzz protocol A")
            d.properties = [InputProperty.direct]
            d.codes[EventType.key] = [KeyCode.touch]
            d.addAbs(AbsCode.mtPositionX, AbsInfo(minimum: 0, maximum: 4095))
            d.addAbs(AbsCode.mtPositionY, AbsInfo(minimum: 0, maximum: 4095))
            d.addAbs(AbsCode.mtTrackingID, AbsInfo(minimum: 0, maximum: 255))
            return d
        }

        /// A display pen: pressure, distance, tilt (units per radian), the eraser and two barrel buttons.
        static var pen: DeviceDescription {
            .pen(name: "fuzz pen", x: 0...4095, y: 0...4095, resolution: 20)
        }

        static var single: DeviceDescription {
            var d = DeviceDescription(name: "fuzz single touch")
            d.codes[EventType.key] = [KeyCode.touch]
            d.addAbs(AbsCode.x, AbsInfo(minimum: 0, maximum: 1023))
            d.addAbs(AbsCode.y, AbsInfo(minimum: 0, maximum: 1023))
            d.addAbs(AbsCode.pressure, AbsInfo(minimum: 0, maximum: 255))
            return d
        }
    }

    /// Checks the mirror's frames: a slot's tracking id goes from −1 to an id and back, never twice.
    final class MirrorCheck: MirrorSink {
        var active = Set<Int32>()
        var slot: Int32 = 0
        func write(_ events: UnsafeBufferPointer<input_event>) throws {
            check(events.last.map { $0.type == UInt16(EV_SYN) && $0.code == UInt16(SYN_REPORT) } ?? false,
                  "a mirror write that does not end with SYN_REPORT")
            for e in events where e.type == UInt16(EV_ABS) {
                if e.code == UInt16(ABS_MT_SLOT) { slot = e.value }
                if e.code == UInt16(ABS_MT_TRACKING_ID) {
                    if e.value >= 0 {
                        check(active.insert(slot).inserted, "the mirror began a touch in slot \(slot), which had one")
                    } else {
                        check(active.remove(slot) != nil, "the mirror ended a touch in slot \(slot), which had none")
                    }
                }
            }
        }
    }

    /// A panel's pipeline, kept from one input to the next: a scene costs more to build than most
    /// inputs cost to run. Each input starts where the last one left everything idle (checked), 100 s
    /// later, so that nothing of the last one (a tap count, a timer) reaches into it.
    final class FramesRig {
        let device: DeviceDescription
        let scene: Scene
        let pipeline: Pipeline
        let mirror = MirrorCheck()
        /// Touch id → the last phase its lines said, for the current input.
        var phases: [Int: Phase] = [:]
        var start = 1.0

        /// With a pen: the pen is device 1, paired with the panel (device 0), and the scene has a hover
        /// and a pencil pan beside the built-in scene's finger recognizers.
        let pen: DeviceDescription?
        let hover: HoverGestureRecognizer?

        init(device: DeviceDescription, pen: DeviceDescription? = nil) {
            self.device = device
            self.pen = pen
            if pen != nil {
                scene = try! Scene.parse("""
                    {"window": {"width": 1280, "height": 800}, "views": [{"name": "canvas", "frame": [0, 0, 1280, 800], "recognizers": [
                      {"name": "near", "type": "hover"}, {"name": "ink", "type": "pan", "allowedTouchTypes": ["pencil"]},
                      {"name": "scroll", "type": "pan", "allowedTouchTypes": ["direct"]}, {"name": "tap", "type": "tap"}]}]}
                    """, file: "fuzz pens", passthrough: true, systemKeyboard: KeyboardNames())
                hover = scene.recognizers.compactMap { $0 as? HoverGestureRecognizer }.first
            } else {
                scene = Scene.builtIn(for: device, passthrough: true)
                hover = nil
            }
            pipeline = Pipeline(scene: scene, log: Fuzz.log)
            pipeline.wantsTouches = true
            pipeline.addMirror(device: 0, name: device.name, source: device, sink: mirror)
            if pen != nil {
                pipeline.setDeviceConfig(DeviceConfig(), device: 0)
                pipeline.setDeviceConfig(DeviceConfig(), device: 1)
                pipeline.pairPen(1, withFingers: 0)
            }
            pipeline.onLines = { [unowned self] topic, bytes in
                guard topic == .touches else { return }
                var start = 0
                for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0a {
                    let line = UnsafeBufferPointer(rebasing: bytes[start..<i])
                    start = i + 1
                    guard let (id, phase) = touchLine(line) else {
                        check(false, "a touch line without an id and a phase: \(String(decoding: line, as: UTF8.self))")
                        continue
                    }
                    let last = self.phases[id]
                    switch phase {
                    case .began: check(last == nil, "touch \(id) began again after \(String(describing: last))")
                    case .moved, .stationary, .ended, .cancelled:
                        check(last == .began || last == .moved || last == .stationary, "touch \(id) \(phase) after \(String(describing: last))")
                    }
                    self.phases[id] = phase
                }
            }
        }
    }

    nonisolated(unsafe) static var rigs: [Int: FramesRig] = [:]

    /// Each event is 6 bytes: a kind (EV_SYN, EV_ABS, EV_KEY: the byte modulo 3), a code (for EV_KEY, the
    /// low byte of a BTN_* code), a 16-bit value (little-endian), a time step in milliseconds, and a
    /// byte whose low bit, with a pen, says which device the event is of (1: the pen); the first byte
    /// picks the panel (modulo 4: protocol B, protocol A, single touch, a pen and a protocol B panel).
    public static func frames(_ data: UnsafeRawBufferPointer) {
        guard data.count >= 1 else { return }
        let kind = Int(data[0]) % 4
        let rig = rigs[kind] ?? (kind == 3 ? FramesRig(device: Device.slots, pen: Device.pen)
                                           : FramesRig(device: [Device.slots, Device.anonymous, Device.single][kind]))
        rigs[kind] = rig
        let pipeline = rig.pipeline
        rig.phases.removeAll(keepingCapacity: true)
        var player = RecordingPlayer(device: rig.device,
                                     mapping: CoordinateMapping(device: rig.device, target: rig.scene.window.bounds)!)
        var penPlayer = rig.pen.map {
            RecordingPlayer(device: $0, mapping: CoordinateMapping(device: $0, target: rig.scene.window.bounds)!, deviceIndex: 1)
        }
        var penInRange = false
        var time = rig.start
        var i = 1
        while i + 6 <= data.count {
            let kind = data[i] % 3, code = data[i + 1]
            let value = Int32(Int16(bitPattern: UInt16(data[i + 2]) | UInt16(data[i + 3]) << 8))
            time += Double(data[i + 4] % 64) / 1000
            let toPen = penPlayer != nil && data[i + 5] & 1 == 1
            i += 6
            let e: InputEvent
            switch kind {
            case 0: e = InputEvent(time: time, type: EventType.syn, code: UInt16(code % 4), value: 0)
            case 1: e = InputEvent(time: time, type: EventType.abs, code: UInt16(code % 0x40), value: value)
            default:                                // BTN_* (0x100 + code): BTN_TOUCH, the BTN_TOOL_* bits …
                e = InputEvent(time: time, type: EventType.key, code: 0x100 + UInt16(code), value: value & 1)
            }
            if toPen {
                guard let frame = penPlayer!.play(e) else { continue }
                pipeline.handle(frame)
                penInRange = frame.pencilInRange
                if frame.contacts.allSatisfy(\.isCancelled) {
                    check(!pipeline.application.activeTouches.contains { $0.device == 1 }, "a pencil touch is down after a frame without its tip")
                }
                if frame.hover == nil {
                    check(!(rig.hover.map { $0.state == .began || $0.state == .changed } ?? false), "a hover goes on with the pen away or touching (HV3)")
                }
            } else {
                guard let frame = player.play(e) else { continue }
                pipeline.handle(frame)
                if !frame.contacts.contains(where: { !$0.isCancelled }) {
                    check(!pipeline.application.activeTouches.contains { $0.device == 0 }, "a touch is down after a frame without contacts")
                }
            }
            if penInRange {
                check(!pipeline.application.activeTouches.contains { $0.device == 0 }, "a finger is down while the pen is near (PR2, PR3)")
            }
        }
        // The end of the recording is the devices going away.
        pipeline.finish()
        pipeline.handle(player.cancelAll(at: pipeline.currentTime))
        if penPlayer != nil { pipeline.handle(penPlayer!.cancelAll(at: pipeline.currentTime)) }
        pipeline.finish()
        check(pipeline.application.isIdle, "something is under way after the device went away")
        check(rig.phases.values.allSatisfy(\.isTerminal), "a touch never ended: \(rig.phases)")
        check(pipeline.passthrough?.isNeutral(device: 0) ?? true, "a touch is left down on the mirror")
        check(rig.mirror.active.isEmpty, "the mirror's slots \(rig.mirror.active.sorted()) were left down")
        rig.start = pipeline.currentTime + 100
    }

    typealias Phase = Touch.Phase

    /// A touch line's id and phase, read off its bytes (`..."id":N,"phase":"P",...`, as the pipeline
    /// writes them): a JSON parse of every line would cost most of a run.
    static func touchLine(_ line: UnsafeBufferPointer<UInt8>) -> (Int, Phase)? {
        func find(_ key: String) -> Int? {
            let k = Array(key.utf8)
            guard line.count >= k.count else { return nil }
            for i in 0...(line.count - k.count) where line[i] == k[0] {
                var j = 1
                while j < k.count && line[i + j] == k[j] { j += 1 }
                if j == k.count { return i + k.count }
            }
            return nil
        }
        guard var i = find("\"id\":"), let p = find("\"phase\":\"") else { return nil }
        var id = 0
        while i < line.count, line[i] >= 0x30, line[i] <= 0x39 { id = id * 10 + Int(line[i] - 0x30); i += 1 }
        let phases: [(String, Phase)] = [("began", .began), ("moved", .moved), ("stationary", .stationary),
                                         ("ended", .ended), ("cancelled", .cancelled)]
        for (name, phase) in phases where line.count >= p + name.utf8.count
            && zip(name.utf8, line[p...]).allSatisfy({ $0 == $1 }) { return (id, phase) }
        return nil
    }

    /// A broken contract: a crash, with the contract, for libFuzzer to keep the input.
    static func check(_ condition: @autoclosure () -> Bool, _ contract: @autoclosure () -> String) {
        if !condition() { fatalError("fuzz: \(contract())") }
    }
}
