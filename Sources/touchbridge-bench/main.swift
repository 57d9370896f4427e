// touchbridge-bench: release-mode benchmarks (`make bench`). Not a test: it measures and reports.
// Each figure: warm-up, several runs, median and p99. The last line is one JSON object.
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

let args = CommandLine.arguments
let quick = args.contains("--quick")
let root = args.first { $0.hasPrefix("--root=") }.map { String($0.dropFirst(7)) } ?? "."
/// `--only=pipeline|touch-lines|passthrough|actions|pens|scale|fixtures|hit-test|scene-load|strokes|memory` runs one section (for a profiler); `--pipeline-only` is
/// `--only=pipeline`.
let only: String? = args.contains("--pipeline-only") ? "pipeline"
    : args.first { $0.hasPrefix("--only=") }.map { String($0.dropFirst(7)) }
func runs(_ section: String) -> Bool { only == nil || only == section }

// MARK: 1. The pipeline per frame

let log = Logger(program: "bench", level: .error)
let scene = benchScene()
let pipeline = Pipeline(scene: scene, log: log)
let sink = LineSink()
pipeline.onLines = { _, bytes in sink.take(bytes) }
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
    say("pipeline: \(Int(pipelineMedian)) ns per frame (median of runs), p99 \(Int(pipelineP99)) ns; \(sink.lines) line chunks encoded")
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

// MARK: 1b. Actions: a frame that fires one, a frame that scrolls, each next to the same without actions

var actionFigures: ActionFigures?
if runs("actions") {
    let a = actionBench(log: log, rounds: quick ? 2_000 : 20_000)
    actionFigures = a
    say("actions: a frame that fires a keys action \(Int(a.fire)) ns (the same frame without it \(Int(a.fireWithout)) ns); "
        + "a scrolling frame \(Int(a.scroll)) ns (without scrolling \(Int(a.scrollWithout)) ns); "
        + "a three-finger frame played on the touchpad \(Int(a.touchpad)) ns (without \(Int(a.touchpadWithout)) ns); medians, next to the pipeline's \(Int(pipelineMedian)) ns")
}
if only == "actions" { exit(0) }

// MARK: 1b'. Pens: a pencil's frame next to a finger's

var penFigures: PenFigures?
if runs("pens") {
    let f = penBench(log: log, rounds: quick ? 200 : 2_000)
    penFigures = f
    say("pens: a pencil stroke's frame \(Int(f.stroke)) ns, a hovering frame \(Int(f.hover)) ns, a finger's frame \(Int(f.finger)) ns "
        + "(medians; one scene with a hover, a pencil pan and a finger pan, the pen paired for palm rejection)")
}
if only == "pens" { exit(0) }

// MARK: 1c. Scale: a frame's cost with 70, 350 and 700 recognizers taking part

