import Glibc
import TouchCore
import TouchDaemon
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// Drawn gestures (docs/strokes.md), measured as the $1 paper measured its recognizer: on templates
/// files of strokes drawn through the panel path (bench/strokes.py: synthetic people and speeds, each
/// file one person at one speed, every sample of every shape), for each file and each number of
/// templates T, `trials` random splits: T samples of each shape are the templates, the others are
/// recognized against them. Then the rejection a minimumScore gives (out-of-set strokes: a shape whose
/// templates are left out), the match time against 16 × 5 templates, and a stroke's per-frame cost in
/// the pipeline next to a pan's.
enum StrokeBench {
    struct Figures {
        /// T → (mean accuracy over the files, lowest file's, and per speed).
        var accuracy: [Int: (mean: Double, lowest: Double, bySpeed: [String: Double])] = [:]
        /// minimumScore → (in-set strokes recognized correctly, out-of-set strokes accepted, scribbles accepted).
        var rejection: [(threshold: Double, accepted: Double, falseAccepted: Double, scribbles: Double)] = []
        var matchMicroseconds = 0.0
        var strokeFrameNanoseconds = 0.0, panFrameNanoseconds = 0.0
    }

    /// A small deterministic generator (the splits are the same every run).
    struct Generator {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
    }

    static func run(dataDirectory: String, trials: Int) throws -> Figures {
        var files: [(name: String, byShape: [String: [[Point]]])] = []
        for name in try Files.list(dataDirectory) where name.hasSuffix(".json") {
            var byShape: [String: [[Point]]] = [:]
            for d in try StrokeTemplatesFile.read("\(dataDirectory)/\(name)", as: "bench") { byShape[d.name, default: []].append(d.points) }
            files.append((name, byShape))
        }
        guard !files.isEmpty else { throw Arguments.Failure(description: "bench strokes: no templates files in \(dataDirectory)") }
        var f = Figures()
        var rng = Generator(state: 42)
        var kept: [(correct: Bool, inSet: Double, outOfSet: Double)] = []
        for t in [1, 3, 5] {
            var perFile: [(String, Double)] = []
            for file in files {
                var correct = 0, total = 0
                for _ in 0..<trials {
                    var templates: [(name: String, points: [Point])] = []
                    var candidates: [(name: String, points: [Point])] = []
                    for (shape, samples) in file.byShape.sorted(by: { $0.key < $1.key }) {
                        var pool = samples
                        for i in 0..<min(t, pool.count - 1) { pool.swapAt(i, i + rng.next(pool.count - i)) }
                        templates += pool.prefix(t).map { (shape, $0) }
                        candidates += pool.dropFirst(t).map { (shape, $0) }
                    }
                    let set = StrokeTemplateSet(templates, orientation: .invariant)
                    for c in candidates {
                        let v = Protractor.vector(c.points, orientation: .invariant)
                        let best = set.best(v)
                        if best?.name == c.name { correct += 1 }
                        total += 1
                        // Rejection (T = 3, a few trials): this stroke's best score, and the best with its shape's templates away.
                        if t == 3, kept.count < 20_000, let best {
                            let others = set.best(v, among: set.names.filter { $0 != c.name })
                            kept.append((best.name == c.name, best.score, others?.score ?? 0))
                        }
                    }
                }
                perFile.append((file.name, Double(correct) / Double(max(1, total))))
            }
            var bySpeed: [String: [Double]] = [:]
            for (name, a) in perFile {
                let speed = name.split(separator: "-").last.map { String($0.dropLast(5)) } ?? "all"
                bySpeed[speed, default: []].append(a)
            }
            let mean = perFile.map(\.1).reduce(0, +) / Double(perFile.count)
            f.accuracy[t] = (mean, perFile.map(\.1).min() ?? 0, bySpeed.mapValues { $0.reduce(0, +) / Double($0.count) })
        }
        // Scribbles: what a finger wandering over a stroke recognizer's view draws by accident (smooth
        // random curves 100 to 600 pt long), against three templates of each shape of the first file.
        var three: [(name: String, points: [Point])] = []
        for (shape, samples) in files[0].byShape.sorted(by: { $0.key < $1.key }) { three += samples.prefix(3).map { (shape, $0) } }
        let set = StrokeTemplateSet(three, orientation: .invariant)
        let scribbles = (0..<2000).map { _ in set.best(Protractor.vector(scribble(&rng), orientation: .invariant))?.score ?? 0 }
        for threshold in [0.75, 0.80, 0.85, 0.90, 0.95] {
            let accepted = Double(kept.filter { $0.correct && $0.inSet >= threshold }.count) / Double(max(1, kept.count))
            let falseAccepted = Double(kept.filter { $0.outOfSet >= threshold }.count) / Double(max(1, kept.count))
            f.rejection.append((threshold, accepted, falseAccepted, Double(scribbles.filter { $0 >= threshold }.count) / Double(scribbles.count)))
        }
        f.matchMicroseconds = matchTime(files[0].byShape)
        (f.strokeFrameNanoseconds, f.panFrameNanoseconds) = frameCosts()
        return f
    }

