import Testing
@testable import TouchCore

/// A delegate that lets a named pair (or everyone, with "*") recognize together.
final class Simultaneous: GestureRecognizerDelegate {
    var pairs: [(String, String)]
    var everyone = false
    init(_ pairs: [(String, String)] = [], everyone: Bool = false) {
        self.pairs = pairs
        self.everyone = everyone
    }
    func gestureRecognizer(_ g: GestureRecognizer, shouldRecognizeSimultaneouslyWith o: GestureRecognizer) -> Bool {
        everyone || pairs.contains { ($0.0 == g.name && $0.1 == o.name) || ($0.1 == g.name && $0.0 == o.name) }
    }
}

func translation(_ p: PanGestureRecognizer) -> String {
    let t = p.translation(in: nil)
    return "(\(t.x), \(t.y))"
}

@Suite("Gesture environment: delivery order and timing (uikit-semantics D1–D4)")
struct DeliveryOrderTests {
    @Test("D4: a pan over a logging view: began, moved…, cancelled, then the pan's actions")
    func panCancelsViewBeforeFirstAction() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(PanGestureRecognizer(), "pan", to: v, detail: translation)
        s.touch(1, 100, 100, at: 0.00)
        s.touch(1, 104, 100, at: 0.01)
        s.touch(1, 108, 100, at: 0.02)
        s.touch(1, 112, 103, at: 0.03)       // |x| = 12 ≥ 10: began, hysteresis removed (PAN3)
        s.touch(1, 120, 103, at: 0.04)
        s.lift(1, at: 0.05)
        #expect(s.recorder.lines == [
            "v.began #1", "v.moved #1", "v.moved #1",
            "v.cancelled #1", "pan began (2.0, 0.0)",
            "pan changed (10.0, 0.0)",
            "pan ended (10.0, 0.0)",
        ])
    }

    @Test("D4: with cancelsTouchesInView = false the view's moves interleave with the actions and it ends normally")
    func panWithoutCancelling() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        pan.cancelsTouchesInView = false
        s.touch(1, 100, 100, at: 0.00)
        s.touch(1, 115, 100, at: 0.01)
        s.touch(1, 130, 100, at: 0.02)
        s.lift(1, at: 0.03)
        #expect(s.recorder.lines == ["v.began #1", "pan began", "v.moved #1", "pan changed", "v.moved #1",
                                     "pan ended", "v.ended #1"])
    }

    @Test("D1, P1, P4: a recognizer on an ancestor (and on the window) sees touches on a subview, before the view")
    func ancestorRecognizers() {
        let s = Scene()
        let outer = s.view("outer", 0, 0, 400, 400)
        let inner = s.view("inner", 100, 100, 50, 50, in: outer)
        let r1 = s.attach(ScriptedRecognizer(), "outerRec", to: outer)
        let r2 = s.attach(ScriptedRecognizer(), "windowRec", to: s.window)
        let r3 = s.attach(ScriptedRecognizer(), "innerRec", to: inner)
        var order: [String] = []
        for r in [r1, r2, r3] { r.onBegan = { order.append($0.name!) } }
        s.touch(1, 110, 110, at: 0)
        // X7: hit-test view outward.
        #expect(order == ["innerRec", "outerRec", "windowRec"])
        #expect(s.app.activeTouches[0].gestureRecognizers.map(\.name) == ["innerRec", "outerRec", "windowRec"])
        #expect(s.recorder.lines == ["inner.began #1"])
    }

    @Test("D3: a long press begins on its timer, reported through nextDeadline, and cancels the view at 0.5 s")
    func longPressTimer() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(LongPressGestureRecognizer(), "press", to: v)
        s.touch(1, 100, 100, at: 1.0)
        #expect(s.app.nextDeadline == 1.5)
        s.advance(to: 1.49)
        #expect(s.recorder.lines == ["v.began #1"])
        s.advance(to: 1.5)
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1", "press began"])
        #expect(s.app.nextDeadline == nil)
        s.touch(1, 130, 100, at: 2.0)        // LP4: no movement limit after began
        s.lift(1, at: 2.1)
        #expect(s.recorder.lines.suffix(2) == ["press changed", "press ended"])
    }

    @Test("D3: a frame later than a deadline fires the timer first")
    func timersBeforeLaterFrames() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(LongPressGestureRecognizer(), "press", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 102, 100, at: 0.7)
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1", "press began", "press changed"])
    }
}

