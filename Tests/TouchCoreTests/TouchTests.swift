import Testing
@testable import TouchCore

/// Logs touches with their phases and locations as the view sees them.
final class PhaseView: View {
    var log: [String] = []
    var events: [Event?] = []
    override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { record("began", touches, event) }
    override func touchesMoved(_ touches: Set<Touch>, with event: Event?) { record("moved", touches, event) }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { record("ended", touches, event) }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) { record("cancelled", touches, event) }
    private func record(_ what: String, _ touches: Set<Touch>, _ event: Event?) {
        events.append(event)
        let all = (event?.orderedTouches ?? []).map { "#\($0.identifier):\($0.phase)" }.joined(separator: ",")
        log.append("\(what) \(ids(touches)) [\(all)]")
    }
}

@Suite("Touches and events (uikit-semantics T1–T10, E1–E5)")
struct TouchTests {
    @Test("T1, T2, T3: one touch object per finger; every event carries every live touch, stationary included")
    func snapshotsWithStationary() {
        let s = Scene()
        let v = PhaseView(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        v.isMultipleTouchEnabled = true
        s.window.addSubview(v)
        s.touch(1, 10, 10, at: 0.00)
        s.touch(2, 50, 50, at: 0.01)
        s.touch(2, 60, 50, at: 0.02)
        s.lift(1, at: 0.03)
        s.lift(2, at: 0.04)
        #expect(v.log == [
            "began #1 [#1:began]",
            "began #2 [#1:stationary,#2:began]",
            "moved #2 [#1:stationary,#2:moved]",
            "ended #1 [#1:ended,#2:stationary]",
            "ended #2 [#2:ended]",
        ])
        // E1: one event object for the whole sequence.
        #expect(v.events.allSatisfy { $0 === v.events[0] })
    }

    @Test("E1: a new sequence gets a new event object")
    func newSequenceNewEvent() {
        let s = Scene()
        let v = PhaseView(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        s.window.addSubview(v)
        s.tap(1, 10, 10, at: 0)
        s.tap(1, 10, 10, at: 1)
        #expect(v.events.count == 4)
        #expect(v.events[0] === v.events[1] && v.events[2] === v.events[3] && v.events[1] !== v.events[2])
    }

    @Test("A frame that changes nothing makes no event")
    func unchangedFrame() {
        let s = Scene()
        let v = PhaseView(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        s.window.addSubview(v)
        s.touch(1, 10, 10, at: 0)
        s.touch(1, 10, 10, at: 0.01)
        s.touch(1, 10, 10, at: 0.02)
        #expect(v.log == ["began #1 [#1:began]"])
    }

    @Test("T4: view and window are fixed at began, even after the finger leaves the view")
    func viewFixedAtBegan() {
        let s = Scene()
        let a = s.view("a", 0, 0, 100, 100)
        s.view("b", 200, 200, 100, 100)
        s.touch(1, 50, 50, at: 0)
        let touch = s.app.activeTouches[0]
        s.touch(1, 250, 250, at: 0.1)
        #expect(touch.view === a && touch.window === s.window)
        s.lift(1, at: 0.2)
        #expect(s.recorder.lines == ["a.began #1", "a.moved #1", "a.ended #1"])
        #expect(touch.view === a)
    }

    @Test("T5: locations convert with the geometry at call time; previous equals current at began and while stationary")
    func locations() {
        let s = Scene()
        let v = s.view("v", 100, 100, 200, 200)
        s.touch(1, 150, 150, at: 0)
        let t = s.app.activeTouches[0]
        #expect(t.location(in: v) == Point(x: 50, y: 50))
        #expect(t.previousLocation(in: nil) == Point(x: 150, y: 150))
        s.touch(1, 160, 170, at: 0.01)
        #expect(t.location(in: nil) == Point(x: 160, y: 170))
        #expect(t.previousLocation(in: v) == Point(x: 50, y: 50))
        v.bounds.origin = Point(x: 10, y: 0)
        #expect(t.location(in: v) == Point(x: 70, y: 70))
        s.touch(2, 10, 10, at: 0.02)
        #expect(t.phase == .stationary)
        #expect(t.previousLocation(in: nil) == t.location(in: nil))
    }

    @Test("T6: timestamp is set at began and updated when the touch moves or ends, not while stationary")
    func timestamps() {
        let s = Scene()
        s.touch(1, 10, 10, at: 1.0)
        let t = s.app.activeTouches[0]
        #expect(t.timestamp == 1.0)
        s.touch(2, 90, 90, at: 1.5)
        #expect(t.timestamp == 1.0)
        s.touch(1, 20, 10, at: 2.0)
        #expect(t.timestamp == 2.0)
        s.lift(1, at: 2.5)
        #expect(t.timestamp == 2.5 && t.phase == .ended)
    }

    @Test("T7: tapCount climbs for quick taps in one place and is valid at began")
    func tapCountClimbs() {
        let s = Scene()
        var counts: [Int] = []
        s.app.onEvent = { e in for t in e.orderedTouches where t.phase == .began { counts.append(t.tapCount) } }
        for i in 0..<4 { s.tap(1, 100 + Double(i) * 5, 100, at: Double(i) * 0.2) }
        #expect(counts == [1, 2, 3, 4])
    }

    @Test("T7: tapCount resets after 0.35 s, beyond 45 pt, after a drag, or after a long hold")
    func tapCountResets() {
        let s = Scene()
        var counts: [Int] = []
        s.app.onEvent = { e in for t in e.orderedTouches where t.phase == .began { counts.append(t.tapCount) } }
        s.tap(1, 100, 100, at: 0)          // 1
        s.tap(1, 100, 100, at: 0.39)       // lifted at 0.05, down 0.34 s later → 2
        s.tap(1, 100, 100, at: 0.85)       // 0.41 s after the lift → 1
        s.tap(1, 150, 100, at: 1.0)        // 50 pt away → 1
        s.touch(1, 150, 100, at: 1.2)      // → 2, but a drag of 60 pt is not a tap
        s.touch(1, 210, 100, at: 1.25)
        s.lift(1, at: 1.3)
        s.tap(1, 210, 100, at: 1.4)        // → 1
        s.touch(1, 210, 100, at: 2.0)      // held 0.8 s: not a tap
        s.lift(1, at: 2.8)
        s.tap(1, 210, 100, at: 2.9)        // → 1
        #expect(counts == [1, 2, 1, 1, 2, 1, 1, 1])
    }

    @Test("T7: a two-finger double tap gives both second fingers tapCount 2; a cancelled touch is not a tap")
    func twoFingerTapCount() {
        let s = Scene()
        var counts: [Int] = []
        s.app.onEvent = { e in for t in e.orderedTouches where t.phase == .began { counts.append(t.tapCount) } }
        s.move([1: (100, 100), 2: (200, 100)], at: 0)
        s.lift(1, 2, at: 0.05)
        s.move([3: (102, 100), 4: (198, 101)], at: 0.2)
        s.lift(3, 4, at: 0.25)
        s.touch(5, 100, 100, at: 0.3)
        s.cancel(5, at: 0.32)
        s.tap(6, 100, 100, at: 0.4)
        #expect(counts == [1, 1, 2, 2, 3, 1])
    }

    @Test("T8: majorRadius, force and type come from the contact")
    func hardwareFields() {
        let s = Scene()
        s.app.handle(DigitizerFrame(timestamp: 0, contacts: [
            Contact(id: 7, location: Point(x: 5, y: 5), majorRadius: 4.5, force: 0.8, type: .pencil,
                    majorRadiusTolerance: 0.5, maximumPossibleForce: 4)]))
        let t = s.app.activeTouches[0]
        #expect(t.majorRadius == 4.5 && t.force == 0.8 && t.type == .pencil)
        #expect(t.majorRadiusTolerance == 0.5 && t.maximumPossibleForce == 4)
        #expect(t.contactID == 7 && t.device == 0)
        s.app.handle(DigitizerFrame(timestamp: 0.01, contacts: [
            Contact(id: 7, location: Point(x: 5, y: 5), majorRadius: 4.5, force: 1.2, type: .pencil)]))
        #expect(t.phase == .moved && t.force == 1.2)       // a force change is a change (3D Touch)
    }

    @Test("T9: a view without multiple touch hears only the first of its touches; recognizers get all")
    func multipleTouchDisabled() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: v)
        pan.cancelsTouchesInView = false
        s.touch(1, 10, 10, at: 0)
        s.touch(2, 100, 100, at: 0.01)
        #expect(pan.numberOfTouches == 2)
        s.lift(1, 2, at: 0.02)
        s.touch(3, 10, 10, at: 1)
        s.lift(3, at: 1.01)
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1", "v.began #3", "v.ended #3"])
        v.isMultipleTouchEnabled = true
        s.recorder.lines = []
        s.touch(4, 10, 10, at: 2)
        s.touch(5, 100, 100, at: 2.01)
        #expect(s.recorder.lines == ["v.began #4", "v.began #5"])
    }

    @Test("T10: an exclusive view blocks other views' new touches and is blocked by theirs; recognizers are not")
    func exclusiveTouch() {
        let s = Scene()
        let a = s.view("a", 0, 0, 100, 100)
        s.view("b", 200, 200, 100, 100)
        a.isExclusiveTouch = true
        s.touch(1, 50, 50, at: 0)
        s.touch(2, 250, 250, at: 0.01)       // b is blocked while a tracks #1
        s.lift(1, 2, at: 0.02)
        s.touch(3, 250, 250, at: 1)
        s.touch(4, 50, 50, at: 1.01)         // a is blocked while b tracks #3
        s.lift(3, 4, at: 1.02)
        #expect(s.recorder.lines == ["a.began #1", "a.ended #1", "b.began #3", "b.ended #3"])
    }

    @Test("E2, E3: allTouches spans views; touches(for:) selects by view, window and recognizer")
    func eventQueries() {
        let s = Scene()
        let a = s.view("a", 0, 0, 100, 100)
        let inner = s.view("inner", 10, 10, 20, 20, in: a)
        let b = s.view("b", 200, 200, 100, 100)
        let pan = s.attach(PanGestureRecognizer(), "pan", to: a)
        var checked = false
        s.app.onEvent = { [unowned s, unowned a, unowned inner, unowned b, unowned pan] e in     // the app keeps the closure
            guard e.orderedTouches.count == 3 else { return }
            #expect(e.type == .touches)
            #expect(e.allTouches.count == 3)
            #expect(e.touches(for: a).count == 1)        // descendants' touches are not included
            #expect(e.touches(for: inner).count == 1)
            #expect(e.touches(for: b).count == 1)
            #expect(e.touches(for: s.window).count == 3)
            #expect(e.touches(for: pan).count == 2)
            #expect(e.timestamp == 0.02)
            checked = true
        }
        s.touch(1, 50, 50, at: 0)
        s.touch(2, 15, 15, at: 0.01)
        s.touch(3, 250, 250, at: 0.02)
        #expect(checked)
    }

    @Test("E3: during a recognizer's touches… call, touches(for:) is the set it was given; another recognizer's, the touches it tracks")
    func touchesForRecognizerDuringDelivery() {
        /// Logs, for every moved call, the ids it was given, the ids touches(for: self) answers, and
        /// the ids touches(for: other) answers.
        final class Probe: GestureRecognizer {
            var log: [String] = []
            weak var other: GestureRecognizer?
            override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
                func ids(_ set: Set<Touch>) -> String { set.map(\.identifier).sorted().map(String.init).joined(separator: ",") }
                log.append("\(name!) given \(ids(touches)) own \(ids(event.touches(for: self))) other \(other.map { ids(event.touches(for: $0)) } ?? "-")")
            }
        }
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        let a = s.attach(Probe(), "a", to: v), b = s.attach(Probe(), "b", to: v)
        a.other = b
        b.other = a
        s.touch(1, 10, 10, at: 0)
        s.touch(2, 100, 100, at: 0.01)
        s.move([1: (20, 20)], at: 0.02)                 // one of the two moves: a subset is delivered
        s.move([1: (30, 30), 2: (110, 110)], at: 0.03)  // both move
        #expect(a.log == ["a given 1 own 1 other 1,2", "a given 1,2 own 1,2 other 1,2"])
        #expect(b.log == ["b given 1 own 1 other 1,2", "b given 1,2 own 1,2 other 1,2"])
        // Outside a delivery the answer is the tracked touches among the event's.
        var outside = ""
        s.app.onEvent = { e in outside = e.touches(for: a).map(\.identifier).sorted().map(String.init).joined(separator: ",") }
        s.move([2: (120, 120)], at: 0.04)
        #expect(outside == "1,2")
    }

    @Test("Touches of different devices are separate; the same contact id on two devices is two touches")
    func devicesAreSeparate() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        s.touch(1, 10, 10, at: 0, device: 0)
        s.touch(1, 20, 20, at: 0.01, device: 1)
        #expect(s.app.activeTouches.count == 2)
        s.lift(1, at: 0.02, device: 0)
        #expect(s.app.activeTouches.count == 1 && s.app.activeTouches[0].device == 1)
        #expect(s.recorder.lines == ["v.began #1", "v.began #2", "v.ended #1"])
    }
}

