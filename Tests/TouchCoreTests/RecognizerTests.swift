import Testing
@testable import TouchCore

@Suite("Tap (uikit-semantics TAP1–TAP3)")
struct TapTests {
    func scene() -> (Scene, RecordingView) {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        return (s, v)
    }

    @Test("TAP1: defaults are one tap of one finger; recognized at the lift, never through began")
    func defaults() {
        let (s, v) = scene()
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        #expect(tap.numberOfTapsRequired == 1 && tap.numberOfTouchesRequired == 1)
        #expect(tap.cancelsTouchesInView && !tap.delaysTouchesBegan && tap.delaysTouchesEnded && tap.isEnabled)
        s.touch(1, 100, 100, at: 0)
        #expect(tap.state == .possible)
        s.lift(1, at: 0.1)
        #expect(s.recorder.lines.last == "tap ended")
        #expect(!s.transitions.contains { $0.contains("→ began") })
    }

    @Test("TAP2: moving more than 45 pt fails; 45 pt is fine")
    func movement() {
        let (s, v) = scene()
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 145, 100, at: 0.05)
        s.lift(1, at: 0.1)
        #expect(s.recorder.lines.last == "tap ended")
        s.touch(1, 100, 100, at: 1)
        s.touch(1, 146, 100, at: 1.05)
        #expect(tap.state == .failed)
    }

    @Test("TAP2: a tap held longer than 0.75 s fails on its timer")
    func heldTooLong() {
        let (s, v) = scene()
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        s.touch(1, 100, 100, at: 0)
        #expect(s.app.nextDeadline == 0.75)
        s.advance(to: 0.75)
        #expect(tap.state == .failed)
        s.lift(1, at: 0.8)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
    }

    @Test("TAP2: a second tap later than 0.35 s after the lift does not make a double tap")
    func intervalTooLong() {
        let (s, v) = scene()
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        s.tap(1, 100, 100, at: 0)            // lifted at 0.05
        s.tap(2, 100, 100, at: 0.41)
        s.tap(3, 100, 100, at: 0.6)
        #expect(s.recorder.lines.filter { $0.hasPrefix("double") } == ["double ended"])
    }

    @Test("TAP2: the second tap of a double tap must land within 45 pt of the first")
    func secondTapTooFar() {
        let (s, v) = scene()
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        s.tap(1, 100, 100, at: 0)
        s.tap(2, 160, 100, at: 0.2)
        #expect(!s.recorder.lines.contains("double ended"))
    }

    @Test("Two-finger tap: recognized when both fingers lift; location is their centroid (TAP3)")
    func twoFingerTap() {
        let (s, v) = scene()
        let tap = s.attach(TapGestureRecognizer(), "two", to: v) { "\($0.location(in: nil))" }
        tap.numberOfTouchesRequired = 2
        s.touch(1, 100, 100, at: 0)
        s.touch(2, 200, 120, at: 0.03)
        s.lift(1, at: 0.08)
        s.lift(2, at: 0.1)
        #expect(s.recorder.lines.last == "two ended (150.0, 110.0)")
    }

    @Test("TAP2: a two-finger tap fails with one finger, with three, or with fingers too far apart in time")
    func twoFingerFailures() {
        let (s, v) = scene()
        let tap = s.attach(TapGestureRecognizer(), "two", to: v)
        tap.numberOfTouchesRequired = 2
        s.tap(1, 100, 100, at: 0)
        s.move([1: (100, 100), 2: (200, 100), 3: (300, 100)], at: 1)
        s.lift(1, 2, 3, at: 1.05)
        s.touch(1, 100, 100, at: 2)
        s.touch(2, 200, 100, at: 2.4)
        s.lift(1, 2, at: 2.45)
        #expect(!s.recorder.lines.contains("two ended"))
    }

    @Test("TAP3: a double tap's location is the first tap's")
    func doubleTapLocation() {
        let (s, v) = scene()
        let double = s.attach(TapGestureRecognizer(), "double", to: v) { "\($0.location(in: nil))" }
        double.numberOfTapsRequired = 2
        s.tap(1, 100, 100, at: 0)
        s.tap(2, 110, 104, at: 0.2)
        #expect(s.recorder.lines.last == "double ended (100.0, 100.0)")
    }
}

