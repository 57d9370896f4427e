import TouchClients
import TouchCore
import TouchDaemon
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// What a frame costs when it fires an action, and when it scrolls (README "Actions"), each next to the
/// same frames through the same scene without actions. The action devices are sinks that only count
/// bytes: the figure is ours, not the kernel's write(2).
struct ActionFigures {
    /// A frame in which a swipe is recognized and types ctrl+z: with its action, and without.
    var fire: Double, fireWithout: Double
    /// A frame of a one-finger pan that scrolls (a wheel event each): with its action, and without.
    var scroll: Double, scrollWithout: Double
    /// A frame of a three-finger pan that plays on the touchpad (a touchpad frame and its action line),
    /// and the same pan without the action.
    var touchpad: Double, touchpadWithout: Double
}

func actionBench(log: Logger, rounds: Int) -> ActionFigures {
    let text = """
    {"window": {"width": 1280, "height": 800}, "keyboard": {"layout": "us"}, "views": [
      {"name": "top", "frame": [0, 0, 1280, 400], "recognizers": [
        {"name": "undo", "type": "swipe", "direction": ["right"], "action": {"keys": "ctrl+z"}},
        {"name": "workspaces", "type": "pan", "minimumNumberOfTouches": 3, "maximumNumberOfTouches": 3, "action": {"touchpad": {}}}]},
      {"name": "list", "frame": [0, 400, 1280, 400], "recognizers": [
        {"name": "scroll", "type": "pan", "action": {"scroll": {"deceleration": "none"}}}]}]}
    """
    let keyboard = EncodingSink()
    func pipeline(actions: Bool) -> Pipeline {
        let scene = try! Scene.parse(text, file: "bench", systemKeyboard: KeyboardNames())
        let p = Pipeline(scene: scene, log: log)
        p.onLines = { _, _ in }
        if actions {
            p.startActions(Actions(devices: ActionDevices(keyboard: keyboard, pointer: EncodingSink(), touchpad: EncodingSink()), log: log)) { _ in }
        }
        return p
    }
    /// Times the frames of `strokes` strokes of one finger from `from`, `step` points a frame, `frames`
    /// frames each; `timed(i)` says which frame of a stroke is timed.
    func run(_ p: Pipeline, from: Point, step: Double, frames: Int, fingers: Int = 1, timed: (Int) -> Bool) -> [Double] {
        var t = 0.0, out: [Double] = []
        for _ in 0..<rounds {
            for i in 0...frames {
                let f = DigitizerFrame(timestamp: t, contacts: (0..<fingers).map { k in
                    Contact(id: 1 + k, location: Point(x: from.x + step * Double(i), y: from.y + 60 * Double(k)))
                })
                let t0 = now()
                p.handle(f)
                if timed(i) { out.append(Double(now() - t0)) }
                t += 1.0 / 120
            }
            p.handle(DigitizerFrame(timestamp: t, contacts: []))
            t += 0.5
            p.advance(to: t)
        }
        return out.sorted()
    }
    // The swipe is recognized on its second moving frame (40 pt a frame at 120 Hz: 60 pt, 4800 pt/s).
    let firing = { (i: Int) in i == 2 }
    let fire = run(pipeline(actions: true), from: Point(x: 100, y: 200), step: 30, frames: 4, timed: firing)
    // Each stroke typed ctrl+z once, in the frame timed: eight events of 24 bytes.
    if keyboard.bytes != rounds * 8 * 24 { say("actions: warning: the swipe typed \(keyboard.bytes / 192) times in \(rounds) strokes") }
    let fireWithout = run(pipeline(actions: false), from: Point(x: 100, y: 200), step: 30, frames: 4, timed: firing)
    // Scrolling: 6 pt a frame, every frame after the pan began (past 10 pt) writes the wheel.
    let scrolling = { (i: Int) in i >= 4 }
    let scroll = run(pipeline(actions: true), from: Point(x: 100, y: 600), step: 6, frames: 40, timed: scrolling)
    let scrollWithout = run(pipeline(actions: false), from: Point(x: 100, y: 600), step: 6, frames: 40, timed: scrolling)
    // The touchpad: three fingers 6 pt a frame, every frame after the pan began moves them; the lift
    // waits out its 250 ms before the next stroke (the 0.5 s between strokes).
    let touchpad = run(pipeline(actions: true), from: Point(x: 100, y: 100), step: 6, frames: 40, fingers: 3, timed: scrolling)
    let touchpadWithout = run(pipeline(actions: false), from: Point(x: 100, y: 100), step: 6, frames: 40, fingers: 3, timed: scrolling)
    return ActionFigures(fire: percentile(fire, 0.5), fireWithout: percentile(fireWithout, 0.5),
                         scroll: percentile(scroll, 0.5), scrollWithout: percentile(scrollWithout, 0.5),
                         touchpad: percentile(touchpad, 0.5), touchpadWithout: percentile(touchpadWithout, 0.5))
}