@Suite("Gesture environment: exclusion (uikit-semantics X1–X7)")
struct ExclusionTests {
    @Test("X1: when a pan begins, a long press in possible fails and a tap fails")
    func panExcludesOthers() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        press.allowableMovement = 100
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 120, 100, at: 0.1)
        #expect(pan.state == .began && press.state == .failed && tap.state == .failed)
        s.lift(1, at: 0.2)
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1", "pan began", "pan ended"])
    }

    @Test("X1: a long press that began is cancelled, with its action, when a simultaneous-less competitor begins later")
    func activeCompetitorIsCancelled() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        let r = s.attach(ScriptedRecognizer(), "custom", to: v)
        r.onMoved = { if $0.state == .possible { $0.state = .began } }
        final class CannotBePrevented: GestureRecognizerDelegate {}
        s.touch(1, 100, 100, at: 0)
        s.advance(to: 0.5)
        #expect(press.state == .began)
        s.touch(1, 105, 100, at: 0.6)
        // The custom recognizer is prevented by the active long press (X1, X3).
        #expect(r.state == .failed && press.state == .changed)
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1", "press began", "press changed"])
    }

    @Test("X2: either delegate saying yes lets two recognizers run together (OR rule)")
    func orRule() {
        for (delegateOnPinch, delegateOnRotation) in [(true, false), (false, true), (true, true), (false, false)] {
            let s = Scene()
            let v = s.view("v", 0, 0, 400, 400)
            v.isMultipleTouchEnabled = true
            let pinch = s.attach(PinchGestureRecognizer(), "pinch", to: v)
            let rotation = s.attach(RotationGestureRecognizer(), "rotation", to: v)
            let yes = Simultaneous(everyone: true)
            if delegateOnPinch { pinch.delegate = yes }
            if delegateOnRotation { rotation.delegate = yes }
            s.move([1: (100, 200), 2: (300, 200)], at: 0)
            // Turn and spread at once.
            s.move([1: (90, 180), 2: (310, 220)], at: 0.05)
            s.move([1: (80, 160), 2: (320, 240)], at: 0.10)
            let both = pinch.state.rawValue >= 1 && rotation.state.rawValue >= 1
                && pinch.state != .failed && rotation.state != .failed
            #expect(both == (delegateOnPinch || delegateOnRotation))
        }
    }

    @Test("X3: canPrevent / canBePrevented overrides keep a competitor alive")
    func preventionOverrides() {
        final class Unpreventable: TapGestureRecognizer {
            override func canBePrevented(by other: GestureRecognizer) -> Bool { false }
        }
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let press = s.attach(LongPressGestureRecognizer(), "press", to: v)
        press.minimumPressDuration = 0.1
        let tap = s.attach(Unpreventable(), "tap", to: v)
        tap.maximumTapDuration = 1
        s.touch(1, 100, 100, at: 0)
        s.advance(to: 0.1)
        #expect(press.state == .began && tap.state == .possible)
    }

    @Test("X4: a single tap never prevents a double tap; a double tap prevents a single tap")
    func tapVersusTap() {
        let single = TapGestureRecognizer(), double = TapGestureRecognizer()
        double.numberOfTapsRequired = 2
        let twoFinger = TapGestureRecognizer()
        twoFinger.numberOfTouchesRequired = 2
        #expect(!single.canPrevent(double))
        #expect(double.canPrevent(single))
        #expect(!double.canPrevent(twoFinger) && !twoFinger.canPrevent(single))
        #expect(single.canPrevent(PanGestureRecognizer()))
    }

    @Test("X5: two recognizers on unrelated views, each with its own finger, both recognize")
    func unrelatedViewsDoNotCompete() {
        let s = Scene()
        let left = s.view("left", 0, 0, 200, 400)
        let right = s.view("right", 200, 0, 200, 400)
        let a = s.attach(PanGestureRecognizer(), "panL", to: left)
        let b = s.attach(PanGestureRecognizer(), "panR", to: right)
        s.move([1: (50, 100), 2: (250, 100)], at: 0)
        s.move([1: (50, 130), 2: (250, 130)], at: 0.05)
        #expect(a.state == .began && b.state == .began)
        s.lift(1, 2, at: 0.1)
        #expect(s.recorder.lines.filter { !$0.contains(".") } == ["panL began", "panR began", "panL ended", "panR ended"])
    }

    @Test("X5: a tap on one view is recognized and reset while a pan on another view goes on")
    func independentSequences() {
        let s = Scene()
        let left = s.view("left", 0, 0, 200, 400)
        let right = s.view("right", 200, 0, 200, 400)
        s.attach(PanGestureRecognizer(), "pan", to: left)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: right)
        s.touch(1, 50, 100, at: 0)
        s.touch(1, 50, 150, at: 0.05)
        s.tap(2, 300, 100, at: 0.1)
        #expect(tap.state == .possible)
        s.tap(3, 300, 100, at: 0.6)
        #expect(s.recorder.lines.filter { $0.hasPrefix("tap") } == ["tap ended", "tap ended"])
    }

    @Test("X5: pan beats swipe on the same view (a continuous recognizer leaves possible first)")
    func panBeatsSwipe() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(PanGestureRecognizer(), "pan", to: v)
        let swipe = s.attach(SwipeGestureRecognizer(), "swipe", to: v)
        s.drag(1, by: 100, 0, steps: 5, from: 0)
        #expect(swipe.state == .failed)
    }

    @Test("X7: recognizers that leave possible in the same event: the hit-test view's first, then attachment order")
    func sameEventTieBreak() {
        let s = Scene()
        let outer = s.view("outer", 0, 0, 400, 400)
        let inner = s.view("inner", 0, 0, 200, 200, in: outer)
        let a = s.attach(TapGestureRecognizer(), "outerTap", to: outer)
        let b = s.attach(TapGestureRecognizer(), "innerTap", to: inner)
        s.tap(1, 50, 50, at: 0)
        #expect(s.recorder.lines.filter { $0.hasSuffix("ended") && !$0.contains(".") } == ["innerTap ended"])
        _ = (a, b)
    }
}

