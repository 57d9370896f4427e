import CEvdev
import CLinux
import Glibc
import TouchClients
import TouchCore
import TouchDaemon
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A scene file's entry for `g`, named `name` (Scene.fileEntry: the keys are the scene schema's).
func entry(_ g: GestureRecognizer, _ name: String, everyone: Bool = false, requireToFail: [String] = []) -> String {
    g.name = name
    return Scene.fileEntry(for: g, requireToFail: requireToFail, simultaneousWithEveryone: everyone)
}

/// A 40 × 25 grid of cells (1,000 views with the container) on a 1280 × 800 window; 32 recognizers.
func benchScene() -> Scene {
    var views: [String] = []
    let swipe = SwipeGestureRecognizer()
    swipe.direction = [.left, .right]
    let edge = ScreenEdgePanGestureRecognizer()
    edge.edges = .left
    let tap2 = TapGestureRecognizer()
    tap2.numberOfTouchesRequired = 2
    let double = TapGestureRecognizer()
    double.numberOfTapsRequired = 2
    var recs: [String] = [
        entry(PanGestureRecognizer(), "pan", everyone: true), entry(PinchGestureRecognizer(), "pinch", everyone: true),
        entry(RotationGestureRecognizer(), "rotation", everyone: true), entry(LongPressGestureRecognizer(), "press", everyone: true),
        entry(swipe, "swipe", everyone: true), entry(edge, "edge", everyone: true), entry(tap2, "tap2"), entry(double, "double"),
    ]
    var cellCount = 0
    for row in 0..<25 {
        for col in 0..<40 where cellCount < 999 {
            var cell = #"{"name": "cell\#(cellCount)", "frame": [\#(col * 32), \#(row * 32), 32, 32]"#
            if cellCount % 42 == 0 && recs.count < 32 {
                cell += #", "recognizers": [\#(entry(TapGestureRecognizer(), "tap\(cellCount)"))]"#
                recs.append("")
            }
            views.append(cell + "}")
            cellCount += 1
        }
    }
    let grid = #"{"name": "grid", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": true, "recognizers": [\#(recs.filter { !$0.isEmpty }.joined(separator: ","))], "subviews": [\#(views.joined(separator: ","))]}"#
    let text = #"{"window": {"width": 1280, "height": 800}, "views": [\#(grid)]}"#
    return try! Scene.parse(text, file: "bench")
}

/// Ten fingers moving in circles at 240 Hz on a protocol B panel (0…4095), lifting and landing again
/// every second: kernel events, as a device would send them.
struct SyntheticPanel {
    static var device: DeviceDescription { .panel(name: "bench panel", pressure: true) }

    var frame = 0
    var trackingID: Int32 = 1
    var events: [InputEvent] = []

    /// The events of the next frame (ending with SYN_REPORT).
    mutating func next() -> [InputEvent] {
        events.removeAll(keepingCapacity: true)
        let t = Double(frame) / 240
        let phase = frame % 240
        for f in 0..<10 {
            let slot = Int32(f)
            events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtSlot, value: slot))
            if phase == 239 {
                events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: -1))
                continue
            }
            if phase == 0 {
                events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: trackingID))
                trackingID += 1
            }
            let angle = Double(frame) * 0.02 + Double(f) * 0.6
            let x = 2048 + 1500 * TouchMath.cos(angle) * (0.3 + 0.07 * Double(f))
            let y = 2048 + 1500 * TouchMath.sin(angle) * (0.3 + 0.07 * Double(f))
            events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: Int32(x)))
            events.append(InputEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: Int32(y)))
        }
        events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        frame += 1
        return events
    }
}

final class EncodingSink: MirrorSink {
    var bytes = 0
    func write(_ events: UnsafeBufferPointer<input_event>) throws { bytes &+= UnsafeRawBufferPointer(events).count }
}
