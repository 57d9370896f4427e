import Testing
@testable import TouchCore

@Suite("Gesture environment: what the view hears (uikit-semantics C1–C7, P2, P3)")
struct GatingTests {
    @Test("C1, C3: a single tap is recognized at the lift and the view gets touchesCancelled at once")
    func tapCancelsAtLift() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(TapGestureRecognizer(), "tap", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 103, 100, at: 0.03)
        s.lift(1, at: 0.06)
        #expect(s.recorder.lines == ["v.began #1", "v.moved #1", "v.cancelled #1", "tap ended"])
    }

    @Test("C1: with cancelsTouchesInView = false the view keeps the whole sequence")
    func tapWithoutCancelling() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        tap.cancelsTouchesInView = false
        s.tap(1, 100, 100, at: 0)
        #expect(s.recorder.lines == ["v.began #1", "tap ended", "v.ended #1"])
    }

    @Test("C3: a long press whose finger lifts before 0.5 s fails at the lift: no delay")
    func longPressLiftEarly() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(LongPressGestureRecognizer(), "press", to: v)
        s.tap(1, 100, 100, at: 0)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
    }

    @Test("C3: a double-tap recognizer holds the view's touchesEnded ~0.35 s, then delivers it late when it fails")
    func doubleTapHoldsEnd() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        s.tap(1, 100, 100, at: 0)
        #expect(s.recorder.lines == ["v.began #1"])
        s.advance(to: 0.39)
        #expect(s.recorder.lines == ["v.began #1"])
        s.advance(to: 0.40)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
    }

    @Test("C3: a held touchesEnded waits while other recognizers come and go, and is delivered when its holder fails")
    func heldEndSurvivesOtherUpdates() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        s.attach(PanGestureRecognizer(), "pan", to: v)
        s.tap(1, 100, 100, at: 0)
        s.advance(to: 0.2)
        #expect(s.recorder.lines == ["v.began #1"])
        s.advance(to: 0.4)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
    }

    @Test("C3: with delaysTouchesEnded = false the view's end is not held")
    func noEndDelay() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        double.delaysTouchesEnded = false
        s.tap(1, 100, 100, at: 0)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
    }

    @Test("C2: delaysTouchesBegan withholds began; when the recognizer wins the view never hears of the touch")
    func delayedBeganDiscarded() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        press.delaysTouchesBegan = true
        s.touch(1, 100, 100, at: 0)
        s.advance(to: 0.6)
        s.lift(1, at: 0.7)
        #expect(s.recorder.lines == ["press began", "press ended"])
    }

    @Test("C2: when the delaying recognizer fails the view gets the late began with the touch's first location and time, then catches up")
    func delayedBeganDelivered() {
        final class WhereView: View {
            var log: [String] = []
            override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
                let t = touches.first!
                log.append("began \(t.location(in: self)) t=\(t.timestamp) \(t.phase)")
            }
            override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
                log.append("moved \(touches.first!.location(in: self))")
            }
            override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { log.append("ended") }
        }
        let s = Scene()
        let v = WhereView(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        s.window.addSubview(v)
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        press.delaysTouchesBegan = true
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 105, 100, at: 0.1)
        #expect(v.log.isEmpty)
        s.touch(1, 150, 100, at: 0.2)        // moved 50 pt: the long press fails
        #expect(v.log == ["began (100.0, 100.0) t=0.0 began", "moved (150.0, 100.0)"])
        s.lift(1, at: 0.3)
        #expect(v.log.last == "ended")
    }

    @Test("C2: a delayed began for a touch that already lifted is delivered with its end")
    func delayedBeganThenEnded() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        tap.delaysTouchesBegan = true
        tap.numberOfTouchesRequired = 2
        s.tap(1, 100, 100, at: 0)             // one finger: the two-finger tap fails at the lift
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
    }

    @Test("C4: the view is delayed if any possible recognizer delays, and cancelled if any winner cancels")
    func combining() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let keep = s.attach(PanGestureRecognizer(), "pan", to: v)
        keep.cancelsTouchesInView = false
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        s.tap(1, 100, 100, at: 0)
        #expect(s.recorder.lines == ["v.began #1"])      // the double tap holds the end
        s.tap(2, 100, 100, at: 0.2)
        #expect(s.recorder.lines == ["v.began #1", "v.began #2", "v.cancelled #1 #2", "double ended"])
    }

    @Test("C5: a touch the recognizer ignores is not part of the gesture, so the view is not cancelled for it")
    func ignoredTouch() {
        final class IgnoreSecond: PanGestureRecognizer {
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
                for t in touches where t.contactID == 2 { ignore(t, for: event) }
                super.touchesBegan(touches.filter { $0.contactID != 2 }, with: event)
            }
        }
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let pan = s.attach(IgnoreSecond(), "pan", to: v)
        s.touch(2, 300, 300, at: 0)
        s.touch(1, 100, 100, at: 0.01)
        s.touch(1, 130, 100, at: 0.02)
        #expect(pan.state == .began && pan.numberOfTouches == 1)
        #expect(!s.app.activeTouches[0].gestureRecognizers.contains { $0 === pan })
        #expect(s.recorder.lines == ["v.began #1", "v.began #2", "v.cancelled #2", "pan began"])
    }

    @Test("C6: isEnabled = false cancels an active gesture with an action; a disabled recognizer gets no touches")
    func disabling() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 130, 100, at: 0.05)
        pan.isEnabled = false
        #expect(pan.state == .cancelled)
        s.touch(1, 160, 100, at: 0.1)
        s.lift(1, at: 0.15)
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1", "pan began", "pan cancelled"])
        #expect(pan.state == .possible)
        s.recorder.lines = []
        s.tap(1, 100, 100, at: 1)
        #expect(s.recorder.lines == ["v.began #2", "v.ended #2"])
        pan.isEnabled = true
        s.touch(1, 100, 100, at: 2)
        s.touch(1, 130, 100, at: 2.05)
        #expect(pan.state == .began)
    }

    @Test("C6: disabling a recognizer in possible fails it, which releases what it held")
    func disablingPossible() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        s.tap(1, 100, 100, at: 0)
        double.isEnabled = false
        #expect(s.transitions.contains("TapGestureRecognizer(double): possible → isEnabled = false → failed"))
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
        #expect(s.app.nextDeadline == nil)
    }

    @Test("C7: a system cancellation cancels the recognizers and the view")
    func systemCancel() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        press.cancelsTouchesInView = false
        s.touch(1, 100, 100, at: 0)
        s.advance(to: 0.5)
        s.app.cancelTouches(at: 0.6)
        #expect(s.recorder.lines == ["v.began #1", "press began", "press cancelled", "v.cancelled #1"])
    }

    @Test("P2: shouldReceive false keeps the touch away from the recognizer; it is not part of its gesture")
    func shouldReceive() {
        final class OnlyLeftHalf: GestureRecognizerDelegate {
            func gestureRecognizer(_ g: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
                touch.location(in: nil).x < 200
            }
        }
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        let filter = OnlyLeftHalf()
        tap.delegate = filter
        s.tap(1, 300, 100, at: 0)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
        s.tap(1, 100, 100, at: 1)
        #expect(s.recorder.lines.suffix(2) == ["v.cancelled #2", "tap ended"])
    }

    @Test("Removing a recognizer mid-gesture withdraws it without an action and releases the view")
    func removal() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        s.tap(1, 100, 100, at: 0)
        v.removeGestureRecognizer(double)
        #expect(double.view == nil && double.state == .possible)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
        #expect(s.app.nextDeadline == nil)
    }

    @Test("After the last finger lifts and every deadline passed, no recognizer is left taking part")
    func nothingLeftBehind() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let all: [GestureRecognizer] = [TapGestureRecognizer(), LongPressGestureRecognizer(), PanGestureRecognizer(),
                                        SwipeGestureRecognizer(), PinchGestureRecognizer(), RotationGestureRecognizer()]
        for (i, r) in all.enumerated() { s.attach(r, "r\(i)", to: v) }
        s.move([1: (100, 100), 2: (200, 200)], at: 0)
        s.move([1: (80, 120), 2: (230, 190)], at: 0.1)
        s.lift(1, at: 0.2)
        s.tap(3, 50, 50, at: 0.3)
        s.lift(2, at: 0.4)
        s.advance(to: 10)
        #expect(s.window.environment.participants.isEmpty)
        #expect(all.allSatisfy { $0.state == .possible })
    }
}