var scale: [(Int, Double)] = []
if runs("scale") {
    // `--scale-sets=N` runs one size (N sets of seven), for a profiler.
    let one = args.first { $0.hasPrefix("--scale-sets=") }.flatMap { Int($0.dropFirst(13)) }
    for sets in one.map({ [$0] }) ?? [10, 50, 100] {
        let r = scaleRun(sets: sets, frames: quick ? 960 : 4800, log: log, sink: sink)
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
        p.onLines = { _, bytes in sink.take(bytes) }
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

if only == "replay" { replayBench(args: args, log: log, sink: sink) }


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

var sceneLoad: [(Int, Double)] = []
if runs("scene-load") {
    for n in quick ? [1_000, 10_000] : [10_000, 50_000, 100_000] { sceneLoad.append((n, sceneLoadMillis(n))) }
    say("scene load: " + sceneLoad.map { "\($0.0) views \(Int($0.1.rounded())) ms" }.joined(separator: ", ")
        + " (\(format2(sceneLoad.last!.1 / sceneLoad.first!.1)) times the time for \(sceneLoad.last!.0 / sceneLoad.first!.0) times the views)")
}
if only == "scene-load" { exit(0) }

// MARK: 3c. Drawn strokes: accuracy as the $1 paper measured it, the match's time, a frame's cost
// (`--stroke-data=DIR`: bench/strokes.py's templates files; StrokeBench)

var strokeFigures: StrokeBench.Figures?
if let dir = args.first(where: { $0.hasPrefix("--stroke-data=") }).map({ String($0.dropFirst(14)) }), runs("strokes") {
    let f = try StrokeBench.run(dataDirectory: dir, trials: quick ? 10 : 100)
    for t in [1, 3, 5] {
        let a = f.accuracy[t]!
        say("strokes, \(t) template\(t == 1 ? "" : "s") a shape: \(format2(a.mean * 100)) % correct (mean of people and speeds), lowest \(format2(a.lowest * 100)) %; "
            + a.bySpeed.sorted { $0.key < $1.key }.map { "\($0.key) \(format2($0.value * 100)) %" }.joined(separator: ", "))
    }
    for r in f.rejection {
        say("strokes, minimumScore \(format2(r.threshold)): \(format2(r.accepted * 100)) % of strokes recognized correctly; accepted: \(format2(r.falseAccepted * 100)) % of strokes of a shape with no template, \(format2(r.scribbles * 100)) % of scribbles")
    }
    say("strokes: \(format2(f.matchMicroseconds)) µs to match a stroke against 16 × 5 templates (median); a frame of one finger drawing: \(Int(f.strokeFrameNanoseconds)) ns with a stroke recognizer, \(Int(f.panFrameNanoseconds)) ns with a pan")
    strokeFigures = f
}
if only == "strokes" { exit(0) }

// MARK: 4. Memory: after startup, and after ten million frames

let frameTarget = quick ? 200_000 : 10_000_000
var done = 0
// Resident memory after start-up and warm-up (every section above has run): the long run must not add to it.
let rssBefore = rssMiB()
let longStart = now()
while done < frameTarget {
    for _ in 0..<10_000 {
        let events = panel.next()
        for e in events { if let f = assembler.feed(e) { pipeline.handle(f) } }
    }
    done += 10_000
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
if let a = actionFigures {
    w.key("action_fire_ns_per_frame_median"); w.number(a.fire.rounded())
    w.key("action_fire_without_action_ns_per_frame_median"); w.number(a.fireWithout.rounded())
    w.key("action_scroll_ns_per_frame_median"); w.number(a.scroll.rounded())
    w.key("action_scroll_without_action_ns_per_frame_median"); w.number(a.scrollWithout.rounded())
    w.key("action_touchpad_ns_per_frame_median"); w.number(a.touchpad.rounded())
    w.key("action_touchpad_without_action_ns_per_frame_median"); w.number(a.touchpadWithout.rounded())
}
if let f = penFigures {
    w.key("pen_stroke_ns_per_frame_median"); w.number(f.stroke.rounded())
    w.key("pen_hover_ns_per_frame_median"); w.number(f.hover.rounded())
    w.key("pen_finger_ns_per_frame_median"); w.number(f.finger.rounded())
}
w.key("fixture_frames_per_second"); w.number(fixtureFPS.rounded())
if scale.count == 3 {
    w.key("scale_ns_per_frame"); w.beginObject()
    for (n, ns) in scale { w.key(string: String(n)); w.number(ns.rounded()) }
    w.endObject()
    w.key("scale_ratio_700_70"); w.number((scale[2].1 / scale[0].1 * 100).rounded() / 100)
}
w.key("hit_test_ns_median_10k_views"); w.number(hitMedian.rounded())
if let f = strokeFigures {
    w.key("stroke_accuracy_percent"); w.beginObject()
    for t in [1, 3, 5] { w.key(string: String(t)); w.number((f.accuracy[t]!.mean * 10000).rounded() / 100) }
    w.endObject()
    w.key("stroke_match_us_16x5"); w.number((f.matchMicroseconds * 100).rounded() / 100)
    w.key("stroke_frame_ns"); w.number(f.strokeFrameNanoseconds.rounded())
    w.key("pan_frame_ns"); w.number(f.panFrameNanoseconds.rounded())
}
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
    if a.hasPrefix("--tuio-us-per-frame="), let v = Double(a.dropFirst(20)) { w.key("tuio_bridge_us_per_frame"); w.number(v) }
    if a.hasPrefix("--tuio-added-p99-ms="), let v = Double(a.dropFirst(20)) { w.key("tuio_bridge_added_latency_p99_ms"); w.number(v) }
    if a.hasPrefix("--websocket-us-per-frame="), let v = Double(a.dropFirst(25)) { w.key("websocket_bridge_20_clients_us_per_frame"); w.number(v) }
}
w.endObject()
say(w.string)