@Suite("Gesture environment: failure requirements (uikit-semantics F1–F5)")
struct FailureRequirementTests {
    func doubleTapScene(requirement: Bool) -> (Scene, TapGestureRecognizer, TapGestureRecognizer) {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let single = s.attach(TapGestureRecognizer(), "single", to: v)
        let double = TapGestureRecognizer()
        double.numberOfTapsRequired = 2
        s.attach(double, "double", to: v)
        if requirement { single.require(toFail: double) }
        return (s, single, double)
    }

    @Test("F4: with single.require(toFail: double), a single tap fires only when the double fails, 0.35 s after the lift [seed 000, 002]")
    func singleWaitsForDouble() {
        let (s, single, _) = doubleTapScene(requirement: true)
        s.touch(1, 100, 100, at: 0)
        s.lift(1, at: 0.1)
        #expect(single.state == .possible)
        #expect(s.app.nextDeadline == 0.1 + 0.35)
        s.advance(to: 0.44)
        #expect(s.recorder.lines == ["v.began #1"])         // C3: the view's end is held as well
        s.advance(to: 0.45)
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1", "single ended"])
        #expect(s.transitions.contains(
            "TapGestureRecognizer(single): possible → TapGestureRecognizer(double) failed; failure requirements satisfied → ended"))
        #expect(s.app.nextDeadline == nil)
    }

    @Test("F4: a double tap fires only the double-tap action")
    func doubleOnly() {
        let (s, single, double) = doubleTapScene(requirement: true)
        s.tap(1, 100, 100, at: 0)
        s.tap(2, 102, 101, at: 0.2)
        #expect(s.recorder.lines == ["v.began #1", "v.began #2", "v.cancelled #1 #2", "double ended"])
        #expect(single.state == .possible && double.state == .possible)
        s.advance(to: 5)
        #expect(s.recorder.lines.count == 4)
    }

    @Test("F4, X4: without the requirement a double tap fires single and then double")
    func singleThenDouble() {
        let (s, _, _) = doubleTapScene(requirement: false)
        s.tap(1, 100, 100, at: 0)
        s.tap(2, 100, 100, at: 0.2)
        s.advance(to: 5)
        #expect(s.recorder.lines.filter { !$0.contains(".") } == ["single ended", "double ended"])
    }

    @Test("F1: if the required recognizer begins, the dependent fails")
    func dependentFailsWhenRequirementWins() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        let edge = s.attach(ScreenEdgePanGestureRecognizer(), "edge", to: v)
        edge.edges = .left
        pan.require(toFail: edge)
        s.touch(1, 5, 100, at: 0)
        s.touch(1, 40, 100, at: 0.05)
        #expect(edge.state == .began && pan.state == .failed)
    }

    @Test("F1, F5: a pan waiting for a swipe reads possible, and when the swipe fails it begins with translation zero")
    func panWaitsForSwipe() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v, detail: translation)
        let swipe = s.attach(SwipeGestureRecognizer(), "swipe", to: v)
        swipe.direction = .up
        pan.require(toFail: swipe)
        s.touch(1, 100, 300, at: 0)
        s.touch(1, 106, 300, at: 0.01)
        s.touch(1, 120, 300, at: 0.02)       // the pan would begin: waits for the up-swipe
        #expect(pan.state == .possible && swipe.state == .possible)
        s.touch(1, 140, 300, at: 0.03)       // the swipe gives up (moving against .up? no: sideways) …
        s.touch(1, 140, 340, at: 0.04)       // … moving down is against .up: it fails, the pan begins
        #expect(swipe.state == .failed)
        #expect(s.recorder.lines.filter { $0.hasPrefix("pan") } == ["pan began (0.0, 0.0)"])
        s.touch(1, 150, 340, at: 0.05)
        #expect(s.recorder.lines.last == "pan changed (10.0, 0.0)")
    }

    @Test("F2: a dynamic requirement from the delegate works like require(toFail:)")
    func dynamicRequirement() {
        final class WaitForDouble: GestureRecognizerDelegate {
            func gestureRecognizer(_ g: GestureRecognizer, shouldRequireFailureOf o: GestureRecognizer) -> Bool {
                g.name == "single" && o.name == "double"
            }
        }
        let (s, single, _) = doubleTapScene(requirement: false)
        let d = WaitForDouble()
        single.delegate = d
        s.tap(1, 100, 100, at: 0)
        #expect(single.state == .possible)
        s.advance(to: 1)
        #expect(s.recorder.lines.filter { !$0.contains(".") } == ["single ended"])
    }

    @Test("F2: shouldBeRequiredToFail(by:) in a subclass establishes the same edge")
    func subclassRequirement() {
        final class DoubleThatMustFailFirst: TapGestureRecognizer {
            override func shouldBeRequiredToFail(by other: GestureRecognizer) -> Bool {
                (other as? TapGestureRecognizer)?.numberOfTapsRequired == 1
            }
        }
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let single = s.attach(TapGestureRecognizer(), "single", to: v)
        let double = DoubleThatMustFailFirst()
        double.numberOfTapsRequired = 2
        s.attach(double, "double", to: v)
        s.tap(1, 100, 100, at: 0)
        #expect(single.state == .possible)
        s.tap(2, 100, 100, at: 0.2)
        s.advance(to: 1)
        #expect(s.recorder.lines.filter { !$0.contains(".") } == ["double ended"])
    }

    @Test("F3: a chain of requirements resolves in order: triple fails → double fails → single fires")
    func chain() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let single = s.attach(TapGestureRecognizer(), "single", to: v)
        let double = s.attach(TapGestureRecognizer(), "double", to: v)
        double.numberOfTapsRequired = 2
        let triple = s.attach(TapGestureRecognizer(), "triple", to: v)
        triple.numberOfTapsRequired = 3
        single.require(toFail: double)
        double.require(toFail: triple)
        s.tap(1, 100, 100, at: 0)
        s.tap(2, 100, 100, at: 0.2)
        s.advance(to: 2)
        #expect(s.recorder.lines.filter { !$0.contains(".") } == ["double ended"])
        s.recorder.lines = []
        s.tap(3, 100, 100, at: 3)
        s.advance(to: 5)
        #expect(s.recorder.lines.filter { !$0.contains(".") } == ["single ended"])
    }

    @Test("F3: requirements that form a cycle do not wait forever; the log names the cycle")
    func cycle() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let a = s.attach(TapGestureRecognizer(), "a", to: v)
        let b = s.attach(TapGestureRecognizer(), "b", to: v)
        a.require(toFail: b)
        b.require(toFail: a)
        s.tap(1, 100, 100, at: 0)
        s.advance(to: 1)
        #expect(s.recorder.lines.filter { !$0.contains(".") } == ["a ended"])
        #expect(s.transitions.contains { $0.hasPrefix("scene bug: failure requirements form a cycle") })
        #expect(a.state == .possible && b.state == .possible)
    }

    @Test("F1: a requirement that takes no part in the sequence does not hold the dependent back")
    func idleRequirement() {
        let s = Scene()
        let v = s.view("v", 0, 0, 200, 400)
        let other = s.view("other", 200, 0, 200, 400)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        let elsewhere = s.attach(TapGestureRecognizer(), "elsewhere", to: other)
        tap.require(toFail: elsewhere)
        s.tap(1, 100, 100, at: 0)
        #expect(s.recorder.lines.last == "tap ended")
    }
}

