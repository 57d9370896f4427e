// touchbridge-bench: release-mode benchmarks (`make bench`). Not a test: it measures and reports.
// Each figure: warm-up, several runs, median and p99. The last line is one JSON object.
import CEvdev
import CLinux
import Glibc
import TouchBridge
import TouchCore
import TouchInput

func now() -> UInt64 { MonotonicClock.nanoseconds() }

func format2(_ v: Double) -> String { String((v * 100).rounded() / 100) }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func rssMiB() -> Double {
    guard let text = try? Files.readText("/proc/self/status") else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) } ?? 0
        return kb / 1024
    }
    return 0
}

func say(_ s: String) {
    print(s)
    fflush(nil)
}

let args = CommandLine.arguments
let quick = args.contains("--quick")
let root = args.first { $0.hasPrefix("--root=") }.map { String($0.dropFirst(7)) } ?? "."
/// `--only=pipeline|touch-lines|passthrough|scale|fixtures|hit-test|scene-load|memory` runs one section (for a profiler); `--pipeline-only` is
/// `--only=pipeline`.
let only: String? = args.contains("--pipeline-only") ? "pipeline"
    : args.first { $0.hasPrefix("--only=") }.map { String($0.dropFirst(7)) }
func runs(_ section: String) -> Bool { only == nil || only == section }

// MARK: Scene: 1,000 views, 32 recognizers