@Suite("Long press (uikit-semantics LP1–LP4)")
struct LongPressTests {
    @Test("LP1: defaults 0.5 s, 10 pt, 0 taps, 1 finger")
    func defaults() {
        let r = LongPressGestureRecognizer()
        #expect(r.minimumPressDuration == 0.5 && r.allowableMovement == 10)
        #expect(r.numberOfTapsRequired == 0 && r.numberOfTouchesRequired == 1)
    }

    @Test("LP3: moving more than 10 pt, lifting, or a second finger before 0.5 s fails it")
    func failures() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 111, 100, at: 0.2)
        #expect(press.state == .failed)
        s.lift(1, at: 0.3)
        s.touch(1, 100, 100, at: 1)
        s.touch(1, 110, 100, at: 1.2)         // exactly 10 pt: still fine
        #expect(press.state == .possible)
        s.touch(2, 200, 200, at: 1.3)
        #expect(press.state == .failed)
        s.lift(1, 2, at: 1.4)
        s.advance(to: 3)
        #expect(!s.recorder.lines.contains { $0.hasPrefix("press") })
    }

    @Test("LP4: after began any movement is changed and any finger lift ends it")
    func afterBegan() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        s.attach(LongPressGestureRecognizer(), "press", to: v) { "\($0.location(in: nil))" }
        s.touch(1, 100, 100, at: 0)
        s.advance(to: 0.5)
        s.touch(1, 300, 300, at: 0.6)
        s.touch(2, 50, 50, at: 0.7)
        s.lift(2, at: 0.8)
        #expect(s.recorder.lines.filter { $0.hasPrefix("press") } ==
                ["press began (100.0, 100.0)", "press changed (300.0, 300.0)", "press ended (175.0, 175.0)"])
    }

    @Test("LP1: two fingers and a tap before the press")
    func tapThenPressWithTwoFingers() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        press.numberOfTapsRequired = 1
        press.numberOfTouchesRequired = 2
        s.move([1: (100, 100), 2: (150, 100)], at: 0)
        s.lift(1, 2, at: 0.1)
        s.move([3: (100, 100), 4: (150, 100)], at: 0.3)
        s.advance(to: 0.79)
        #expect(press.state == .possible)
        s.advance(to: 0.8)
        #expect(press.state == .began)
    }
}

@Suite("Pan (uikit-semantics PAN1–PAN6)")
struct PanTests {
    @Test("PAN1: defaults 1 … Int.max fingers")
    func defaults() {
        let p = PanGestureRecognizer()
        #expect(p.minimumNumberOfTouches == 1 && p.maximumNumberOfTouches == Int.max)
    }

