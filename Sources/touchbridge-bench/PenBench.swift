import TouchClients
import TouchCore
import TouchDaemon
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// What a pen's frame costs next to a finger's (docs/pens.md): the same scene (a canvas with a hover,
/// a pencil pan and a finger pan), the pen paired with the finger panel for palm rejection; each frame
/// from its kernel events through the assembler and the pipeline.
struct PenFigures {
    /// A frame of a pencil stroke (position, pressure and tilt change), of a pencil hovering (position
    /// and distance), and of one finger moving (the pen away).
    var stroke: Double, hover: Double, finger: Double
}

func penBench(log: Logger, rounds: Int) -> PenFigures {
    let scene = try! Scene.parse("""
        {"window": {"width": 1280, "height": 800}, "views": [{"name": "canvas", "frame": [0, 0, 1280, 800], "recognizers": [
          {"name": "near", "type": "hover"},
          {"name": "ink", "type": "pan", "allowedTouchTypes": ["pencil"]},
          {"name": "scroll", "type": "pan", "allowedTouchTypes": ["direct"]}]}]}
        """, file: "bench", systemKeyboard: KeyboardNames())
    let p = Pipeline(scene: scene, log: log)
    p.onLines = { _, _ in }
    p.pairPen(1, withFingers: 0)
    let pen = DeviceDescription.pen(name: "bench pen")           // a Cintiq 13HD's axes
    var penFrames = FrameAssembler(device: pen, mapping: CoordinateMapping(device: pen, target: scene.window.bounds)!, deviceIndex: 1)
    let panel = DeviceDescription.panel(name: "bench panel", slots: 10, width: 4095, height: 4095)
    var fingerFrames = FrameAssembler(device: panel, mapping: CoordinateMapping(device: panel, target: scene.window.bounds)!, deviceIndex: 0)
    var t = 0.0
    func feed(_ a: inout FrameAssembler, _ events: [(UInt16, UInt16, Int32)]) -> Double {
        t += 1.0 / 200
        var batch = events.map { InputEvent(time: t, type: $0.0, code: $0.1, value: $0.2) }
        batch.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        let t0 = now()
        for e in batch { if let f = a.feed(e) { p.handle(f) } }
        return Double(now() - t0)
    }
    let key = EventType.key, abs = EventType.abs
    var stroke: [Double] = [], hover: [Double] = [], finger: [Double] = []
    for _ in 0..<rounds {
        _ = feed(&penFrames, [(key, KeyCode.toolPen, 1), (abs, AbsCode.x, 10000), (abs, AbsCode.y, 10000), (abs, AbsCode.distance, 40)])
        for i in 0..<20 {                                   // hovering nearer
            hover.append(feed(&penFrames, [(abs, AbsCode.x, 10000 + Int32(i) * 40), (abs, AbsCode.distance, 40 - Int32(i))]))
        }
        _ = feed(&penFrames, [(abs, AbsCode.pressure, 400), (key, KeyCode.touch, 1)])
        for i in 0..<40 {                                   // a stroke
            stroke.append(feed(&penFrames, [(abs, AbsCode.x, 10800 + Int32(i) * 60), (abs, AbsCode.pressure, 400 + Int32(i % 8) * 50),
                                            (abs, AbsCode.tiltX, 20 + Int32(i % 3))]))
        }
        _ = feed(&penFrames, [(abs, AbsCode.pressure, 0), (key, KeyCode.touch, 0)])
        _ = feed(&penFrames, [(key, KeyCode.toolPen, 0)])
        t += 0.2                                            // past the palm hold-off
        _ = feed(&fingerFrames, [(abs, AbsCode.mtSlot, 0), (abs, AbsCode.mtTrackingID, 1), (abs, AbsCode.mtPositionX, 1000),
                                 (abs, AbsCode.mtPositionY, 1000), (key, KeyCode.touch, 1)])
        for i in 0..<40 {                                   // a finger panning
            finger.append(feed(&fingerFrames, [(abs, AbsCode.mtPositionX, 1000 + Int32(i) * 30)]))
        }
        _ = feed(&fingerFrames, [(abs, AbsCode.mtTrackingID, -1), (key, KeyCode.touch, 0)])
        t += 0.5
        p.advance(to: t)
    }
    stroke.sort(); hover.sort(); finger.sort()
    return PenFigures(stroke: percentile(stroke, 0.5), hover: percentile(hover, 0.5), finger: percentile(finger, 0.5))
}