/// A 40 × 25 grid of cells (1,000 views with the container) on a 1280 × 800 window; 32 recognizers.
func benchScene() -> Scene {
    var views: [String] = []
    var recs: [String] = [
        #"{"name": "pan", "type": "pan", "simultaneousWith": "*"}"#,
        #"{"name": "pinch", "type": "pinch", "simultaneousWith": "*"}"#,
        #"{"name": "rotation", "type": "rotation", "simultaneousWith": "*"}"#,
        #"{"name": "press", "type": "longPress", "simultaneousWith": "*"}"#,
        #"{"name": "swipe", "type": "swipe", "direction": ["left", "right"], "simultaneousWith": "*"}"#,
        #"{"name": "edge", "type": "screenEdgePan", "edges": ["left"], "simultaneousWith": "*"}"#,
        #"{"name": "tap2", "type": "tap", "numberOfTouchesRequired": 2}"#,
        #"{"name": "double", "type": "tap", "numberOfTapsRequired": 2}"#,
    ]
    var cellCount = 0
    for row in 0..<25 {
        for col in 0..<40 where cellCount < 999 {
            var cell = #"{"name": "cell\#(cellCount)", "frame": [\#(col * 32), \#(row * 32), 32, 32]"#
            if cellCount % 42 == 0 && recs.count < 32 {
                cell += #", "recognizers": [{"name": "tap\#(cellCount)", "type": "tap"}]"#
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

// MARK: 1. The pipeline per frame

let log = Logger(program: "bench", level: .error)
let scene = benchScene()
let pipeline = Pipeline(scene: scene, log: log)
var output: [UInt8] = []
output.reserveCapacity(1 << 20)
var lines = 0
pipeline.onLines = { _, bytes in
    output.append(contentsOf: bytes)
    output.append(0x0a)
    lines += 1
    if output.count > 1 << 19 { output.removeAll(keepingCapacity: true) }
}
var assembler = FrameAssembler(device: SyntheticPanel.device,
                               mapping: CoordinateMapping(device: SyntheticPanel.device, target: scene.window.bounds)!)
var panel = SyntheticPanel()

@MainActor func runFrames(_ n: Int, timings: inout [Double]) {
    for _ in 0..<n {
        let events = panel.next()
        let t0 = now()
        for e in events {
            if let f = assembler.feed(e) { pipeline.handle(f) }
        }
        timings.append(Double(now() - t0))
    }
}

say("scene: \(scene.views.count) views, \(scene.recognizers.count) recognizers; 10 fingers at 240 Hz")
var warm: [Double] = []
if runs("pipeline") { runFrames(quick ? 2_000 : 20_000, timings: &warm) }
let rssStart = rssMiB()
var medians: [Double] = [], p99s: [Double] = []
for run in 0..<(runs("pipeline") ? 5 : 0) {
    var t: [Double] = []
    t.reserveCapacity(50_000)
    runFrames(quick ? 5_000 : 48_000, timings: &t)
    t.sort()
    medians.append(percentile(t, 0.5))
    p99s.append(percentile(t, 0.99))
    say("pipeline run \(run + 1): median \(Int(percentile(t, 0.5))) ns/frame, p99 \(Int(percentile(t, 0.99))) ns")
}
medians.sort(); p99s.sort()
let pipelineMedian = percentile(medians, 0.5), pipelineP99 = percentile(p99s, 0.5)
if runs("pipeline") {
    say("pipeline: \(Int(pipelineMedian)) ns per frame (median of runs), p99 \(Int(pipelineP99)) ns; \(lines) line chunks encoded")
}
if only == "pipeline" { exit(0) }
if only == "touch-lines" { runFrames(quick ? 2_000 : 20_000, timings: &warm) }       // its warm-up

// The same with touch lines on (a client subscribed to touches).
pipeline.wantsTouches = true
var touchTimes: [Double] = []
if runs("touch-lines") {
    runFrames(quick ? 2_000 : 24_000, timings: &touchTimes)
    touchTimes.sort()
    say("pipeline with touch lines: median \(Int(percentile(touchTimes, 0.5))) ns/frame, p99 \(Int(percentile(touchTimes, 0.99))) ns")
}
pipeline.wantsTouches = false
if only == "touch-lines" { exit(0) }

// The pass-through path: the same fingers through the built-in pass-through scene (all of them
// reach the mirror), from the kernel's events to the mirror's bytes in the kernel's layout, handed to
// the sink for the frame's one write(2) (not made here: the figure is ours, not the kernel's).
final class EncodingSink: MirrorSink {
    var bytes = 0
    func write(_ events: UnsafeBufferPointer<input_event>) throws { bytes &+= UnsafeRawBufferPointer(events).count }
}
let passthroughScene = Scene.builtIn(size: Size(width: 1280, height: 800), passthrough: true)
let passthroughPipeline = Pipeline(scene: passthroughScene, log: log)
passthroughPipeline.onLines = pipeline.onLines
let mirrorSink = EncodingSink()
passthroughPipeline.addMirror(device: 0, name: "bench panel", source: SyntheticPanel.device, sink: mirrorSink)
var passthroughAssembler = FrameAssembler(device: SyntheticPanel.device,
                                          mapping: CoordinateMapping(device: SyntheticPanel.device, target: passthroughScene.window.bounds)!)
var passthroughTimes: [Double] = []
if runs("passthrough") {
    for run in 0..<(quick ? 2 : 6) {
        var t: [Double] = []
        for _ in 0..<(quick ? 3_000 : 24_000) {
            let events = panel.next()
            let t0 = now()
            for e in events { if let f = passthroughAssembler.feed(e) { passthroughPipeline.handle(f) } }
            t.append(Double(now() - t0))
        }
        if run > 0 { passthroughTimes.append(contentsOf: t) }     // the first run warms up
    }
    passthroughTimes.sort()
    say("pass-through: median \(Int(percentile(passthroughTimes, 0.5))) ns/frame, p99 \(Int(percentile(passthroughTimes, 0.99))) ns "
        + "(frame → mirror bytes; \(mirrorSink.bytes / max(1, passthroughTimes.count)) bytes a frame)")
}
if only == "passthrough" { exit(0) }

// MARK: 1c. Scale: a frame's cost with 70, 350 and 700 recognizers taking part

/// One full-window view with `sets` copies of a seven-recognizer set, every one of which takes part in
/// every touch sequence: a double tap, a tap requiring it to fail, a long press, a pan, a pinch and a
/// rotation simultaneous with everything, and a two-way swipe.
func scaleScene(sets: Int) -> Scene {
    var recs: [String] = []
    for k in 0..<sets {
        recs.append(#"{"name": "double\#(k)", "type": "tap", "numberOfTapsRequired": 2}"#)
        recs.append(#"{"name": "tap\#(k)", "type": "tap", "requireToFail": ["double\#(k)"]}"#)
        recs.append(#"{"name": "press\#(k)", "type": "longPress"}"#)
        recs.append(#"{"name": "pan\#(k)", "type": "pan", "simultaneousWith": "*"}"#)
        recs.append(#"{"name": "pinch\#(k)", "type": "pinch", "simultaneousWith": "*"}"#)
        recs.append(#"{"name": "rotation\#(k)", "type": "rotation", "simultaneousWith": "*"}"#)
        recs.append(#"{"name": "swipe\#(k)", "type": "swipe", "direction": ["left", "right"]}"#)
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
@MainActor func scaleRun(sets: Int, frames: Int) -> (median: Double, mean: Double, p99: Double, lines: Int) {
    let scene = scaleScene(sets: sets)
    let p = Pipeline(scene: scene, log: log)
    var count = 0
    p.onLines = { _, bytes in count &+= 1; output.append(contentsOf: bytes); if output.count > 1 << 19 { output.removeAll(keepingCapacity: true) } }
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
var scale: [(Int, Double)] = []
if runs("scale") {
    // `--scale-sets=N` runs one size (N sets of seven), for a profiler.
    let one = args.first { $0.hasPrefix("--scale-sets=") }.flatMap { Int($0.dropFirst(13)) }
    for sets in one.map({ [$0] }) ?? [10, 50, 100] {
        let r = scaleRun(sets: sets, frames: quick ? 960 : 4800)
        scale.append((sets * 7, r.median))
        say("scale: \(sets * 7) recognizers taking part, median \(Int(r.median)) ns/frame, mean \(Int(r.mean)), p99 \(Int(r.p99)) (\(r.lines) lines)")
    }
    if scale.count == 3 { say("scale: 700/70 = \(format2(scale[2].1 / scale[0].1))") }
}
if only == "scale" { exit(0) }

// MARK: 2. Fixture recordings, frames per second

var fixtureFrames = 0
var fixtureNanos: UInt64 = 0
let fixtureDir = root + "/Tests/Fixtures"
var recordings: [Recording] = []
for name in ["evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu", "evemu-devices__atmel-maxtouch-ts__1fg-drag-up-down.evemu",
             "evemu-devices__atmel-maxtouch-ts__2fg-press-hold-release.evemu", "evemu-devices__atmel-maxtouch-ts__4fg-swipe-down.evemu",
             "evemu-devices__ep0430m09-ts__1fg-drag-up-down.evemu", "evemu-devices__ep0430m09-ts__2fg-press-release.evemu",
             "evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu", "evemu-devices__ep0430m09-ts__4fg-swipe-down.evemu",
             "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events", "evemu-devices__ntrig-protocolA-ts__2fg-press-release.events",
             "evemu-devices__quanta-optical-ts__1fg-9-touches-drags.events", "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-circle.events",
             "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-scroll-down.events", "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-swipe-right.events",
             "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-tap.events", "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-circle.events",
             "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-scroll-down.events", "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-swipe-right.events",
             "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events"] {
    if let r = try? Recording.load(path: fixtureDir + "/" + name) { recordings.append(r) }
}
var fpsRuns: [Double] = []
for run in 0..<(runs("fixtures") ? (quick ? 3 : 21) : 0) {
    // Scenes and players are made before the clock starts: the figure is the pipeline's.
    var prepared: [(Pipeline, RecordingPlayer, Recording)] = []
    for r in recordings {
        let p = Pipeline(scene: Scene.builtIn(for: r.device), log: log)
        p.onLines = { _, bytes in output.append(contentsOf: bytes); if output.count > 1 << 19 { output.removeAll(keepingCapacity: true) } }
        prepared.append((p, RecordingPlayer(device: r.device, mapping: CoordinateMapping(device: r.device, target: p.scene.window.bounds)!), r))
    }
    var frames = 0
    let t0 = now()
    for i in prepared.indices {
        let p = prepared[i].0
        for e in prepared[i].2.events {
            if let f = prepared[i].1.play(e) { p.handle(f); frames += 1 }
        }
        p.finish()
    }
    let dt = Double(now() - t0)
    if run > 0 { fpsRuns.append(Double(frames) / (dt / 1e9)) }         // run 0 is the warm-up
    fixtureFrames = frames
    fixtureNanos = UInt64(dt)
}
fpsRuns.sort()
let fixtureFPS = percentile(fpsRuns, 0.5)
if runs("fixtures") { say("fixtures: \(recordings.count) recordings, \(fixtureFrames) frames, \(Int(fixtureFPS)) frames/s (median of runs; event parsing and scene building not timed)") }
if only == "fixtures" { exit(0) }

// MARK: 2b. One recording, paced as a panel sends it (a profiler's view of the lab's stream)

/// `--only=replay --recording=PATH [--desc=PATH] [--repeat=N]`: the recording's frames, one every
/// 1/240 s, played `repeat` times (default 20) through the frame assembler and one pipeline with the
/// built-in scene and lines for every topic, as the daemon runs them for a client on gestures and
/// touches. Not part of the JSON summary: it is the lab's CPU stream measured natively (or under
/// `qemu-x86_64`, whose emulation costs resemble the lab's).
///
/// For taking the lab's figure apart inside its guest (BENCHMARKS.md, "What dominates under emulation"):
/// `--sleep-ns=N` sleeps N ns after each frame, so that every frame starts cold as it does in the
/// daemon after epoll_wait (0: frames back to back, warm); `--work=assembler` stops after the frame
/// assembler, `--work=none` does only the loop; `--no-lines` and `--no-touch-lines` leave out the lines.
/// It also prints the process's CPU time a frame (user and system).
if only == "replay" {
    guard let path = args.first(where: { $0.hasPrefix("--recording=") }).map({ String($0.dropFirst(12)) }) else {
        say("touchbridge-bench: --only=replay needs --recording=PATH (and --desc=PATH for a .events file)")
        exit(2)
    }
    let desc = args.first { $0.hasPrefix("--desc=") }.map { String($0.dropFirst(7)) }
    let sleepNS = args.first { $0.hasPrefix("--sleep-ns=") }.flatMap { Int($0.dropFirst(11)) } ?? 0
    let work = args.first { $0.hasPrefix("--work=") }.map { String($0.dropFirst(7)) } ?? "all"
    guard ["all", "assembler", "none"].contains(work) else {
        say("touchbridge-bench: --work= takes all, assembler or none")
        exit(2)
    }
    let repeats = args.first { $0.hasPrefix("--repeat=") }.flatMap { Int($0.dropFirst(9)) } ?? 20
    let recording: Recording
    do { recording = try Recording.load(path: path, descriptionPath: desc) } catch {
        say("touchbridge-bench: \(error)")
        exit(1)
    }
    let p = Pipeline(scene: Scene.builtIn(for: recording.device), log: log)
    p.wantsTouches = !args.contains("--no-touch-lines")
    var bytes = 0
    if !args.contains("--no-lines") {
        p.onLines = { _, chunk in
            output.append(contentsOf: chunk)
            output.append(0x0a)
            bytes += chunk.count + 1
            if output.count > 1 << 19 { output.removeAll(keepingCapacity: true) }
        }
    }
    var contactsSeen = 0
    var a = FrameAssembler(device: recording.device,
                           mapping: CoordinateMapping(device: recording.device, target: p.scene.window.bounds)!)
    // The events of every play, paced, made before the clock starts.
    var frame = 0
    var events: [InputEvent] = []
    for _ in 0..<repeats {
        for var e in recording.events where !(e.type == EventType.syn && e.code == SynCode.dropped) {
            e.time = 1 + Double(frame) / 240
            if e.type == EventType.syn && e.code == SynCode.report { frame += 1 }
            events.append(e)
        }
    }
    /// The timed work, as one function (callgrind's `--toggle-collect=*replayPlays*`), fed a frame's
    /// events at a time as the daemon reads them.
    let all = UnsafeMutableBufferPointer<InputEvent>.allocate(capacity: events.count)
    _ = all.initialize(from: events)
    @MainActor @inline(never) func replayPlays() {
        var start = 0
        var pause = timespec(tv_sec: 0, tv_nsec: sleepNS)
        for i in all.indices where all[i].type == EventType.syn && all[i].code == SynCode.report {
            let events = UnsafeBufferPointer(rebasing: all[start...i])
            switch work {
            case "all": a.feed(contentsOf: events) { p.handle($0) }
            case "assembler": a.feed(contentsOf: events) { contactsSeen &+= $0.contacts.count }
            default: break
            }
            start = i + 1
            if sleepNS > 0 { nanosleep(&pause, nil) }
        }
    }
    func cpuMicroseconds() -> Double {
        var r = rusage()
        getrusage(RUSAGE_SELF.rawValue, &r)
        return Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec)
    }
    let t0 = now(), cpu0 = cpuMicroseconds()
    replayPlays()
    let cpuPerFrame = (cpuMicroseconds() - cpu0) * 1000 / Double(max(frame, 1))
    p.finish()
    let perFrame = Double(now() - t0) / Double(max(frame, 1))
    say("replay: \(Int(cpuPerFrame)) ns of CPU a frame (user and system; \(contactsSeen) contacts assembled without a pipeline)")
    say("replay: \(frame) frames (\(repeats) plays of \(path.split(separator: "/").last ?? "")), \(Int(perFrame)) ns a frame, \(bytes) bytes of lines")
    exit(0)
}

// MARK: 3. Hit-testing alone on a 10,000-view tree

let big = View(frame: Rect(x: 0, y: 0, width: 1000, height: 1000))
var count = 1
for i in 0..<100 {
    let column = View(frame: Rect(x: Double(i) * 10, y: 0, width: 10, height: 1000))
    big.addSubview(column)
    count += 1
    for j in 0..<99 {
        let leaf = View(frame: Rect(x: 0, y: Double(j) * 10, width: 10, height: 10))
        column.addSubview(leaf)
        count += 1
    }
}
var hitTimes: [Double] = []
var seed: UInt64 = 7
var hits = 0
for round in 0..<(runs("hit-test") ? (quick ? 3 : 12) : 0) {
    var t: [Double] = []
    for _ in 0..<10_000 {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        let p = Point(x: Double((seed >> 20) % 1000), y: Double((seed >> 40) % 1000))
        let t0 = now()
        if big.hitTest(p, with: nil) != nil { hits += 1 }
        t.append(Double(now() - t0))
    }
    if round > 0 { hitTimes.append(contentsOf: t) }
}
hitTimes.sort()
let hitMedian = percentile(hitTimes, 0.5)
if runs("hit-test") { say("hit-test: \(count) views, median \(Int(hitMedian)) ns, p99 \(Int(percentile(hitTimes, 0.99))) ns (\(hits) hits)") }
if only == "hit-test" { exit(0) }

// MARK: 3b. Loading a scene file: flat views, each with a tap (a kiosk's generated layout)

/// The time to parse and build a scene of `n` flat views, each with one tap recognizer (the best of
/// three), in milliseconds. Loading is linear: names are checked in a table, not against every other.
func sceneLoadMillis(_ n: Int) -> Double {
    var text = "{\"window\": {\"width\": 1000, \"height\": 1000}, \"views\": ["
    for i in 0..<n {
        if i > 0 { text += "," }
        text += "{\"name\": \"v\(i)\", \"frame\": [\((i % 100) * 10), \((i / 100) % 100 * 10), 10, 10], "
            + "\"recognizers\": [{\"type\": \"tap\", \"name\": \"t\(i)\"}]}"
    }
    text += "]}"
    var best = Double.infinity
    for _ in 0..<3 {
        let t0 = now()
        guard let scene = try? Scene.parse(text, file: "bench") else { fatalError("bench: the generated scene does not parse") }
        best = min(best, Double(now() - t0) / 1e6)
        precondition(scene.recognizers.count == n)
    }
    return best
}
var sceneLoad: [(Int, Double)] = []
if runs("scene-load") {
    for n in quick ? [1_000, 10_000] : [10_000, 50_000, 100_000] { sceneLoad.append((n, sceneLoadMillis(n))) }
    say("scene load: " + sceneLoad.map { "\($0.0) views \(Int($0.1.rounded())) ms" }.joined(separator: ", ")
        + " (\(format2(sceneLoad.last!.1 / sceneLoad.first!.1)) times the time for \(sceneLoad.last!.0 / sceneLoad.first!.0) times the views)")
}
if only == "scene-load" { exit(0) }

// MARK: 4. Memory: after startup, and after ten million frames

let frameTarget = quick ? 200_000 : 10_000_000
var done = 0
// Resident memory after start-up and warm-up (every section above has run): the long run must not add to it.
let rssBefore = rssMiB()
var sink: [Double] = []
let longStart = now()
while done < frameTarget {
    for _ in 0..<10_000 {
        let events = panel.next()
        for e in events { if let f = assembler.feed(e) { pipeline.handle(f) } }
    }
    done += 10_000
    sink.removeAll(keepingCapacity: true)
    if done % 2_000_000 == 0 { say("  \(done) frames: resident \(format2(rssMiB())) MiB") }
}
let rssAfter = rssMiB()
say("memory: resident \(String(format2(rssStart))) MiB after start-up, \(String(format2(rssBefore))) MiB after the sections above, \(String(format2(rssAfter))) MiB after \(done) frames (\(Int(Double(now() - longStart) / 1e9)) s)")


var w = JSONWriter()
w.beginObject()
w.key("pipeline_ns_per_frame_median"); w.number(pipelineMedian.rounded())
w.key("pipeline_ns_per_frame_p99"); w.number(pipelineP99.rounded())
w.key("pipeline_with_touch_lines_ns_per_frame_median"); w.number(percentile(touchTimes, 0.5).rounded())
w.key("passthrough_ns_per_frame_median"); w.number(percentile(passthroughTimes, 0.5).rounded())
w.key("passthrough_ns_per_frame_p99"); w.number(percentile(passthroughTimes, 0.99).rounded())
w.key("fixture_frames_per_second"); w.number(fixtureFPS.rounded())
if scale.count == 3 {
    w.key("scale_ns_per_frame"); w.beginObject()
    for (n, ns) in scale { w.key(string: String(n)); w.number(ns.rounded()) }
    w.endObject()
    w.key("scale_ratio_700_70"); w.number((scale[2].1 / scale[0].1 * 100).rounded() / 100)
}
w.key("hit_test_ns_median_10k_views"); w.number(hitMedian.rounded())
if !sceneLoad.isEmpty {
    w.key("scene_load_ms"); w.beginObject()
    for (n, ms) in sceneLoad { w.key(string: String(n)); w.number((ms * 10).rounded() / 10) }
    w.endObject()
}
w.key("rss_mib_start"); w.number((rssBefore * 100).rounded() / 100)
w.key("rss_mib_after_startup_only"); w.number((rssStart * 100).rounded() / 100)
w.key("rss_mib_after"); w.number((rssAfter * 100).rounded() / 100)
w.key("frames_for_rss_after"); w.int(done)
for a in args {
    if a.hasPrefix("--idle-wakeups="), let v = Int(a.dropFirst(15)) { w.key("idle_wakeups_10s"); w.int(v) }
    if a.hasPrefix("--idle-rss="), let v = Double(a.dropFirst(11)) { w.key("idle_rss_mib"); w.number(v) }
}
w.endObject()
say(w.string)