/// The hints a delegate gives for scenes of many recognizers (not in UIKit): what they save is asking,
/// so the tests count the questions; what a scene does must not change.
@Suite("Gesture environment: many recognizers (F2 and X2 asked only where an answer can matter)")
struct ManyRecognizersTests {
    final class Counting: GestureRecognizerDelegate {
        var requirementQuestions = 0
        var simultaneityQuestions = 0
        let answers: Bool
        let everyone: Bool
        init(answers: Bool, everyone: Bool = false) {
            self.answers = answers
            self.everyone = everyone
        }
        var answersFailureRequirements: Bool { answers }
        func recognizesSimultaneouslyWithEveryone(_ g: GestureRecognizer) -> Bool { everyone }
        func gestureRecognizer(_ g: GestureRecognizer, shouldRecognizeSimultaneouslyWith o: GestureRecognizer) -> Bool {
            simultaneityQuestions += 1
            return everyone
        }
        func gestureRecognizer(_ g: GestureRecognizer, shouldRequireFailureOf o: GestureRecognizer) -> Bool {
            requirementQuestions += 1
            return false
        }
        func gestureRecognizer(_ g: GestureRecognizer, shouldBeRequiredToFailBy o: GestureRecognizer) -> Bool {
            requirementQuestions += 1
            return false
        }
    }