    @Test("PAN2: the hysteresis is per axis, not a distance: (8, 8) does not begin, (0, 10) does")
    func perAxis() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v, detail: translation)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 108, 108, at: 0.01)        // 11.3 pt away, but < 10 on each axis
        #expect(pan.state == .possible)
        s.touch(1, 100, 110, at: 0.02)
        #expect(s.recorder.lines.last == "pan began (0.0, 0.0)")
    }

    @Test("PAN3: a move of (12, 3) is reported as translation (2, 0) at began; (−15, −30) as (−5, −20)")
    func hysteresisRemoved() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(PanGestureRecognizer(), "pan", to: v, detail: translation)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 112, 103, at: 0.01)
        s.lift(1, at: 0.02)
        s.touch(1, 100, 100, at: 1)
        s.touch(1, 85, 70, at: 1.01)
        #expect(s.recorder.lines.filter { $0.hasPrefix("pan began") } ==
                ["pan began (2.0, 0.0)", "pan began (-5.0, -20.0)"])
    }

    @Test("PAN4: translation converts into a view's space; setTranslation moves the reference and zeroes velocity")
    func translationAndSet() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let rotated = s.view("rotated", 100, 100, 100, 100)
        rotated.transform = AffineTransform(rotationAngle: .pi / 2)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 120, 100, at: 0.1)
        s.touch(1, 140, 100, at: 0.2)
        #expect(approx(pan.translation(in: nil), Point(x: 30, y: 0)))
        #expect(approx(pan.translation(in: rotated), Point(x: 0, y: -30)))
        pan.setTranslation(Point(x: 0, y: 5), in: rotated)
        #expect(approx(pan.translation(in: rotated), Point(x: 0, y: 5)))
        #expect(approx(pan.translation(in: nil), Point(x: -5, y: 0)))     // (0, 5) turned by 90°
        #expect(pan.velocity(in: nil) == .zero)
        s.touch(1, 150, 100, at: 0.3)
        #expect(approx(pan.translation(in: nil), Point(x: 5, y: 0)))
    }

    @Test("PAN5: velocity is 0.2 · latest + 0.8 · previous sample, in points per second")
    func velocity() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 110, 100, at: 0.1)         // 100 pt/s
        s.touch(1, 130, 100, at: 0.2)         // 200 pt/s
        #expect(approx(pan.velocity(in: nil), Point(x: 0.2 * 200 + 0.8 * 100, y: 0)))
    }

    @Test("PAN6: translation stays continuous when a second finger lands and when it lifts")
    func continuity() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 130, 100, at: 0.1)
        let before = pan.translation(in: nil)
        s.touch(2, 300, 300, at: 0.2)         // the centroid jumps by (85, 100)
        #expect(approx(pan.translation(in: nil), before))
        s.move([1: (140, 100), 2: (310, 300)], at: 0.3)
        #expect(approx(pan.translation(in: nil), before + Point(x: 10, y: 0)))
        s.lift(2, at: 0.4)
        #expect(approx(pan.translation(in: nil), before + Point(x: 10, y: 0)))
        #expect(pan.state == .changed)        // below the minimum does not end it
        s.lift(1, at: 0.5)
        #expect(s.recorder.lines.last == "pan ended")
    }

    @Test("PAN1: minimumNumberOfTouches 2 does not begin with one finger; fingers beyond the maximum are not counted")
    func touchCounts() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        pan.minimumNumberOfTouches = 2
        pan.maximumNumberOfTouches = 2
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 150, 100, at: 0.1)
        #expect(pan.state == .possible)
        s.touch(2, 200, 100, at: 0.2)
        s.touch(3, 300, 300, at: 0.25)
        s.move([1: (170, 100), 2: (220, 100), 3: (0, 0)], at: 0.3)
        #expect(pan.state == .began)
        #expect(approx(pan.translation(in: nil), Point(x: 10, y: 0)))
    }

    @Test("PAN6: a pan that never began fails when every finger has lifted")
    func failsWithoutBegan() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 105, 100, at: 0.1)
        s.lift(1, at: 0.2)
        #expect(s.transitions.contains("PanGestureRecognizer(pan): possible → touchesEnded → failed: lifted before it began"))
        #expect(pan.state == .possible)
    }
}

@Suite("Screen-edge pan (uikit-semantics SEP1–SEP2)")
struct ScreenEdgePanTests {
    @Test("SEP1: with no edges (the default) it never fires")
    func noEdges() {
        let s = Scene()
        let edge = s.attach(ScreenEdgePanGestureRecognizer(), "edge", to: s.window)
        #expect(edge.edges == [])
        s.touch(1, 2, 100, at: 0)
        s.touch(1, 60, 100, at: 0.05)
        #expect(!s.recorder.lines.contains { $0.hasPrefix("edge") })
    }

    @Test("SEP2: a finger landing in the left edge region and moving right begins; elsewhere it fails")
    func leftEdge() {
        let s = Scene()
        let edge = s.attach(ScreenEdgePanGestureRecognizer(), "edge", to: s.window) { "\($0.touchedEdge)" }
        edge.edges = [.left, .right]
        s.touch(1, 3, 100, at: 0)
        s.touch(1, 40, 104, at: 0.05)
        s.lift(1, at: 0.1)
        s.touch(1, 100, 100, at: 1)           // not in a region
        s.touch(1, 160, 100, at: 1.05)
        s.lift(1, at: 1.1)
        s.touch(1, 398, 100, at: 2)           // right edge, moving left
        s.touch(1, 350, 100, at: 2.05)
        s.lift(1, at: 2.1)
        #expect(s.recorder.lines == ["edge began left", "edge ended left", "edge began right", "edge ended right"])
    }

