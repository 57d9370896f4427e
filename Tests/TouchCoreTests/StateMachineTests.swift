import Testing
@testable import TouchCore

/// A recognizer whose script sets states directly, to test the environment on its own.
final class ScriptedRecognizer: GestureRecognizer {
    var discrete = false
    var onBegan: ((ScriptedRecognizer) -> Void)?
    var onMoved: ((ScriptedRecognizer) -> Void)?
    var onEnded: ((ScriptedRecognizer) -> Void)?
    var resets = 0
    override var isDiscrete: Bool { discrete }
    override func touchesBegan(_ touches: Set<Touch>, with event: Event) { onBegan?(self) }
    override func touchesMoved(_ touches: Set<Touch>, with event: Event) { onMoved?(self) }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event) { onEnded?(self) }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event) { state = .failed }
    override func reset() { super.reset(); resets += 1 }
}

@Suite("Recognizer state machine (uikit-semantics S1–S7)")
struct StateMachineTests {
    typealias S = GestureRecognizer.State

    @Test("S1: raw values and the recognized alias")
    func rawValues() {
        #expect([S.possible, .began, .changed, .ended, .cancelled, .failed].map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(S.recognized == .ended)
    }

    @Test("S2: the legal transitions, and only those")
    func transitionTable() {
        let all: [S] = [.possible, .began, .changed, .ended, .cancelled, .failed]
        var discrete: [String] = [], continuous: [String] = []
        for a in all {
            for b in all {
                if S.isLegalTransition(from: a, to: b, discrete: true) { discrete.append("\(a)→\(b)") }
                if S.isLegalTransition(from: a, to: b, discrete: false) { continuous.append("\(a)→\(b)") }
            }
        }
        #expect(discrete == ["possible→ended", "possible→failed"])
        #expect(continuous == ["possible→began", "possible→failed", "began→changed", "began→ended",
                               "began→cancelled", "changed→changed", "changed→ended", "changed→cancelled"])
    }

    @Test("S3: actions on began, changed, ended and cancelled, never on failed; every target runs")
    func actions() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let r = s.attach(ScriptedRecognizer(), "r", to: v)
        var second = 0
        r.addTarget { _ in second += 1 }
        r.onBegan = { $0.state = .began }
        r.onMoved = { $0.state = .changed }
        r.onEnded = { $0.state = .ended }
        s.touch(1, 10, 10, at: 0)
        s.touch(1, 20, 10, at: 0.1)
        s.lift(1, at: 0.2)
        // r began inside touchesBegan, before the view heard of the touch: with cancelsTouchesInView
        // the view never does (C1).
        #expect(s.recorder.lines == ["r began", "r changed", "r ended"])
        #expect(second == 3)
        let f = s.attach(ScriptedRecognizer(), "f", to: v)
        r.onBegan = nil
        f.onBegan = { $0.state = .failed }
        s.recorder.lines = []
        s.touch(1, 10, 10, at: 1)
        #expect(s.recorder.lines == ["v.began #2"])
    }

    @Test("S6: touchesCancelled cancels a continuous recognizer that began and fails a discrete one")
    func cancellation() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        s.touch(1, 10, 10, at: 0)
        s.touch(1, 40, 10, at: 0.05)
        s.cancel(1, at: 0.1)
        #expect(pan.state == .possible && tap.state == .possible)        // reset after the sequence
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1", "pan began", "pan cancelled"])
        // The log line ends with the recognizer's own reason, where it gave one.
        #expect(s.transitions.contains { $0.hasPrefix("PanGestureRecognizer(pan): changed → touchesCancelled → cancelled") }
                || s.transitions.contains { $0.hasPrefix("PanGestureRecognizer(pan): began → touchesCancelled → cancelled") })
    }

    @Test("S4: terminal states last until the touch sequence ends, then reset() runs and the state is possible")
    func resetAtSequenceEnd() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let r = s.attach(ScriptedRecognizer(), "r", to: v)
        r.discrete = true
        r.onMoved = { if $0.state == .possible { $0.state = .recognized } }
        s.touch(1, 10, 10, at: 0)
        s.touch(1, 20, 10, at: 0.1)
        #expect(r.state == .ended)
        s.touch(1, 30, 10, at: 0.2)          // P3: a finished recognizer receives nothing
        #expect(r.state == .ended && r.resets == 0)
        s.lift(1, at: 0.3)
        #expect(r.state == .possible && r.resets == 1)
        #expect(s.recorder.lines.filter { $0.hasPrefix("r ") } == ["r ended"])
    }

    @Test("S4: after reset, touches that are still down are ignored by that recognizer")
    func touchesDownAfterResetAreIgnored() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        s.touch(1, 10, 10, at: 0)
        s.touch(2, 100, 100, at: 0.01)       // two fingers: the one-finger tap fails
        #expect(tap.state == .failed)
        s.lift(1, at: 0.02)
        #expect(tap.state == .failed)        // #2 still down
        s.lift(2, at: 0.03)
        #expect(tap.state == .possible)
    }

    @Test("S5: gestureRecognizerShouldBegin false, from the delegate or from the touched view, fails it without an action")
    func shouldBegin() {
        final class No: GestureRecognizerDelegate {
            func gestureRecognizerShouldBegin(_ g: GestureRecognizer) -> Bool { false }
        }
        final class Control: View {
            override func gestureRecognizerShouldBegin(_ g: GestureRecognizer) -> Bool {
                !(g is TapGestureRecognizer && g.view !== self)       // X6: a button keeps its taps
            }
        }
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: v)
        let no = No()
        tap.delegate = no
        s.tap(1, 10, 10, at: 0)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
        tap.delegate = nil
        let button = Control(frame: Rect(x: 100, y: 100, width: 50, height: 50))
        v.addSubview(button)
        s.recorder.lines = []
        s.tap(1, 110, 110, at: 1)
        // The button refuses the superview's tap; its touches travel up the chain to v (R3).
        #expect(s.recorder.lines == ["v.began #2", "v.ended #2"])
        s.recorder.lines = []
        s.tap(1, 10, 10, at: 2)
        #expect(s.recorder.lines == ["v.began #3", "v.cancelled #3", "tap ended"])
    }

    @Test("S2: transitions are logged as `recognizer: state → input → state`")
    func transitionLog() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.attach(TapGestureRecognizer(), "tap", to: v)
        s.tap(1, 10, 10, at: 0)
        #expect(s.transitions == ["TapGestureRecognizer(tap): possible → touchesEnded → ended",
                                  "TapGestureRecognizer(tap): ended → touch sequence ended → possible"])
    }

    @Test("A recognizer that is not in a window changes state and sends actions directly")
    func noEnvironment() {
        let r = ScriptedRecognizer()
        var log: [String] = []
        r.addTarget { log.append("\($0.state)") }
        r.state = .began
        r.state = .changed
        r.state = .ended
        #expect(log == ["began", "changed", "ended"])
    }
}

@Suite("S5: views asked before a recognizer begins")
struct ViewShouldBeginTests {
    @Test("The recognizer's own view may refuse it, as the touched view may")
    func ownView() {
        final class Refusing: View {
            var asked = 0
            override func gestureRecognizerShouldBegin(_ g: GestureRecognizer) -> Bool {
                asked += 1
                return false
            }
        }
        let s = Scene()
        let outer = Refusing(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        s.window.addSubview(outer)
        let inner = s.view("inner", 100, 100, 100, 100, in: outer)
        s.attach(TapGestureRecognizer(), "tap", to: outer)
        s.tap(1, 150, 150, at: 0)
        #expect(outer.asked == 1)
        #expect(s.recorder.lines == ["inner.began #1", "inner.ended #1"])
        _ = inner
    }
}
