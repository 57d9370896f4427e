import Testing
@testable import TouchCore

/// P5 as a script: recognizers kept to pencils or to fingers, a view that hears every touch, and a
/// delegate that is never asked about a touch of a type its recognizer does not take.
@Suite("allowedTouchTypes (P5)")
struct TouchTypeTests {
    final class Asked: GestureRecognizerDelegate {
        var asked: [Touch.TouchType] = []
        func gestureRecognizer(_ g: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
            asked.append(touch.type)
            return true
        }
    }

    /// One contact of `type` dragged 60 pt right from (100, 100), 10 frames.
    static func drag(_ s: Scene, _ type: Touch.TouchType, id: Int, from t: Double) {
        for i in 0...10 {
            var c = Contact(id: id, location: Point(x: 100 + Double(i) * 6, y: 100))
            c.type = type
            s.app.handle(DigitizerFrame(timestamp: t + Double(i) * 0.01, contacts: [c]))
        }
        s.app.handle(DigitizerFrame(timestamp: t + 0.2, contacts: []))
    }

    @Test("A pencil-only pan ignores fingers and takes a pencil; a finger-only pan the reverse; the view hears both")
    func pencilAndFingers() {
        let s = Scene()
        let v = s.view("canvas", 0, 0, 400, 400)
        let pen = s.attach(PanGestureRecognizer(), "ink", to: v)
        pen.allowedTouchTypes = .pencil
        pen.cancelsTouchesInView = false
        let finger = s.attach(PanGestureRecognizer(), "scroll", to: v)
        finger.allowedTouchTypes = .direct
        finger.cancelsTouchesInView = false
        let asked = Asked()
        pen.delegate = asked
        Self.drag(s, .direct, id: 1, from: 1.0)
        let fingerLog = s.recorder.take()
        #expect(fingerLog.first { !$0.hasPrefix("canvas") } == "scroll began")
        #expect(fingerLog.contains("scroll ended"))
        #expect(!fingerLog.contains { $0.hasPrefix("ink") })
        #expect(fingerLog.contains { $0.hasPrefix("canvas.began") })  // the view hears the finger (P4)
        #expect(asked.asked.isEmpty)                                   // never asked about a finger
        Self.drag(s, .pencil, id: 2, from: 2.0)
        let log = s.recorder.take()
        #expect(log.contains("ink began") && log.contains("ink ended"))
        #expect(!log.contains { $0.hasPrefix("scroll") })
        #expect(asked.asked == [.pencil])
        #expect(log.contains { $0.hasPrefix("canvas.began") })         // and the pencil
    }
}
