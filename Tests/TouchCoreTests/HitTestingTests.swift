import Testing
@testable import TouchCore

/// A view whose touch area is grown to at least 44×44 pt (H7, seed 000 §6).
final class ExpandedButton: View {
    var minimumHitArea = Size(width: 44, height: 44)
    override func point(inside point: Point, with event: Event?) -> Bool {
        let dx = max(0, minimumHitArea.width - bounds.width), dy = max(0, minimumHitArea.height - bounds.height)
        return bounds.insetBy(dx: -dx / 2, dy: -dy / 2).contains(point)
    }
}

/// A view with a hole in it (H9b).
final class HoleView: View {
    var hole = Rect.zero
    override func point(inside point: Point, with event: Event?) -> Bool {
        super.point(inside: point, with: event) && !hole.contains(point)
    }
}

/// A transparent overlay whose empty area lets touches through (H9a).
final class PassThroughView: View {
    override func hitTest(_ point: Point, with event: Event?) -> View? {
        let v = super.hitTest(point, with: event)
        return v === self ? nil : v
    }
}

/// A view that sends every touch to another view (H10).
final class RedirectingView: View {
    weak var target: View?
    override func hitTest(_ point: Point, with event: Event?) -> View? {
        super.hitTest(point, with: event) == nil ? nil : target
    }
}

