// Exercises TouchCore's public surface the way a user of the library sees it: `import TouchCore`
// only, no @testable. If a listed name changes, this target stops compiling.
import Testing
import TouchCore

/// A user-written recognizer outside the module: a "press with two fingers for 0.2 s" gesture.
final class TwoFingerHold: GestureRecognizer {
    var fingers = 0
    override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        fingers += touches.count
        if fingers == 2 { deadline = event.timestamp + 0.2 }
        if fingers > 2 { state = .failed }
    }
    override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        if state == .began || state == .changed { state = .changed }
    }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        super.touchesEnded(touches, with: event)
        state = (state == .possible) ? .failed : .ended
    }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
        super.touchesCancelled(touches, with: event)
        state = .cancelled
    }
    override func deadlineReached(at time: Double) {
        if state == .possible { state = .began }
    }
    override func reset() {
        super.reset()
        fingers = 0
    }
}

final class LoggingView: View {
    var log: [String] = []
    override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { log.append("began \(touches.count)") }
    override func touchesMoved(_ touches: Set<Touch>, with event: Event?) { log.append("moved") }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { log.append("ended") }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) { log.append("cancelled") }
}

final class Everyone: GestureRecognizerDelegate {
    func gestureRecognizer(_ g: GestureRecognizer, shouldRecognizeSimultaneouslyWith o: GestureRecognizer) -> Bool { true }
}

@Suite("TouchCore's public surface")
struct PublicSurfaceTests {
    @Test("Geometry values and their operations")
    func geometry() {
        let p = Point(x: 1, y: 2)
        let s = Size(width: 3, height: 4)
        let r = Rect(origin: p, size: s)
        #expect(r == Rect(x: 1, y: 2, width: 3, height: 4))
        #expect(r.minX == 1 && r.midX == 2.5 && r.maxX == 4 && r.minY == 2 && r.midY == 4 && r.maxY == 6)
        #expect(r.width == 3 && r.height == 4)
        #expect(r.contains(Point(x: 1, y: 2)) && !r.contains(Point(x: 4, y: 2)))
        #expect(r.insetBy(dx: 1, dy: 1) == Rect(x: 2, y: 3, width: 1, height: 2))
        #expect(r.inset(by: EdgeInsets(top: 1, left: 1, bottom: 1, right: 1)) == Rect(x: 2, y: 3, width: 1, height: 2))
        #expect(r.offsetBy(dx: 1, dy: 1).origin == Point(x: 2, y: 3))
        #expect(r.applying(AffineTransform(translationX: 1, y: 1)) == Rect(x: 2, y: 3, width: 3, height: 4))
        #expect(Rect.zero.size == Size.zero && Point.zero == Point(x: 0, y: 0))
        let t = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
        #expect(t == .identity && t.isIdentity)
        let m = AffineTransform(rotationAngle: 0.5).concatenating(AffineTransform(scaleX: 2, y: 3))
            .rotated(by: 0.1).scaledBy(x: 1, y: 2).translatedBy(x: 4, y: 5)
        let q = Point(x: 7, y: -3).applying(m).applying(m.inverted())
        #expect(abs(q.x - 7) < 1e-9 && abs(q.y + 3) < 1e-9)
    }

