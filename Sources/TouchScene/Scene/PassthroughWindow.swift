import TouchCore
import TouchProtocol
import TouchSystem

/// The window of a scene that some device passes through. It sits at the end of the views' responder
/// chain (R3: a plain view hands every touch it hears to its superview, up to the window), so it hears
/// exactly what the views hear, when they hear it: gated by the recognizers (C1–C4), by
/// `isMultipleTouchEnabled` (T9) and `isExclusiveTouch` (T10). It hands that to the mirrors
/// (`Passthrough`) instead of to the application, where it would be dropped (R4).
///
/// A touch on no view of the scene hits the window itself, which takes any number of touches (the
/// screen is not a view with T9's one-touch default).
/// What a pass-through window hands the views' touches to (the daemon's `Passthrough`, which writes
/// them to the mirrors).
package protocol PassthroughListener: AnyObject {
    func viewsHeard(_ touches: Set<Touch>, _ phase: Touch.Phase, event: Event?, in window: PassthroughWindow)
}

package final class PassthroughWindow: Window {
    /// Where the views' touches go; set by the pipeline that owns both.
    package weak var passthrough: (any PassthroughListener)?
    /// Views marked `"passthrough": false` and everything inside them (by identity).
    package private(set) var reserved: Set<ObjectIdentifier> = []

    package override init(frame: Rect) {
        super.init(frame: frame)
        isMultipleTouchEnabled = true
    }

    /// Reserves `views` and their subtrees: their touches never reach a mirror.
    package func reserve(_ views: [View]) {
        func add(_ v: View) {
            reserved.insert(ObjectIdentifier(v))
            for s in v.subviews { add(s) }
        }
        for v in views { add(v) }
    }

    /// Ends the reservation of `views` and their subtrees (a client scene that went away).
    package func unreserve(_ views: [View]) {
        func remove(_ v: View) {
            reserved.remove(ObjectIdentifier(v))
            for s in v.subviews { remove(s) }
        }
        for v in views { remove(v) }
    }

    /// Whether a touch on `view` is kept from the mirrors.
    package func isReserved(_ view: View?) -> Bool {
        guard let view, !reserved.isEmpty else { return false }
        return reserved.contains(ObjectIdentifier(view))
    }

    package override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        passthrough?.viewsHeard(touches, .began, event: event, in: self)
    }

    package override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
        passthrough?.viewsHeard(touches, .moved, event: event, in: self)
    }

    package override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
        passthrough?.viewsHeard(touches, .ended, event: event, in: self)
    }

    package override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
        passthrough?.viewsHeard(touches, .cancelled, event: event, in: self)
    }
}
