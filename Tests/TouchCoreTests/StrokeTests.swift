import Testing
@testable import TouchCore

/// A small deterministic generator (the tests' noise: the same every run).
struct Noise {
    var state: UInt64
    mutating func next() -> Double {          // uniform in [-1, 1)
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 52) - 1
    }
}

/// A drawing of `points` (unit box) as a person would make it at `size` points: turned by `turn`
/// radians, stretched by `aspect`, wobbled by `jitter` points, placed at `origin`.
func drawn(_ points: [Point], size: Double = 180, turn: Double = 0, aspect: Double = 1, jitter: Double = 0,
           origin: Point = Point(x: 300, y: 300), noise: inout Noise) -> [Point] {
    let s = TouchMath.sin(turn), c = TouchMath.cos(turn)
    return points.map { p in
        let x = (p.x - 0.5) * size * aspect, y = (p.y - 0.5) * size / aspect
        return Point(x: origin.x + x * c - y * s + jitter * noise.next(), y: origin.y + x * s + y * c + jitter * noise.next())
    }
}

@Suite("Stroke: Protractor's preparation and match (uikit-semantics ST5)")
struct ProtractorTests {
    @Test("Resampling spaces 16 points evenly along the path, ends included")
    func resample() {
        let l = [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 50)]
        let r = Protractor.resample(l)
        #expect(r.count == 16)
        #expect(r.first == Point(x: 0, y: 0) && approx(r.last!, Point(x: 100, y: 50), 1e-6))
        let gaps = zip(r, r.dropFirst()).map { $0.distance(to: $1) }
        #expect(gaps.allSatisfy { approx($0, 10, 1e-6) }, "150 pt in 15 gaps of 10 (the corner cut: along the path)")
        #expect(Protractor.resample([Point(x: 3, y: 4)]) == Array(repeating: Point(x: 3, y: 4), count: 16))
    }

    @Test("The prepared vector has length 1 and forgets place and size; rotation-invariant it forgets the turn too")
    func vector() {
        var n = Noise(state: 1)
        let shape = StrokeShapes.templates(.invariant).first { $0.name == "check" }!.points
        let a = Protractor.vector(drawn(shape, size: 100, noise: &n), orientation: .invariant)
        let b = Protractor.vector(drawn(shape, size: 300, origin: Point(x: 50, y: 700), noise: &n), orientation: .invariant)
        let turned = Protractor.vector(drawn(shape, size: 200, turn: 0.6, noise: &n), orientation: .invariant)
        #expect(approx(a.values.reduce(0) { $0 + $1 * $1 }, 1, 1e-9))
        #expect(approx(Protractor.similarity(a.values, b.values, limit: 0).score, 1, 1e-9))
        #expect(Protractor.similarity(a.values, turned.values, limit: Protractor.rotationLimit(.invariant)).score > 0.999)
        // Orientation-sensitive, a quarter turn is another stroke; a few degrees are not.
        let s = Protractor.vector(drawn(shape, size: 100, noise: &n), orientation: .sensitive)
        let quarter = Protractor.vector(drawn(shape, size: 100, turn: Double.pi / 2, noise: &n), orientation: .sensitive)
        let slight = Protractor.vector(drawn(shape, size: 100, turn: 0.12, noise: &n), orientation: .sensitive)
        #expect(Protractor.similarity(s.values, quarter.values, limit: Protractor.rotationLimit(.sensitive)).score < 0.8)
        #expect(Protractor.similarity(s.values, slight.values, limit: Protractor.rotationLimit(.sensitive)).score > 0.999)
    }

    @Test("The closed form is the best rotation: no sampled angle within the bound does better")
    func closedForm() {
        var n = Noise(state: 7)
        let t = StrokeShapes.templates(.invariant)
        let a = Protractor.vector(drawn(t[0].points, jitter: 6, noise: &n), orientation: .invariant).values
        let b = Protractor.vector(drawn(t[2].points, noise: &n), orientation: .invariant).values
        let limit = Protractor.rotationLimit(.invariant)
        let (score, rotation) = Protractor.similarity(a, b, limit: limit)
        #expect(abs(rotation) <= limit + 1e-12)
        for k in -90...90 {
            let th = limit * Double(k) / 90
            let c = TouchMath.cos(th), s = TouchMath.sin(th)
            var dot = 0.0
            for i in stride(from: 0, to: a.count, by: 2) { dot += (a[i] * c - a[i + 1] * s) * b[i] + (a[i] * s + a[i + 1] * c) * b[i + 1] }
            #expect(dot <= score + 1e-9)
        }
    }

    @Test("The rotation is bounded: a caret is not a check turned over, a v not a caret")
    func bounded() {
        let set = StrokeTemplateSet(StrokeShapes.templates(.invariant), orientation: .invariant)
        var n = Noise(state: 3)
        for name in ["check", "caret", "v"] {
            let shape = StrokeShapes.templates(.invariant).first { $0.name == name }!.points
            let m = set.best(Protractor.vector(drawn(shape, noise: &n), orientation: .invariant))
            #expect(m?.name == name)
        }
    }
}