@Suite("Bad input gets a defined answer")
struct BadInputTests {
    @Test("A contact id twice in one frame: the last entry wins, and it is reported once")
    func duplicateIDs() {
        let s = Scene()
        var warnings: [String] = []
        s.app.onWarning = { warnings.append($0) }
        s.app.handle(DigitizerFrame(timestamp: 0, contacts: [Contact(id: 1, location: Point(x: 1, y: 1)),
                                                             Contact(id: 1, location: Point(x: 9, y: 9))]))
        #expect(s.app.activeTouches.count == 1)
        #expect(s.app.activeTouches[0].location(in: nil) == Point(x: 9, y: 9))
        s.app.handle(DigitizerFrame(timestamp: 0.1, contacts: [Contact(id: 1, location: Point(x: 1, y: 1)),
                                                               Contact(id: 1, location: Point(x: 9, y: 9))]))
        #expect(warnings.count == 1 && warnings[0].contains("appears twice"))
    }

    @Test("NaN or infinite coordinates: a touch keeps its last location; a new contact waits for a finite one")
    func nonFiniteCoordinates() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        s.app.handle(DigitizerFrame(timestamp: 0, contacts: [Contact(id: 1, location: Point(x: .nan, y: 5))]))
        #expect(s.app.activeTouches.isEmpty)
        s.app.handle(DigitizerFrame(timestamp: 0.1, contacts: [Contact(id: 1, location: Point(x: 5, y: 5))]))
        s.app.handle(DigitizerFrame(timestamp: 0.2, contacts: [Contact(id: 1, location: Point(x: .infinity, y: 5))]))
        #expect(s.app.activeTouches[0].location(in: v) == Point(x: 5, y: 5))
        s.app.handle(DigitizerFrame(timestamp: 0.3, contacts: []))
        #expect(s.recorder.lines == ["v.began #1", "v.ended #1"])
    }

    @Test("Timestamps that go backwards (or are NaN) are clamped to the last one")
    func backwardTimestamps() {
        let s = Scene()
        var warnings: [String] = []
        s.app.onWarning = { warnings.append($0) }
        s.touch(1, 10, 10, at: 5.0)
        s.touch(1, 20, 10, at: 4.0)
        #expect(s.app.activeTouches[0].timestamp == 5.0)
        s.touch(1, 30, 10, at: .nan)
        #expect(s.app.activeTouches[0].timestamp == 5.0)
        #expect(s.app.currentTime == 5.0)
        #expect(warnings.count == 1)
    }

    @Test("A frame from a device never seen before is simply a new device")
    func unknownDevice() {
        let s = Scene()
        s.touch(3, 10, 10, at: 0, device: 42)
        #expect(s.app.activeTouches.first?.device == 42)
    }

    @Test("isCancelled for an id with no touch is ignored; for a live touch it cancels it")
    func cancelUnknown() {
        let s = Scene()
        s.view("v", 0, 0, 400, 400)
        s.app.handle(DigitizerFrame(timestamp: 0, contacts: [Contact(id: 9, location: Point(x: 1, y: 1), isCancelled: true)]))
        #expect(s.app.activeTouches.isEmpty && s.recorder.lines.isEmpty)
        s.touch(1, 10, 10, at: 0.1)
        s.cancel(1, at: 0.2)
        #expect(s.recorder.lines == ["v.began #1", "v.cancelled #1"])
        #expect(s.app.activeTouches.isEmpty)
    }

    @Test("A touch outside every view has no view and reaches no one, but is still in the event")
    func touchOutsideWindow() {
        let s = Scene(width: 100, height: 100)
        var sizes: [Int] = []
        s.app.onEvent = { sizes.append($0.allTouches.count) }
        s.touch(1, 500, 500, at: 0)
        #expect(s.app.activeTouches[0].view == nil)
        s.lift(1, at: 0.1)
        #expect(sizes == [1, 1])
    }

    @Test("cancelTouches(device:) cancels one device's touches (device removed, C7)")
    func cancelDevice() {
        let s = Scene()
        let v = s.view("v", 0, 0, 400, 400)
        v.isMultipleTouchEnabled = true
        s.touch(1, 10, 10, at: 0, device: 0)
        s.touch(1, 20, 20, at: 0.01, device: 1)
        s.app.cancelTouches(device: 1, at: 0.02)
        #expect(s.recorder.lines == ["v.began #1", "v.began #2", "v.cancelled #2"])
        #expect(s.app.activeTouches.count == 1)
    }
}

