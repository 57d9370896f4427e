import Glibc
import Testing
@testable import TouchCore

@Suite("Geometry (uikit-semantics G1–G6)")
struct GeometryTests {
    @Test("G1: a 100×50 view rotated 90° reports bounds (0,0,100,50), center (50,25) and frame (25,−25,50,100) [seed 001]")
    func rotatedFrame() {
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 50))
        v.transform = AffineTransform(rotationAngle: .pi / 2)
        #expect(v.bounds == Rect(x: 0, y: 0, width: 100, height: 50))
        #expect(v.center == Point(x: 50, y: 25))
        #expect(approx(v.frame, Rect(x: 25, y: -25, width: 50, height: 100)))
    }

    @Test("G1: a scaled view's frame is the scaled bounds about its center")
    func scaledFrame() {
        let v = View(frame: Rect(x: 10, y: 10, width: 100, height: 50))
        v.transform = AffineTransform(scaleX: 2, y: 0.5)
        #expect(approx(v.frame, Rect(x: -40, y: 22.5, width: 200, height: 25)))
    }

    @Test("G1: a translation moves the frame and keeps the center; with a turn, the box moves by (tx, ty)")
    func translatedFrame() {
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 50))
        v.transform = AffineTransform(translationX: 30, y: 10)
        #expect(v.frame == Rect(x: 30, y: 10, width: 100, height: 50))
        #expect(v.center == Point(x: 50, y: 25) && v.bounds == Rect(x: 0, y: 0, width: 100, height: 50))
        // CGAffineTransform(rotationAngle: π/2) with tx 30, ty 10: the G1 box (25, −25, 50, 100) moved.
        v.transform = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 30, ty: 10)
        #expect(approx(v.frame, Rect(x: 55, y: -15, width: 50, height: 100)))
    }

    @Test("G2: setting frame with an identity transform sets center and bounds.size, not bounds.origin")
    func settingFrame() {
        let v = View(frame: .zero)
        v.bounds.origin = Point(x: 5, y: 7)
        v.frame = Rect(x: 10, y: 20, width: 30, height: 40)
        #expect(v.center == Point(x: 25, y: 40))
        #expect(v.bounds == Rect(x: 5, y: 7, width: 30, height: 40))
    }

    @Test("G2: changing transform never changes bounds or center")
    func transformKeepsBoundsAndCenter() {
        let v = View(frame: Rect(x: 0, y: 0, width: 80, height: 60))
        v.transform = AffineTransform(rotationAngle: 0.3).scaledBy(x: 2, y: 3)
        #expect(v.bounds == Rect(x: 0, y: 0, width: 80, height: 60))
        #expect(v.center == Point(x: 40, y: 30))
    }

    @Test("G3: shifting parent.bounds.origin by (0,20) moves child from (10,50) to (10,30) in root, child.frame unchanged [seed 001]")
    func boundsOriginScrolls() {
        let root = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let parent = View(frame: Rect(x: 0, y: 0, width: 300, height: 300))
        let child = View(frame: Rect(x: 10, y: 50, width: 40, height: 40))
        root.addSubview(parent)
        parent.addSubview(child)
        #expect(child.convert(Point.zero, to: root) == Point(x: 10, y: 50))
        parent.bounds.origin = Point(x: 0, y: 20)
        #expect(child.convert(Point.zero, to: root) == Point(x: 10, y: 30))
        #expect(child.frame == Rect(x: 10, y: 50, width: 40, height: 40))
        #expect(parent.frame == Rect(x: 0, y: 0, width: 300, height: 300))
    }

    @Test("G4: the G1 view maps local (0,0) → (75,−25), (100,50) → (25,75), and parent (50,25) → local (50,25)")
    func superviewConversion() {
        let parent = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 50))
        v.transform = AffineTransform(rotationAngle: .pi / 2)
        parent.addSubview(v)
        #expect(approx(v.convert(Point(x: 0, y: 0), to: parent), Point(x: 75, y: -25)))
        #expect(approx(v.convert(Point(x: 100, y: 50), to: parent), Point(x: 25, y: 75)))
        #expect(approx(v.convert(Point(x: 50, y: 25), from: parent), Point(x: 50, y: 25)))
    }

    @Test("G4: the translation is part of the step: a moved view maps its corners, and back, where it is drawn; hit-testing follows")
    func translatedConversion() {
        let parent = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 50))
        v.transform = AffineTransform(translationX: 30, y: 10)
        parent.addSubview(v)
        #expect(v.convert(Point(x: 0, y: 0), to: parent) == Point(x: 30, y: 10))
        #expect(v.convert(Point(x: 100, y: 50), to: parent) == Point(x: 130, y: 60))
        #expect(v.convert(Point(x: 30, y: 10), from: parent) == Point(x: 0, y: 0))
        #expect(v.convert(v.bounds, to: parent) == v.frame)
        #expect(parent.hitTest(Point(x: 125, y: 55), with: nil) === v)
        #expect(parent.hitTest(Point(x: 10, y: 5), with: nil) === parent)
        // Turned by π/2 and moved: local (0, 0) is (75, −25) of the G4 example plus (30, 10).
        v.transform = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 30, ty: 10)
        #expect(approx(v.convert(Point(x: 0, y: 0), to: parent), Point(x: 105, y: -15)))
        #expect(approx(v.convert(Point(x: 105, y: -15), from: parent), Point(x: 0, y: 0)))
        // A displacement turns with the linear part alone (G5).
        #expect(approx(v.convertVectorFromWindow(Point(x: 10, y: 0)), Point(x: 0, y: -10)))
    }

    @Test("G5: conversion across branches and transforms round-trips and does not depend on the path")
    func crossBranchConversion() {
        let root = View(frame: Rect(x: 0, y: 0, width: 500, height: 500))
        let a = View(frame: Rect(x: 50, y: 60, width: 200, height: 100))
        a.transform = AffineTransform(rotationAngle: 0.4).scaledBy(x: 1.5, y: 0.8)
        let a1 = View(frame: Rect(x: 10, y: 10, width: 30, height: 30))
        a1.transform = AffineTransform(translationX: 5, y: -3)
        let b = View(frame: Rect(x: 300, y: 200, width: 100, height: 150))
        b.bounds.origin = Point(x: 7, y: 11)
        b.transform = AffineTransform(rotationAngle: -1.1)
        let b1 = View(frame: Rect(x: 20, y: 40, width: 50, height: 50))
        root.addSubview(a); a.addSubview(a1); root.addSubview(b); b.addSubview(b1)

        let p = Point(x: 3, y: 4)
        let direct = a1.convert(p, to: b1)
        let viaRoot = b1.convert(a1.convert(p, to: root), from: root)
        let viaWindow = b1.convert(a1.convert(p, to: nil), from: nil)
        #expect(approx(direct, viaRoot, 1e-9))
        #expect(approx(direct, viaWindow, 1e-9))
        #expect(approx(b1.convert(direct, to: a1), p, 1e-9))
        #expect(approx(a1.convert(p, from: b1), b1.convert(p, to: a1)))
    }

    @Test("G5: convert(rect) is the bounding box of the four converted corners")
    func rectConversion() {
        let root = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 50))
        v.transform = AffineTransform(rotationAngle: .pi / 2)
        root.addSubview(v)
        #expect(approx(v.convert(v.bounds, to: root), v.frame))
        #expect(approx(root.convert(v.frame, to: v), Rect(x: 0, y: 0, width: 100, height: 50), 1e-9))
    }

    @Test("Rect is half-open and standardized like CGRect")
    func rectSemantics() {
        let r = Rect(x: 10, y: 10, width: -20, height: 30)
        #expect(r.minX == -10 && r.maxX == 10 && r.width == 20)
        #expect(r.contains(Point(x: -10, y: 10)))
        #expect(!r.contains(Point(x: 10, y: 20)))
        #expect(Rect(x: 0, y: 0, width: 10, height: 10).insetBy(dx: 6, dy: 0).isNull)
        #expect(Rect(x: 0, y: 0, width: 10, height: 10).insetBy(dx: -2, dy: 1) == Rect(x: -2, y: 1, width: 14, height: 8))
        #expect(Rect(x: 0, y: 0, width: 10, height: 10).inset(by: EdgeInsets(top: -1, left: 2, bottom: 3, right: -4))
                == Rect(x: 2, y: -1, width: 12, height: 8))
        #expect(Rect(x: 1, y: 2, width: 3, height: 4).offsetBy(dx: 1, dy: -2) == Rect(x: 2, y: 0, width: 3, height: 4))
        #expect(Rect.zero.midX == 0 && Rect(x: 0, y: 0, width: 4, height: 6).midY == 3)
    }

    @Test("AffineTransform composes in Core Graphics order and inverts")
    func transformAlgebra() {
        let t = AffineTransform.identity.translatedBy(x: 10, y: 0).rotated(by: .pi / 2).scaledBy(x: 2, y: 2)
        // CG order: scale first, then rotate, then translate.
        #expect(approx(Point(x: 1, y: 0).applying(t), Point(x: 10, y: 2)))
        let u = AffineTransform(scaleX: 2, y: 3).concatenating(AffineTransform(translationX: 5, y: 7))
        #expect(Point(x: 1, y: 1).applying(u) == Point(x: 7, y: 10))
        #expect(approx(Point(x: 7, y: 10).applying(u.inverted()), Point(x: 1, y: 1)))
        #expect(AffineTransform(scaleX: 0, y: 1).inverted() == AffineTransform(scaleX: 0, y: 1))
        #expect(AffineTransform.identity.isIdentity && !u.isIdentity)
        #expect(approx(Rect(x: 0, y: 0, width: 100, height: 50).applying(AffineTransform(rotationAngle: .pi / 2)),
                       Rect(x: -50, y: 0, width: 50, height: 100)))
    }

    @Test("TouchMath's sin, cos and atan2 agree with Glibc to 1e-15")
    func trigonometry() {
        var x = -20.0
        while x <= 20 {
            #expect(abs(TouchMath.sin(x) - Glibc.sin(x)) <= 1e-15 * max(1, abs(x)))
            #expect(abs(TouchMath.cos(x) - Glibc.cos(x)) <= 1e-15 * max(1, abs(x)))
            x += 0.0137
        }
        for y in stride(from: -3.0, through: 3.0, by: 0.25) {
            for x in stride(from: -3.0, through: 3.0, by: 0.25) {
                #expect(abs(TouchMath.atan2(y, x) - Glibc.atan2(y, x)) <= 1e-15)
            }
        }
        #expect(TouchMath.atan2(0, -1) == Double.pi)
        #expect(TouchMath.atan2(-0.0, -1) == -Double.pi)
        #expect(abs(TouchMath.atan(1e300) - Double.pi / 2) < 1e-15)
        #expect(TouchMath.sin(.nan).isNaN && TouchMath.cos(.infinity).isNaN)
    }
}