    /// Forty pans on one view, each with `delegate`; one finger drags and lifts.
    func drag(_ delegate: Counting) -> (Scene, [PanGestureRecognizer]) {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        var pans: [PanGestureRecognizer] = []
        for i in 0..<40 {
            let p = s.attach(PanGestureRecognizer(), "pan\(i)", to: v)
            p.delegate = delegate
            pans.append(p)
        }
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 130, 100, at: 0.02)
        s.touch(1, 160, 100, at: 0.04)
        s.lift(1, at: 0.06)
        return (s, pans)
    }

    @Test("F2: a delegate that says it answers no failure requirement is never asked, and a default one is")
    func requirementQuestions() {
        let silent = Counting(answers: false, everyone: true)
        _ = drag(silent)
        #expect(silent.requirementQuestions == 0)
        let asking = Counting(answers: true, everyone: true)
        _ = drag(asking)
        #expect(asking.requirementQuestions > 0)
    }

    @Test("X2: recognizers simultaneous with everyone all begin and end, and no pair of them is asked")
    func simultaneousWithEveryone() {
        let d = Counting(answers: false, everyone: true)
        let (s, _) = drag(d)
        #expect(d.simultaneityQuestions == 0)
        #expect(s.recorder.lines.filter { $0.hasSuffix("began") }.count == 40)
        #expect(s.recorder.lines.filter { $0.hasSuffix("ended") }.count == 40)
    }

    @Test("X1: without the hint the first pan to begin excludes the other 39, as in UIKit")
    func withoutTheHint() {
        let d = Counting(answers: false, everyone: false)
        let (s, pans) = drag(d)
        #expect(s.recorder.lines.filter { $0.hasSuffix("began") } == ["pan0 began"])
        #expect(d.simultaneityQuestions >= 39)
        #expect(pans.allSatisfy { $0.state == .possible })          // all reset once the finger lifted
    }

    @Test("S4: a group of a hundred recognizers that finish one after another in one event is reset once, whole, in participation order")
    func groupResetOrder() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let d = Counting(answers: false, everyone: true)         // delegates are weak: kept here
        for i in 0..<100 { s.attach(TapGestureRecognizer(), "tap\(i)", to: v).delegate = d }
        s.touch(1, 100, 100, at: 0)
        s.touch(1, 200, 100, at: 0.05)                           // too far for a tap: each one fails
        let failed = s.transitions.filter { $0.hasSuffix("→ failed") || $0.contains("→ failed: ") }
        #expect(failed.count == 100)
        #expect(!s.transitions.contains { $0.hasSuffix("→ possible") })   // the finger is still down
        s.lift(1, at: 0.1)
        let resets = s.transitions.filter { $0.hasSuffix("→ possible") }
        #expect(resets.count == 100)
        #expect(resets.first?.contains("(tap0)") == true && resets.last?.contains("(tap99)") == true)
    }
}