@Suite("Hit-testing (uikit-semantics H1–H11)")
struct HitTestingTests {
    let root = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))

    @Test("H2, H4: alpha 0.005 lets the parent take the hit, 0.02 and 0.01 are hit [seed 001]")
    func alphaThreshold() {
        let child = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        root.addSubview(child)
        child.alpha = 0.005
        #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === root)
        child.alpha = 0.02
        #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === child)
        child.alpha = 0.01
        #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === child)
    }

    @Test("H2: a hidden or non-interactive child lets the parent take the hit, before point(inside:) is asked")
    func hiddenAndDisabled() {
        final class CountingView: View {
            var asked = 0
            override func point(inside point: Point, with event: Event?) -> Bool {
                asked += 1
                return super.point(inside: point, with: event)
            }
        }
        let child = CountingView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        root.addSubview(child)
        child.isHidden = true
        #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === root)
        child.isHidden = false
        child.isUserInteractionEnabled = false
        #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === root)
        #expect(child.asked == 0)
        child.isUserInteractionEnabled = true
        #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === child)
        #expect(child.asked == 1)
    }

    @Test("H4: a hidden, disabled or transparent ancestor blocks its whole subtree")
    func blockedSubtree() {
        let parent = View(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let child = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        root.addSubview(parent); parent.addSubview(child)
        for block in [{ parent.isHidden = true }, { parent.isUserInteractionEnabled = false }, { parent.alpha = 0 }] {
            parent.isHidden = false; parent.isUserInteractionEnabled = true; parent.alpha = 1
            #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === child)
            block()
            #expect(root.hitTest(Point(x: 50, y: 50), with: nil) === root)
        }
    }

    @Test("H6: a child outside its parent's bounds is never hit, clipsToBounds or not [seed 001, seed 004 case 1]")
    func overflowingChild() {
        let parent = View(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let button = View(frame: Rect(x: 220, y: 220, width: 100, height: 100))
        root.addSubview(parent); parent.addSubview(button)
        for clips in [false, true] {
            parent.clipsToBounds = clips
            #expect(parent.hitTest(Point(x: 250, y: 250), with: nil) == nil)
            #expect(root.hitTest(Point(x: 250, y: 250), with: nil) === root)
        }
    }

    @Test("H5: point(inside:) is half-open and uses bounds.origin")
    func pointInside() {
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        #expect(v.point(inside: Point(x: 0, y: 0), with: nil))
        #expect(!v.point(inside: Point(x: 100, y: 50), with: nil))
        v.bounds.origin = Point(x: 50, y: 0)
        #expect(!v.point(inside: Point(x: 10, y: 10), with: nil))
        #expect(v.point(inside: Point(x: 120, y: 10), with: nil))
    }

    @Test("H5: a rotated view is hit on its true shape, not on its frame")
    func rotatedShape() {
        let diamond = View(frame: Rect(x: 100, y: 100, width: 100, height: 100))
        diamond.transform = AffineTransform(rotationAngle: .pi / 4)
        root.addSubview(diamond)
        // The frame's corner region is outside the rotated square.
        #expect(diamond.frame.contains(Point(x: 85, y: 85)))
        #expect(root.hitTest(Point(x: 85, y: 85), with: nil) === root)
        #expect(root.hitTest(Point(x: 150, y: 85), with: nil) === diamond)
        #expect(root.hitTest(Point(x: 150, y: 150), with: nil) === diamond)
    }

    @Test("H7: a 24×24 button grown to 44×44 by point(inside:) is hit 10 pt outside its bounds [seed 000]")
    func expandedTarget() {
        let button = ExpandedButton(frame: Rect(x: 100, y: 100, width: 24, height: 24))
        root.addSubview(button)
        #expect(root.hitTest(Point(x: 92, y: 92), with: nil) === button)
        #expect(root.hitTest(Point(x: 89, y: 112), with: nil) === root)
    }

    @Test("H7, H8: the grown area loses to a sibling in front of it")
    func expandedTargetLosesToFrontSibling() {
        let button = ExpandedButton(frame: Rect(x: 100, y: 100, width: 24, height: 24))
        let front = View(frame: Rect(x: 80, y: 80, width: 15, height: 15))
        root.addSubview(button); root.addSubview(front)
        #expect(root.hitTest(Point(x: 92, y: 92), with: nil) === front)
        #expect(root.hitTest(Point(x: 96, y: 96), with: nil) === button)
    }

    @Test("H7, H6: the grown area works only inside every ancestor")
    func expandedTargetInsideAncestor() {
        let card = View(frame: Rect(x: 0, y: 0, width: 110, height: 110))
        let button = ExpandedButton(frame: Rect(x: 90, y: 90, width: 16, height: 16))
        root.addSubview(card); card.addSubview(button)
        #expect(root.hitTest(Point(x: 108, y: 108), with: nil) === button)
        #expect(root.hitTest(Point(x: 112, y: 100), with: nil) === root)
    }

    @Test("H8: the front-most sibling wins; one that answers nil lets the search go on behind it")
    func reverseOrder() {
        let back = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let front = View(frame: Rect(x: 50, y: 50, width: 100, height: 100))
        root.addSubview(back); root.addSubview(front)
        #expect(root.hitTest(Point(x: 75, y: 75), with: nil) === front)
        front.isHidden = true
        #expect(root.hitTest(Point(x: 75, y: 75), with: nil) === back)
        root.insertSubview(front, at: 0)
        front.isHidden = false
        #expect(root.hitTest(Point(x: 75, y: 75), with: nil) === back)
        #expect(root.subviews.first === front)
    }

    @Test("H9a: a pass-through overlay gives its empty area to the views behind, its subviews still get touches")
    func passThroughOverlay() {
        let behind = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let overlay = PassThroughView(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let badge = View(frame: Rect(x: 10, y: 10, width: 20, height: 20))
        root.addSubview(behind); root.addSubview(overlay); overlay.addSubview(badge)
        #expect(root.hitTest(Point(x: 200, y: 200), with: nil) === behind)
        #expect(root.hitTest(Point(x: 15, y: 15), with: nil) === badge)
    }

    @Test("H9b: a hole in point(inside:) skips the whole subtree there")
    func hole() {
        let behind = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let sheet = HoleView(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        sheet.hole = Rect(x: 100, y: 100, width: 50, height: 50)
        let inHole = View(frame: Rect(x: 100, y: 100, width: 10, height: 10))
        root.addSubview(behind); root.addSubview(sheet); sheet.addSubview(inHole)
        #expect(root.hitTest(Point(x: 120, y: 120), with: nil) === behind)
        #expect(root.hitTest(Point(x: 105, y: 105), with: nil) === behind)
        #expect(root.hitTest(Point(x: 200, y: 200), with: nil) === sheet)
    }

    @Test("H10: hitTest may redirect to any view, which becomes touch.view and supplies the recognizers")
    func redirection() {
        let s = Scene()
        let target = s.view("target", 300, 300, 50, 50)
        let redirector = RedirectingView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        redirector.target = target
        s.window.addSubview(redirector)
        let tap = s.attach(TapGestureRecognizer(), "tap", to: target)
        s.touch(1, 10, 10, at: 0)
        #expect(s.app.activeTouches.first?.view === target)
        #expect(s.app.activeTouches.first?.gestureRecognizers.first === tap)
        s.lift(1, at: 0.05)
        #expect(s.recorder.lines == ["target.began #1", "target.cancelled #1", "tap ended"])
    }

    @Test("H11: views are interactive by default; touchInsets grow the default touch area")
    func defaultsAndInsets() {
        let v = View(frame: Rect(x: 100, y: 100, width: 20, height: 20))
        #expect(v.isUserInteractionEnabled && !v.isMultipleTouchEnabled && !v.isExclusiveTouch && !v.clipsToBounds)
        root.addSubview(v)
        #expect(root.hitTest(Point(x: 95, y: 95), with: nil) === root)
        v.touchInsets = EdgeInsets(top: -12, left: -12, bottom: -12, right: -12)
        #expect(root.hitTest(Point(x: 95, y: 95), with: nil) === v)
    }

    @Test("H1: hit-testing runs once per touch, at began; the view is kept when the finger leaves it")
    func hitTestOnlyAtBegan() {
        final class CountingView: View {
            var hits = 0
            override func hitTest(_ point: Point, with event: Event?) -> View? {
                hits += 1
                return super.hitTest(point, with: event)
            }
        }
        let s = Scene()
        let v = CountingView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        s.window.addSubview(v)
        s.touch(1, 50, 50, at: 0)
        s.touch(1, 300, 300, at: 0.1)
        s.touch(1, 310, 300, at: 0.2)
        #expect(v.hits == 1)
        #expect(s.app.activeTouches.first?.view === v)
    }
}
