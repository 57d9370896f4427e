import Testing
@testable import TouchCore

/// HV1–HV4 as scripts: a pencil above nested views, hit-tested as a touch would be; hover recognizers
/// begin, change and end as it comes over their views, leaves them, goes out of range or touches down.
@Suite("Hover (uikit-semantics HV1–HV4)")
struct HoverTests {
    /// A window with `outer` (0…300) holding `inner` (100…200), a hover recognizer on each, and a pan
    /// on `outer` for the pencil's touches.
    final class Rig {
        let s = Scene()
        let outer: RecordingView
        let inner: RecordingView
        let outerHover: HoverGestureRecognizer
        let innerHover: HoverGestureRecognizer

        init() {
            outer = s.view("outer", 0, 0, 300, 300)
            inner = s.view("inner", 100, 100, 100, 100, in: outer)
            outerHover = s.attach(HoverGestureRecognizer(), "outerHover", to: outer) { r in
                "(\(Int(r.location(in: nil).x)),\(Int(r.location(in: nil).y))) z\(r.zOffset)"
            }
            innerHover = s.attach(HoverGestureRecognizer(), "innerHover", to: inner) { r in
                "(\(Int(r.location(in: nil).x)),\(Int(r.location(in: nil).y))) z\(r.zOffset)"
            }
        }

        /// The pencil above (x, y) at `t`, `z` of its range away.
        func hover(_ x: Double, _ y: Double, z: Double = 0.5, at t: Double, device: Int = 1) {
            s.app.handle(DigitizerFrame(device: device, timestamp: t, contacts: [],
                                        hover: Hover(location: Point(x: x, y: y), zOffset: z)))
        }

        /// The pencil's tip down at (x, y).
        func tip(_ x: Double, _ y: Double, at t: Double, device: Int = 1) {
            var c = Contact(id: 7, location: Point(x: x, y: y))
            c.type = .pencil
            s.app.handle(DigitizerFrame(device: device, timestamp: t, contacts: [c]))
        }

        func away(at t: Double, device: Int = 1) {
            s.app.handle(DigitizerFrame(device: device, timestamp: t, contacts: []))
        }
    }

    @Test("HV2: over nested views both hovers follow, innermost first; leaving the child ends its hover alone")
    func nestedViews() {
        let rig = Rig()
        rig.hover(50, 50, at: 1.0)                            // over outer only
        #expect(rig.s.recorder.take() == ["outerHover began (50,50) z0.5"])
        rig.hover(150, 150, z: 0.25, at: 1.01)                // into inner: both
        #expect(rig.s.recorder.take() == ["innerHover began (150,150) z0.25", "outerHover changed (150,150) z0.25"])
        rig.hover(250, 150, at: 1.02)                         // out of inner, still over outer
        #expect(rig.s.recorder.take() == ["innerHover ended (150,150) z0.25", "outerHover changed (250,150) z0.5"])
        rig.hover(350, 150, at: 1.03)                         // off outer too
        #expect(rig.s.recorder.take() == ["outerHover ended (250,150) z0.5"])
        #expect(rig.outerHover.state == .possible && rig.innerHover.state == .possible)
    }

    @Test("HV2: hidden views, views without interaction and touchInsets count as for touches")
    func hitTestingRules() {
        let rig = Rig()
        rig.inner.isHidden = true
        rig.hover(150, 150, at: 1.0)
        #expect(rig.s.recorder.take() == ["outerHover began (150,150) z0.5"])
        rig.away(at: 1.01)
        _ = rig.s.recorder.take()
        rig.inner.isHidden = false
        rig.inner.isUserInteractionEnabled = false
        rig.hover(150, 150, at: 1.1)
        #expect(rig.s.recorder.take() == ["outerHover began (150,150) z0.5"])
        rig.away(at: 1.11)
        _ = rig.s.recorder.take()
        rig.inner.isUserInteractionEnabled = true
        rig.inner.touchInsets = EdgeInsets(top: -20, left: -20, bottom: -20, right: -20)
        rig.hover(90, 150, at: 1.2)                           // 10 pt outside inner, inside its grown area
        #expect(rig.s.recorder.take() == ["innerHover began (90,150) z0.5", "outerHover began (90,150) z0.5"])
    }

    @Test("HV3: out of range ends every hover; the tip touching down ends them before its touch begins, and they begin again after it lifts")
    func outOfRangeAndTipDown() {
        let rig = Rig()
        let pan = rig.s.attach(PanGestureRecognizer(), "ink", to: rig.outer)
        pan.cancelsTouchesInView = false
        rig.hover(150, 150, at: 1.0)
        _ = rig.s.recorder.take()
        rig.tip(150, 150, at: 1.01)
        #expect(rig.s.recorder.take() == ["innerHover ended (150,150) z0.5", "outerHover ended (150,150) z0.5", "inner.began #1"])
        rig.tip(150, 200, at: 1.02)
        rig.tip(150, 250, at: 1.03)
        _ = rig.s.recorder.take()
        rig.hover(150, 250, z: 0, at: 1.04)                   // lifted: the touch ends, then the hover begins
        #expect(rig.s.recorder.take() == ["ink ended", "inner.ended #1", "outerHover began (150,250) z0.0"])
        rig.away(at: 1.05)
        #expect(rig.s.recorder.take() == ["outerHover ended (150,250) z0.0"])
    }

    @Test("HV4: a hover takes no touch; disabling it mid-hover cancels it; allowedTouchTypes without pencils leaves it out")
    func noTouchesAndDisabling() {
        let rig = Rig()
        rig.s.touch(1, 150, 150, at: 1.0)                      // a finger: no hover hears it
        rig.s.lift(1, at: 1.05)
        #expect(!rig.s.recorder.take().contains { $0.contains("Hover") })
        #expect(rig.outerHover.state == .possible)
        rig.hover(150, 150, at: 2.0)
        _ = rig.s.recorder.take()
        rig.innerHover.isEnabled = false
        #expect(rig.s.recorder.take() == ["innerHover cancelled (150,150) z0.5"])
        rig.hover(160, 150, at: 2.01)
        #expect(rig.s.recorder.take() == ["outerHover changed (160,150) z0.5"])
        rig.outerHover.allowedTouchTypes = .direct
        rig.hover(170, 150, at: 2.02)
        #expect(rig.s.recorder.take() == ["outerHover ended (160,150) z0.5"])
    }

    @Test("HV1: the hover's transitions are reported with cause hover and why it ended")
    func transitionsAreReported() {
        let rig = Rig()
        var seen: [String] = []
        rig.s.app.onTransition = { t in seen.append("\(t.recognizer.name!) \(t.from)→\(t.to) \(t.cause) \(t.reason ?? "")") }
        rig.hover(150, 150, at: 1.0)
        rig.away(at: 1.1)
        #expect(seen == ["innerHover possible→began hover ", "outerHover possible→began hover ",
                         "innerHover began→ended hover out of range", "innerHover ended→possible hover out of range",
                         "outerHover began→ended hover out of range", "outerHover ended→possible hover out of range"])
    }
}
