import Testing
@testable import TouchCore

/// A UIButton-like control: touchDown at began, touchUpInside when the finger lifts inside its
/// touch area, touchCancel when a recognizer takes the touch.
final class Button: View {
    var events: [String] = []
    var minimumHitArea = Size(width: 0, height: 0)

    override func point(inside point: Point, with event: Event?) -> Bool {
        let dx = max(0, minimumHitArea.width - bounds.width), dy = max(0, minimumHitArea.height - bounds.height)
        return bounds.insetBy(dx: -dx / 2, dy: -dy / 2).contains(point)
    }
    override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { events.append("touchDown") }
    override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {}
    override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
        let inside = touches.allSatisfy { point(inside: $0.location(in: self), with: event) }
        events.append(inside ? "touchUpInside" : "touchUpOutside")
    }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) { events.append("touchCancel") }
}

@Suite("The seeds' examples")
struct SeedExampleTests {
    @Test("seed 002: pinch and rotation together through shouldRecognizeSimultaneouslyWith for that pair only; a pan stays out")
    func pinchAndRotateTogether() {
        let s = Scene()
        let photo = s.view("photo", 50, 50, 300, 300)
        photo.isMultipleTouchEnabled = true
        let pinch = s.attach(PinchGestureRecognizer(), "pinch", to: photo)
        let rotation = s.attach(RotationGestureRecognizer(), "rotation", to: photo)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: photo)
        pan.minimumNumberOfTouches = 3
        let pair = Simultaneous([("pinch", "rotation")])
        pinch.delegate = pair
        rotation.delegate = pair
        pan.delegate = pair
        // Seed 002's incremental use: apply the change, then reset scale and rotation in the handler.
        var transform = AffineTransform.identity
        pinch.addTarget { g in
            let p = g as! PinchGestureRecognizer
            transform = transform.scaledBy(x: p.scale, y: p.scale)
            p.scale = 1
        }
        rotation.addTarget { g in
            let r = g as! RotationGestureRecognizer
            transform = transform.rotated(by: r.rotation)
            r.rotation = 0
        }
        s.move([1: (150, 200), 2: (250, 200)], at: 0)
        var t = 0.0
        for i in 1...20 {
            let angle = Double(i) * 0.03, radius = 50 + Double(i) * 2.5
            t += 0.016
            s.move([1: (200 - radius * TouchMath.cos(angle), 200 - radius * TouchMath.sin(angle)),
                    2: (200 + radius * TouchMath.cos(angle), 200 + radius * TouchMath.sin(angle))], at: t)
        }
        #expect(pinch.state == .changed && rotation.state == .changed && pan.state == .failed)
        s.lift(1, 2, at: t + 0.02)
        let log = s.recorder.lines.filter { !$0.contains(".") }
        #expect(log.first == "pinch began" && log.contains("rotation began"))
        #expect(log.suffix(2) == ["pinch ended", "rotation ended"])
        // The product of the increments is the whole gesture from began on: about 100/55 in scale
        // and 0.6 − 0.03·k rad of turn (began after the threshold, at step k).
        let scale = (transform.a * transform.a + transform.b * transform.b).squareRoot()
        let angle = TouchMath.atan2(transform.b, transform.a)
        #expect(scale > 1.5 && scale < 1.9)
        #expect(angle > 0.45 && angle < 0.6)
    }

    @Test("seed 000 §4: a parent's pan cancels a button's touch (no touchUpInside) unless cancelsTouchesInView is false")
    func cancelsTouchesInViewTrap() {
        for cancels in [true, false] {
            let s = Scene()
            let list = s.view("list", 0, 0, 400, 400)
            let button = Button(frame: Rect(x: 100, y: 100, width: 120, height: 44))
            list.addSubview(button)
            let pan = s.attach(PanGestureRecognizer(), "pan", to: list)
            pan.cancelsTouchesInView = cancels
            s.touch(1, 110, 110, at: 0)
            s.touch(1, 110, 125, at: 0.05)       // a small scroll: the pan begins
            s.touch(1, 112, 130, at: 0.1)
            s.lift(1, at: 0.15)
            #expect(button.events == (cancels ? ["touchDown", "touchCancel"] : ["touchDown", "touchUpInside"]))
            #expect(s.recorder.lines.filter { $0.hasPrefix("pan") } == ["pan began", "pan changed", "pan ended"])
        }
    }

    @Test("seed 000 §7: the interactive card: a tap on the close button's grown area reaches it, a drag moves the card")
    func interactiveCard() {
        final class Card: View, GestureRecognizerDelegate {
            let closeButton = Button(frame: .zero)
            let pan = PanGestureRecognizer()
            var moves: [Point] = []
            override init(frame: Rect) {
                super.init(frame: frame)
                closeButton.minimumHitArea = Size(width: 44, height: 44)
                // 24×24, 12 pt from the top and trailing edges.
                closeButton.frame = Rect(x: frame.size.width - 12 - 24, y: 12, width: 24, height: 24)
                addSubview(closeButton)
                pan.delegate = self
                pan.cancelsTouchesInView = false
                pan.addTarget { [unowned self] g in
                    let p = g as! PanGestureRecognizer
                    switch p.state {
                    case .changed:
                        let t = p.translation(in: self.superview)
                        self.transform = AffineTransform(translationX: t.x, y: t.y)
                        self.moves.append(t)
                    case .ended, .cancelled:
                        self.transform = .identity
                    default: break
                    }
                }
                addGestureRecognizer(pan)
            }
            func gestureRecognizer(_ g: GestureRecognizer, shouldRecognizeSimultaneouslyWith o: GestureRecognizer) -> Bool {
                true
            }
        }
        let s = Scene()
        let card = Card(frame: Rect(x: 20, y: 20, width: 300, height: 200))
        s.window.addSubview(card)
        // The button's bounds are (284…308, 32…56) in the window; the grown area reaches 10 pt further.
        s.touch(1, 280, 28, at: 0)                 // outside its 24×24, inside the 44×44
        #expect(s.app.activeTouches[0].view === card.closeButton)
        s.lift(1, at: 0.08)
        #expect(card.closeButton.events == ["touchDown", "touchUpInside"])
        #expect(card.moves.isEmpty)
        // A drag that starts on the card body moves the card.
        s.touch(2, 100, 100, at: 1)
        s.drag(2, by: 60, 30, steps: 6, from: 1)
        // (60, 30) less the 10 pt hysteresis on x and the 5 pt of y travel taken with it (PAN3).
        #expect(card.moves.last == Point(x: 50, y: 25))
        #expect(card.transform == AffineTransform(translationX: 50, y: 25))
        // The card is where it is drawn (G1, G4): its frame moved, its center did not, and a point past
        // its old right edge hits it, the close button among them.
        #expect(card.frame == Rect(x: 70, y: 45, width: 300, height: 200) && card.center == Point(x: 170, y: 120))
        #expect(s.window.hitTest(Point(x: 350, y: 100), with: nil) === card)
        #expect(s.window.hitTest(Point(x: 30, y: 30), with: nil) !== card)
        #expect(s.window.hitTest(Point(x: 296 + 50, y: 44 + 25), with: nil) === card.closeButton)
        s.lift(2, at: 1.2)
        #expect(card.transform == .identity)
    }
}