    @Test("SEP2: moving along the edge or toward it fails; only the first finger counts")
    func wrongDirection() {
        let s = Scene()
        let edge = s.attach(ScreenEdgePanGestureRecognizer(), "edge", to: s.window)
        edge.edges = .bottom
        s.touch(1, 200, 390, at: 0)
        s.touch(1, 260, 392, at: 0.05)        // sideways
        #expect(edge.state == .failed)
        s.lift(1, at: 0.1)
        s.touch(1, 200, 395, at: 1)
        s.touch(2, 100, 100, at: 1.01)
        s.touch(1, 200, 350, at: 1.05)
        #expect(edge.state == .began && edge.numberOfTouches == 1)
    }
}

@Suite("Swipe (uikit-semantics SW1–SW2)")
struct SwipeTests {
    func swipe(_ direction: SwipeGestureRecognizer.Direction, dx: Double, dy: Double,
               duration: Double = 0.1, fingers: Int = 1, required: Int = 1) -> [String] {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let sw = SwipeGestureRecognizer()
        sw.direction = direction
        sw.numberOfTouchesRequired = required
        s.attach(sw, "swipe", to: v) { "\($0.recognizedDirection)" }
        var start: [Int: (Double, Double)] = [:]
        for f in 1...fingers { start[f] = (150 + Double(f) * 30, 200) }
        s.move(start, at: 0)
        for i in 1...10 {
            var m: [Int: (Double, Double)] = [:]
            for (f, p) in start { m[f] = (p.0 + dx * Double(i) / 10, p.1 + dy * Double(i) / 10) }
            s.move(m, at: duration * Double(i) / 10)
        }
        s.lift(Array(1...fingers), at: duration + 0.01)
        return s.recorder.lines.filter { $0.hasPrefix("swipe") }
    }

    @Test("SW1: the default direction is right, one finger; recognized during the movement")
    func defaults() {
        #expect(SwipeGestureRecognizer().direction == .right)
        #expect(swipe(.right, dx: 100, dy: 5) == ["swipe ended right"])
        #expect(swipe(.right, dx: -100, dy: 0) == [])
    }

    @Test("SW1: each direction, and a set of directions reports the one swiped")
    func directions() {
        #expect(swipe(.left, dx: -100, dy: 0) == ["swipe ended left"])
        #expect(swipe(.up, dx: 0, dy: -100) == ["swipe ended up"])
        #expect(swipe(.down, dx: 3, dy: 100) == ["swipe ended down"])
        #expect(swipe([.left, .right], dx: -80, dy: 0) == ["swipe ended left"])
        #expect(swipe([.up, .down], dx: 0, dy: 80) == ["swipe ended down"])
        #expect(swipe(.up, dx: 100, dy: 0) == [])
    }

    @Test("SW2: a fast swipe needs distance (50 pt), a slow one precision")
    func thresholds() {
        #expect(swipe(.right, dx: 45, dy: 0, duration: 0.02) == [])         // fast and short
        #expect(swipe(.right, dx: 45, dy: 0, duration: 0.5) == ["swipe ended right"])   // slow: 26.5 pt is enough
        #expect(swipe(.right, dx: 100, dy: 150, duration: 0.02) == ["swipe ended right"]) // fast: sloppy is fine
        // Slow: by the time it has gone 26.5 pt along, it is 106 pt across, more than the 102 allowed.
        #expect(swipe(.right, dx: 30, dy: 120, duration: 1.0) == [])
    }

    @Test("SW1: a two-finger swipe needs both fingers; one finger fails it")
    func twoFingers() {
        #expect(swipe(.down, dx: 0, dy: 100, fingers: 2, required: 2) == ["swipe ended down"])
        #expect(swipe(.down, dx: 0, dy: 100, fingers: 1, required: 2) == [])
        #expect(swipe(.down, dx: 0, dy: 100, fingers: 3, required: 2) == [])
    }
}

