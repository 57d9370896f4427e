/// An object that can handle touches (UIResponder). uikit-semantics R1–R4.
///
/// The default implementation of each `touches…` method forwards the same set and event to `next`
/// (R3), so a touch that no view handles travels view → superview → … → window → application and is
/// dropped after the application (R4). Overrides that handle touches themselves should override all four.
open class Responder {
    public init() {}

    /// The next responder in the chain, or nil at its end. `View` answers its superview,
    /// `Window` its application, `Application` nil.
    open var next: Responder? { nil }

    open func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        next?.touchesBegan(touches, with: event)
    }

    open func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
        next?.touchesMoved(touches, with: event)
    }

    open func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
        next?.touchesEnded(touches, with: event)
    }

    open func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
        next?.touchesCancelled(touches, with: event)
    }
}
