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

// One recording, paced as a panel sends it (a profiler's view of the lab's stream).

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
func replayBench(args: [String], log: Logger, sink: LineSink) -> Never {
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
            sink.take(chunk)
            bytes += chunk.count + 1
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
    let all = UnsafeMutableBufferPointer<InputEvent>.allocate(capacity: events.count)
    _ = all.initialize(from: events)
    func cpuMicroseconds() -> Double {
        var r = rusage()
        getrusage(RUSAGE_SELF.rawValue, &r)
        return Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec)
    }
    let t0 = now(), cpu0 = cpuMicroseconds()
    replayPlays(all, work: work, sleepNS: sleepNS, assembler: &a, pipeline: p, contactsSeen: &contactsSeen)
    let cpuPerFrame = (cpuMicroseconds() - cpu0) * 1000 / Double(max(frame, 1))
    p.finish()
    let perFrame = Double(now() - t0) / Double(max(frame, 1))
    say("replay: \(Int(cpuPerFrame)) ns of CPU a frame (user and system; \(contactsSeen) contacts assembled without a pipeline)")
    say("replay: \(frame) frames (\(repeats) plays of \(path.split(separator: "/").last ?? "")), \(Int(perFrame)) ns a frame, \(bytes) bytes of lines")
    exit(0)
}

/// The timed work of `--only=replay`, as one function (callgrind's `--toggle-collect='*replayPlays*'`),
/// fed a frame's events at a time as the daemon reads them.
@inline(never)
func replayPlays(_ all: UnsafeMutableBufferPointer<InputEvent>, work: String, sleepNS: Int, assembler a: inout FrameAssembler,
                 pipeline p: Pipeline, contactsSeen: inout Int) {
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
