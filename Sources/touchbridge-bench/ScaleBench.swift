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

// Scale: a frame's cost with 70, 350 and 700 recognizers taking part (BENCHMARKS.md).

/// One full-window view with `sets` copies of a seven-recognizer set, every one of which takes part in
/// every touch sequence: a double tap, a tap requiring it to fail, a long press, a pan, a pinch and a
/// rotation simultaneous with everything, and a two-way swipe.
func scaleScene(sets: Int) -> Scene {
    var recs: [String] = []
    for k in 0..<sets {
        let double = TapGestureRecognizer()
        double.numberOfTapsRequired = 2
        let swipe = SwipeGestureRecognizer()
        swipe.direction = [.left, .right]
        recs += [entry(double, "double\(k)"), entry(TapGestureRecognizer(), "tap\(k)", requireToFail: ["double\(k)"]),
                 entry(LongPressGestureRecognizer(), "press\(k)"), entry(PanGestureRecognizer(), "pan\(k)", everyone: true),
                 entry(PinchGestureRecognizer(), "pinch\(k)", everyone: true),
                 entry(RotationGestureRecognizer(), "rotation\(k)", everyone: true), entry(swipe, "swipe\(k)")]
    }
    let text = #"{"window": {"width": 1280, "height": 800}, "views": [{"name": "stage", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": true, "recognizers": [\#(recs.joined(separator: ","))]}]}"#
    return try! Scene.parse(text, file: "scale")
}

/// A ten-finger stream at 240 Hz in which fingers come and go: every 2 s the fingers land one after
/// another (a tap's worth apart), move, and lift one after another, with a one- and two-finger tap
/// between, so that every kind of recognizer sees its gestures begin, wait and fail.
struct ScalePanel {
    var frame = 0
    var trackingID: Int32 = 1
    var ids = [Int32?](repeating: nil, count: 10)
    var events: [InputEvent] = []

    mutating func next() -> [InputEvent] {
        events.removeAll(keepingCapacity: true)
        let t = Double(frame) / 240
        let phase = frame % 480
        func abs(_ code: UInt16, _ v: Int32) { events.append(InputEvent(time: t, type: EventType.abs, code: code, value: v)) }
        for f in 0..<10 {
            // Finger f is down from frame 12f to 300 + 8f of the cycle; fingers 0 and 1 also tap twice after.
            let down = (phase >= 12 * f && phase < 300 + 8 * f)
                || (f < 2 && ((phase >= 380 && phase < 392) || (phase >= 420 && phase < 432)))
            let slot = Int32(f)
            if down && ids[f] == nil {
                ids[f] = trackingID
                trackingID += 1
                abs(AbsCode.mtSlot, slot)
                abs(AbsCode.mtTrackingID, ids[f]!)
            } else if !down, ids[f] != nil {
                ids[f] = nil
                abs(AbsCode.mtSlot, slot)
                abs(AbsCode.mtTrackingID, -1)
                continue
            }
            guard down else { continue }
            let angle = Double(frame) * 0.02 + Double(f) * 0.6
            let moving = phase < 380
            let x = 2048 + (moving ? 1500 * TouchMath.cos(angle) * (0.3 + 0.06 * Double(f)) : 200 * Double(f))
            let y = 2048 + (moving ? 1500 * TouchMath.sin(angle) * (0.3 + 0.06 * Double(f)) : 0)
            abs(AbsCode.mtSlot, slot)
            abs(AbsCode.mtPositionX, Int32(x))
            abs(AbsCode.mtPositionY, Int32(y))
        }
        events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        frame += 1
        return events
    }
}

/// The median cost of a frame with `sets` × 7 recognizers, over `frames` frames after a warm-up.
func scaleRun(sets: Int, frames: Int, log: Logger, sink: LineSink) -> (median: Double, mean: Double, p99: Double, lines: Int) {
    let scene = scaleScene(sets: sets)
    let p = Pipeline(scene: scene, log: log)
    var count = 0
    p.onLines = { _, bytes in count &+= 1; sink.take(bytes) }
    var a = FrameAssembler(device: SyntheticPanel.device, mapping: CoordinateMapping(device: SyntheticPanel.device, target: scene.window.bounds)!)
    var panel = ScalePanel()
    var t: [Double] = []
    t.reserveCapacity(frames)
    for i in 0..<(frames + 480) {
        let events = panel.next()
        let t0 = now()
        for e in events { if let f = a.feed(e) { p.handle(f) } }
        let dt = Double(now() - t0)
        if i >= 480 { t.append(dt) }                        // the first cycle warms up
    }
    let mean = t.reduce(0, +) / Double(max(1, t.count))
    t.sort()
    return (percentile(t, 0.5), mean, percentile(t, 0.99), count)
}