    @Test("Views: tree, geometry, hit-testing, conversion, recognizers")
    func views() {
        let window = Window(frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let app = Application(window: window)
        #expect(app.windows.count == 1 && window.next === app)
        let a = View(frame: Rect(x: 10, y: 10, width: 100, height: 100))
        a.name = "a"
        let b = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        window.addSubview(a)
        window.insertSubview(b, at: 0)
        #expect(window.subviews.map { $0 === b } == [true, false])
        #expect(a.superview === window && a.window === window && a.next === window)
        a.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        a.center = Point(x: 60, y: 60)
        a.transform = .identity
        a.alpha = 1
        a.isHidden = false
        a.isUserInteractionEnabled = true
        a.clipsToBounds = true
        a.isMultipleTouchEnabled = true
        a.isExclusiveTouch = false
        #expect(a.frame == Rect(x: 10, y: 10, width: 100, height: 100))
        #expect(window.hitTest(Point(x: 50, y: 50), with: nil) === a)
        #expect(a.point(inside: Point(x: 5, y: 5), with: nil))
        #expect(a.convert(Point(x: 0, y: 0), to: nil) == Point(x: 10, y: 10))
        #expect(a.convert(Point(x: 10, y: 10), from: nil) == Point.zero)
        #expect(a.convert(Rect(x: 0, y: 0, width: 1, height: 1), to: window).origin == Point(x: 10, y: 10))
        #expect(a.convert(Rect(x: 10, y: 10, width: 1, height: 1), from: window).origin == Point.zero)
        let tap = TapGestureRecognizer()
        a.addGestureRecognizer(tap)
        #expect(a.gestureRecognizers.count == 1 && tap.view === a)
        a.removeGestureRecognizer(tap)
        #expect(a.gestureRecognizers.isEmpty)
        b.removeFromSuperview()
        #expect(b.superview == nil && window.subviews.count == 1)
    }

    @Test("Frames become touches and events; a user-written recognizer with a timer; the responder chain")
    func pipeline() {
        let window = Window(frame: Rect(x: 0, y: 0, width: 320, height: 480))
        let app = Application(window: window)
        let v = LoggingView(frame: Rect(x: 0, y: 0, width: 320, height: 480))
        v.isMultipleTouchEnabled = true
        window.addSubview(v)
        let hold = TwoFingerHold()
        hold.name = "hold"
        v.addGestureRecognizer(hold)
        var actions: [GestureRecognizer.State] = []
        hold.addTarget { actions.append($0.state) }
        var seen: [(Touch.Phase, Int)] = []
        app.onEvent = { e in
            #expect(e.type == .touches)
            for t in e.allTouches where t.phase != .stationary { seen.append((t.phase, t.tapCount)) }
            _ = e.touches(for: v); _ = e.touches(for: window); _ = e.touches(for: hold); _ = e.timestamp
        }
        app.handle(DigitizerFrame(device: 0, timestamp: 1.0, contacts: [
            Contact(id: 1, location: Point(x: 10, y: 10)), Contact(id: 2, location: Point(x: 100, y: 10))]))
        let touch = app.activeTouches[0]
        #expect(touch.phase == .began && touch.view === v && touch.window === window)
        #expect(touch.gestureRecognizers.first === hold)
        #expect(touch.location(in: v) == Point(x: 10, y: 10) && touch.previousLocation(in: nil) == Point(x: 10, y: 10))
        #expect(touch.type == .direct && touch.majorRadius == 0 && touch.majorRadiusTolerance == 0)
        #expect(touch.force == 0 && touch.maximumPossibleForce == 0 && touch.timestamp == 1.0)
        #expect(app.nextDeadline == 1.2)
        app.advance(to: 1.2)
        #expect(hold.state == .began && hold.numberOfTouches == 2)
        #expect(hold.location(in: nil) == Point(x: 55, y: 10))
        #expect(hold.location(ofTouch: 1, in: v) == Point(x: 100, y: 10))
        app.handle(DigitizerFrame(timestamp: 1.3, contacts: [
            Contact(id: 1, location: Point(x: 12, y: 10)), Contact(id: 2, location: Point(x: 100, y: 10))]))
        app.handle(DigitizerFrame(timestamp: 1.4, contacts: []))
        #expect(actions == [.began, .changed, .ended])
        #expect(v.log == ["began 2", "cancelled"])
        #expect(seen.map(\.0) == [.began, .began, .moved, .ended, .ended])
        #expect(hold.state == .possible)
        #expect(app.nextDeadline == nil)
    }

    @Test("Every recognizer with its UIKit defaults, and the delegate's defaults")
    func recognizers() {
        let g = GestureRecognizer()
        #expect(g.state == .possible && g.isEnabled && g.cancelsTouchesInView && !g.delaysTouchesBegan && g.delaysTouchesEnded)
        #expect(GestureRecognizer.State.recognized == .ended && g.delegate == nil && g.view == nil && g.name == nil)
        let other = GestureRecognizer()
        #expect(g.canPrevent(other) && g.canBePrevented(by: other))
        #expect(!g.shouldRequireFailure(of: other) && !g.shouldBeRequiredToFail(by: other))
        g.require(toFail: other)
        let tap = TapGestureRecognizer()
        #expect(tap.numberOfTapsRequired == 1 && tap.numberOfTouchesRequired == 1)
        let press = LongPressGestureRecognizer()
        #expect(press.minimumPressDuration == 0.5 && press.allowableMovement == 10)
        #expect(press.numberOfTapsRequired == 0 && press.numberOfTouchesRequired == 1)
        let pan = PanGestureRecognizer()
        #expect(pan.minimumNumberOfTouches == 1 && pan.maximumNumberOfTouches == Int.max)
        pan.setTranslation(.zero, in: nil)
        #expect(pan.translation(in: nil) == .zero && pan.velocity(in: nil) == .zero)
        let edge = ScreenEdgePanGestureRecognizer()
        #expect(edge.edges == [])
        edge.edges = [.left, .right]
        #expect(RectEdge.all.contains(.top) && RectEdge.all.contains(.bottom))
        let swipe = SwipeGestureRecognizer()
        #expect(swipe.direction == .right && swipe.numberOfTouchesRequired == 1)
        swipe.direction = [.left, .up, .down]
        let pinch = PinchGestureRecognizer()
        #expect(pinch.scale == 1 && pinch.velocity == 0)
        let rotation = RotationGestureRecognizer()
        #expect(rotation.rotation == 0 && rotation.velocity == 0)
        let everyone = Everyone()
        pinch.delegate = everyone
        #expect(everyone.gestureRecognizerShouldBegin(pinch))
        #expect(everyone.gestureRecognizer(pinch, shouldRecognizeSimultaneouslyWith: rotation))
        #expect(!everyone.gestureRecognizer(pinch, shouldRequireFailureOf: rotation))
        #expect(!everyone.gestureRecognizer(pinch, shouldBeRequiredToFailBy: rotation))
    }

    @Test("Responder defaults forward to next")
    func responder() {
        final class Sink: Responder {
            var count = 0
            override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { count += 1 }
        }
        final class Forwarder: Responder {
            let sink: Sink
            init(_ sink: Sink) { self.sink = sink }
            override var next: Responder? { sink }
        }
        let sink = Sink()
        Forwarder(sink).touchesBegan([], with: nil)
        #expect(sink.count == 1)
    }
}