    /// A smooth random curve: a heading that turns by a random amount each 5 pt, 20 to 120 steps.
    static func scribble(_ rng: inout Generator) -> [Point] {
        var p = Point(x: 400, y: 400), heading = Double(rng.next(628)) / 100, turning = 0.0
        var out = [p]
        for _ in 0..<(20 + rng.next(100)) {
            turning = turning * 0.8 + Double(rng.next(200) - 100) / 400
            heading += turning
            p = p + Point(x: 5 * TouchMath.cos(heading), y: 5 * TouchMath.sin(heading))
            out.append(p)
        }
        return out
    }

    /// Microseconds to prepare a stroke and match it against 16 shapes × 5 templates (median of runs).
    static func matchTime(_ byShape: [String: [[Point]]]) -> Double {
        var templates: [(name: String, points: [Point])] = []
        var candidates: [[Point]] = []
        for (shape, samples) in byShape.sorted(by: { $0.key < $1.key }).prefix(16) {
            templates += samples.prefix(5).map { (shape, $0) }
            candidates += samples.dropFirst(5)
        }
        let set = StrokeTemplateSet(templates, orientation: .invariant)
        var medians: [Double] = []
        var sink = 0.0
        for _ in 0..<7 {
            var times: [Double] = []
            for c in candidates {
                let t0 = now()
                let m = set.best(Protractor.vector(c, orientation: .invariant))
                times.append(Double(now() - t0) / 1000)
                sink += m?.score ?? 0
            }
            times.sort()
            medians.append(times[times.count / 2])
        }
        if sink.isNaN { say("") }
        medians.sort()
        return medians[medians.count / 2]
    }

    /// Nanoseconds a frame of one finger drawing (a stroke a second, lifting between) through a pipeline
    /// whose one recognizer is a stroke, then a pan: the frames' cost, the matches at the lifts included.
    static func frameCosts() -> (stroke: Double, pan: Double) {
        func cost(_ recognizer: String) -> Double {
            let text = #"{"window": {"width": 800, "height": 800}, "views": [{"name": "v", "frame": [0, 0, 800, 800], "recognizers": [\#(recognizer)]}]}"#
            let scene = try! Scene.parse(text, file: "bench", systemKeyboard: KeyboardNames())
            let pipeline = Pipeline(scene: scene, log: Logger(program: "bench", level: .error))
            let sink = LineSink()
            pipeline.onLines = { _, bytes in sink.take(bytes) }
            let circle = Protractor.resample(StrokeShapes.templates(.invariant)[0].points, 120).map { Point(x: 200 + $0.x * 400, y: 200 + $0.y * 400) }
            var times: [Double] = []
            var t = 1.0
            for round in 0..<400 {
                for (i, p) in circle.enumerated() {
                    let frame = DigitizerFrame(device: 0, timestamp: t, contacts: i == circle.count - 1 ? [] : [Contact(id: round, location: p)])
                    let t0 = now()
                    pipeline.handle(frame)
                    if round >= 50 { times.append(Double(now() - t0)) }
                    t += 1.0 / 120
                }
                t += 0.5
                pipeline.advance(to: t)
            }
            return times.reduce(0, +) / Double(times.count)
        }
        return (cost(#"{"name": "draw", "type": "stroke"}"#), cost(#"{"name": "drag", "type": "pan"}"#))
    }
}