@Suite("Stroke recognizer (uikit-semantics ST1–ST6)")
struct StrokeRecognizerTests {
    /// A window with one view and a stroke recognizer with the built-in templates; more recognizers by `extra`.
    static func scene(_ configure: (StrokeGestureRecognizer) -> Void = { _ in },
                      extra: (Scene, View, StrokeGestureRecognizer) -> Void = { _, _, _ in }) -> (Scene, StrokeGestureRecognizer) {
        let s = Scene(width: 800, height: 800)
        let v = s.view("canvas", 0, 0, 800, 800)
        let r = StrokeGestureRecognizer()
        r.drawings = StrokeShapes.templates(.invariant)
        configure(r)
        s.attach(r, "stroke", to: v) { "\($0.recognizedShape ?? "-") \($0.score >= $0.minimumScore ? "scored" : "low")" }
        extra(s, v, r)
        return (s, r)
    }

    /// The recognizers' lines of the log (the view's own callbacks left out).
    static func gestures(_ s: Scene) -> [String] { s.recorder.take().filter { !$0.hasPrefix("canvas.") } }

    /// Finger 1 along `points` at 120 Hz from `t`, lifting after the last.
    static func draw(_ s: Scene, _ points: [Point], from t: Double = 1, id: Int = 1) -> Double {
        for (i, p) in points.enumerated() { s.touch(id, p.x, p.y, at: t + Double(i) / 120) }
        let end = t + Double(points.count) / 120
        s.lift(id, at: end)
        return end
    }

    /// The unit-box shape resampled to a finger's pace: about 60 frames along its path.
    static func paced(_ points: [Point]) -> [Point] { Protractor.resample(points, 60) }

    @Test("ST6: every built-in shape is recognized from a clean drawing and a noisy one", arguments: StrokeShapes.templates(.invariant).map(\.name))
    func builtIn(name: String) {
        let shape = StrokeShapes.templates(.invariant).first { $0.name == name }!.points
        var n = Noise(state: UInt64(name.utf8.reduce(5) { $0 &* 31 &+ UInt64($1) }))
        for (turn, aspect, jitter) in [(0.0, 1.0, 0.0), (0.25 * n.next(), 1 + 0.15 * n.next(), 5.0)] {
            let (s, _) = Self.scene()
            _ = Self.draw(s, Self.paced(drawn(shape, turn: turn, aspect: aspect, jitter: jitter, noise: &n)))
            #expect(Self.gestures(s) == ["stroke ended \(name) scored"], "turn \(turn), aspect \(aspect), jitter \(jitter)")
        }
    }

    @Test("ST6: orientation-sensitive, an arrow left is not an arrow right")
    func arrows() {
        var n = Noise(state: 11)
        for (name, turns) in [("arrowRight", 0), ("arrowDown", 1), ("arrowLeft", 2), ("arrowUp", 3)] {
            let (s, _) = Self.scene { $0.orientation = .sensitive; $0.drawings = StrokeShapes.templates(.sensitive) }
            let arrow = StrokeShapes.templates(.sensitive).first { $0.name == "arrowRight" }!.points.map { StrokeShapes.rotatedQuarter($0, turns) }
            _ = Self.draw(s, Self.paced(drawn(arrow, jitter: 3, noise: &n)))
            #expect(Self.gestures(s) == ["stroke ended \(name) scored"])
        }
    }

    @Test("ST5: a scribble fails with its best shape and score; so does a stroke too short")
    func rejected() {
        let (s, r) = Self.scene()
        var notes: [String] = []
        s.app.onTransition = { t in if t.to == .failed, let why = t.reason { notes.append(why) } }
        var n = Noise(state: 99)
        let scribble = (0..<60).map { i in Point(x: 300 + 120 * n.next(), y: 300 + 120 * n.next() + Double(i)) }
        _ = Self.draw(s, scribble)
        #expect(Self.gestures(s) == [])
        #expect(notes.last?.hasPrefix("best ") == true && notes.last?.hasSuffix("below \(StrokeGestureRecognizer.hundredths(r.minimumScore))") == true)
        _ = Self.draw(s, [Point(x: 300, y: 300), Point(x: 330, y: 310), Point(x: 340, y: 330)], from: 5)
        #expect(notes.last == "a stroke of 54 pt, 60 needed")
    }

    @Test("ST2: a second finger fails it at once")
    func secondFinger() {
        let (s, r) = Self.scene()
        s.touch(1, 300, 300, at: 1)
        s.touch(1, 340, 300, at: 1.05)
        s.touch(2, 500, 500, at: 1.1)
        #expect(r.state == .failed)
        s.lift(1, 2, at: 1.2)
        #expect(Self.gestures(s) == [])
    }