@Suite("Responder chain (uikit-semantics R1–R4)")
struct ResponderChainTests {
    final class EndOfChainApp {
        var log: [String] = []
    }

    @Test("R2, R3: unhandled touches travel view → superview → window → application, then are dropped (R4)")
    func forwarding() {
        let s = Scene()
        let outer = s.view("outer", 0, 0, 300, 300)
        let inner = s.view("inner", 10, 10, 100, 100, in: outer)
        inner.forwards = true
        outer.forwards = true
        s.tap(1, 50, 50, at: 0)
        #expect(s.recorder.lines == ["inner.began #1", "outer.began #1", "inner.ended #1", "outer.ended #1"])
        #expect(inner.next === outer)
        #expect(outer.next === s.window)
        #expect(s.window.next === s.app)
        #expect(s.app.next == nil)
    }

    @Test("R3: a view that does not forward stops the chain")
    func stopping() {
        let s = Scene()
        let outer = s.view("outer", 0, 0, 300, 300)
        s.view("inner", 10, 10, 100, 100, in: outer)
        outer.forwards = true
        s.tap(1, 50, 50, at: 0)
        #expect(s.recorder.lines == ["inner.began #1", "inner.ended #1"])
    }

    @Test("R3, R4: a chain of plain views, window and application only forwards and drops; any subclass in it sees touches")
    func whoCanSeeADelivery() {
        final class Seeing: View {}
        final class SeeingWindow: Window {}
        let w = Window(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let app = Application(window: w)
        let outer = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let inner = View(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        w.addSubview(outer)
        outer.addSubview(inner)
        #expect(!GestureEnvironment.chainObservesTouches(from: inner))      // skipped: nobody would see it
        let seeing = Seeing(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        w.addSubview(seeing)
        let below = View(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        seeing.addSubview(below)
        #expect(GestureEnvironment.chainObservesTouches(from: below))       // its superview may override
        #expect(GestureEnvironment.chainObservesTouches(from: seeing))
        let w2 = SeeingWindow(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let plain = View(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        w2.addSubview(plain)
        #expect(GestureEnvironment.chainObservesTouches(from: plain))       // a window subclass, too
        _ = app
    }

    @Test("R1: the first recipient is the hit-test view; a plain View forwards to the window")
    func plainViewsForward() {
        final class RecordingWindow: Window {
            var log: [String] = []
            override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { log.append("window.began") }
            override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { log.append("window.ended") }
        }
        let w = RecordingWindow(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let app = Application(window: w)
        let plain = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        w.addSubview(plain)
        app.handle(DigitizerFrame(timestamp: 0, contacts: [Contact(id: 1, location: Point(x: 5, y: 5))]))
        app.handle(DigitizerFrame(timestamp: 0.1, contacts: []))
        #expect(w.log == ["window.began", "window.ended"])
    }
}