@Suite("Pinch and rotation (uikit-semantics PI1–PI3, RO1–RO3)")
struct PinchRotationTests {
    @Test("PI1: scale is 1 at began and then distance ÷ distance at began; ends when both fingers lift")
    func pinchScale() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let pinch = s.attach(PinchGestureRecognizer(), "pinch", to: v) { "\($0.scale)" }
        s.move([1: (100, 200), 2: (300, 200)], at: 0)
        s.move([1: (90, 200), 2: (310, 200)], at: 0.1)        // 220: began at 1.0
        s.move([1: (45, 200), 2: (265, 200)], at: 0.15)       // a translation changes nothing
        s.move([1: (45, 200), 2: (485, 200)], at: 0.2)        // 440: scale 2
        s.lift(1, at: 0.3)
        #expect(pinch.state == .changed)                       // _endsOnSingleTouch is false
        s.lift(2, at: 0.4)
        #expect(s.recorder.lines.filter { $0.hasPrefix("pinch") } ==
                ["pinch began 1.0", "pinch changed 1.0", "pinch changed 2.0", "pinch ended 2.0"])
    }

    @Test("PI2: velocity is scale per second, smoothed 0.75 · previous + 0.25 · latest; setting scale resets it")
    func pinchVelocity() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let pinch = s.attach(PinchGestureRecognizer(), "pinch", to: v)
        s.move([1: (100, 200), 2: (200, 200)], at: 0)
        s.move([1: (90, 200), 2: (200, 200)], at: 0.1)        // 110: began
        s.move([1: (90, 200), 2: (310, 200)], at: 0.2)        // 220: scale 2 (+1 in 0.1 s)
        #expect(approx(pinch.velocity, 0.25 * 10))
        pinch.scale = 1
        #expect(pinch.velocity == 0)
        s.move([1: (90, 200), 2: (420, 200)], at: 0.3)        // 330: 1.5 × 220
        #expect(approx(pinch.scale, 1.5))
    }

    @Test("PI3: one finger never pinches; the pinch fails when it lifts")
    func pinchNeedsTwo() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(PinchGestureRecognizer(), "pinch", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 200, 100, at: 0.1)
        s.lift(1, at: 0.2)
        #expect(s.transitions.contains("PinchGestureRecognizer(pinch): possible → touchesEnded → failed: lifted before it began"))
    }

    @Test("RO1, RO2: rotation is cumulative radians since began, clockwise on screen positive, past ±π")
    func rotation() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let rot = s.attach(RotationGestureRecognizer(), "rotation", to: v)
        var last = 0.0
        rot.addTarget { last = ($0 as! RotationGestureRecognizer).rotation }
        let c = Point(x: 200, y: 200)
        func at(_ angle: Double) -> [Int: (Double, Double)] {
            let dx = 100 * TouchMath.cos(angle), dy = 100 * TouchMath.sin(angle)
            return [1: (c.x - dx, c.y - dy), 2: (c.x + dx, c.y + dy)]
        }
        s.move(at(0), at: 0)
        s.move(at(0.1), at: 0.05)             // began, rotation 0
        #expect(rot.state == .began && last == 0)
        var angle = 0.1
        var t = 0.05
        while angle < 0.1 + 3.5 {             // turn clockwise (y down) by 3.5 rad in small steps
            angle += 0.25
            t += 0.02
            s.move(at(angle), at: t)
        }
        #expect(approx(last, angle - 0.1, 1e-9))
        #expect(last > Double.pi)
        s.lift(1, 2, at: t + 0.1)
        #expect(rot.state == .possible)
    }

    @Test("RO3: a small wobble below the threshold does not begin")
    func rotationThreshold() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let rot = s.attach(RotationGestureRecognizer(), "rotation", to: v)
        s.move([1: (100, 200), 2: (300, 200)], at: 0)
        s.move([1: (100, 203), 2: (300, 197)], at: 0.1)       // 0.03 rad
        #expect(rot.state == .possible)
    }
}