    @Test("ST3, ST4: held still for a long press's time it fails, and a long press beside it is recognized; a pause once moving fails nothing")
    func holdAndPause() {
        let (s, r) = Self.scene(extra: { s, v, _ in s.attach(LongPressGestureRecognizer(), "press", to: v) })
        s.touch(1, 300, 300, at: 1)
        s.touch(1, 304, 302, at: 1.2)
        s.advance(to: 1.5)
        #expect(r.state == .failed)
        s.lift(1, at: 1.7)
        #expect(Self.gestures(s) == ["press began", "press ended"])
        // Moving first, then a pause of 0.75 s (the $1 paper's longest), then the rest of a circle.
        var n = Noise(state: 2)
        let circle = Self.paced(drawn(StrokeShapes.templates(.invariant)[0].points, noise: &n))
        for (i, p) in circle.prefix(20).enumerated() { s.touch(1, p.x, p.y, at: 3 + Double(i) / 120) }
        s.advance(to: 3.9)
        for (i, p) in circle.dropFirst(20).enumerated() { s.touch(1, p.x, p.y, at: 3.9 + Double(i) / 120) }
        s.lift(1, at: 4.5)
        #expect(Self.gestures(s) == ["stroke ended circle scored"], "the press failed when the finger moved: no action")
    }

    @Test("A tap beside it is recognized, and the stroke fails for being short")
    func tapBeside() {
        let (s, r) = Self.scene(extra: { s, v, _ in s.attach(TapGestureRecognizer(), "tap", to: v) })
        s.tap(1, 300, 300, at: 1)
        #expect(Self.gestures(s) == ["tap ended"])
        #expect(r.state == .possible, "reset after the sequence")
    }

    @Test("Beside a pan: by default the pan begins and the stroke fails; a pan that requires it to fail waits, and the circle is drawn")
    func panBeside() {
        var n = Noise(state: 4)
        let circle = Self.paced(drawn(StrokeShapes.templates(.invariant)[0].points, noise: &n))
        let (s, _) = Self.scene(extra: { s, v, _ in s.attach(PanGestureRecognizer(), "pan", to: v) })
        _ = Self.draw(s, circle)
        let plain = Self.gestures(s)
        #expect(plain.first == "pan began" && plain.last == "pan ended" && !plain.contains { $0.hasPrefix("stroke") })
        var pan: PanGestureRecognizer?
        let (s2, stroke) = Self.scene(extra: { s, v, st in
            let p = PanGestureRecognizer()
            s.attach(p, "pan", to: v)
            p.require(toFail: st)
            pan = p
        })
        _ = Self.draw(s2, circle)
        #expect(Self.gestures(s2) == ["stroke ended circle scored"], "the pan waited and the stroke was recognized: the pan never began")
        _ = pan
        _ = stroke
        // Two fingers for the pan, one for the stroke: each gesture its own, no waiting.
        let (s3, _) = Self.scene(extra: { s, v, _ in
            let p = PanGestureRecognizer()
            p.minimumNumberOfTouches = 2
            s.attach(p, "pan", to: v)
        })
        _ = Self.draw(s3, circle)
        #expect(Self.gestures(s3) == ["stroke ended circle scored"])
    }

    @Test("ST1: two fingers draw with their centroid")
    func twoFingers() {
        var n = Noise(state: 6)
        let (s, _) = Self.scene { $0.numberOfTouchesRequired = 2 }
        let check = Self.paced(drawn(StrokeShapes.templates(.invariant).first { $0.name == "check" }!.points, noise: &n))
        for (i, p) in check.enumerated() { s.move([1: (p.x - 40, p.y), 2: (p.x + 40, p.y)], at: 1 + Double(i) / 120) }
        s.lift(1, 2, at: 2)
        #expect(Self.gestures(s) == ["stroke ended check scored"])
    }

    @Test("The matched template is drawn over the stroke: in its place and size")
    func templateOverStroke() {
        var n = Noise(state: 8)
        let (s, r) = Self.scene()
        var template: [Point] = []
        r.addTarget { g in template = (g as! StrokeGestureRecognizer).matchedTemplate }
        let circle = drawn(StrokeShapes.templates(.invariant)[0].points, size: 200, origin: Point(x: 400, y: 300), noise: &n)
        _ = Self.draw(s, Self.paced(circle))
        #expect(template.count == 16)
        // In the stroke's place: the centroid of the resampled stroke (a closed loop's start counts twice).
        #expect(approx(Protractor.centroid(template), Protractor.centroid(Protractor.resample(Self.paced(circle))), 1e-6))
        #expect(template.allSatisfy { abs($0.distance(to: Point(x: 400, y: 300)) - 100) < 8 })
    }
}
