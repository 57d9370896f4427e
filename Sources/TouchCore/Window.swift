/// The root of a view tree that touches are delivered in (UIWindow). Its next responder is the
/// application (R2). `sendEvent(_:)` runs the gesture environment and the delivery to views (E5, D1).
open class Window: View {
    /// Set by `Application.addWindow(_:)`. Not retained (the application owns its windows and clears
    /// this when it goes away).
    public internal(set) unowned(unsafe) var application: Application?

    /// UIKit's gesture environment for this window (GestureEnvironment.swift). A constant, made with
    /// the window: every event reads it, and a lazy one is a call and a counted copy each time.
    let environment = GestureEnvironment()

    public override init(frame: Rect) {
        super.init(frame: frame)
        environment.window = self
    }

    /// Recognizers still taking part in a sequence hold the environment; they let go of it here.
    deinit {
        environment.detachAll()
    }

    /// The application (R2: window → application).
    override open var next: Responder? { application }

    /// Delivers an event: recognizers first, then views, as gated by the recognizers (D1). Only the
    /// event's touches that began in this window are considered.
    open func sendEvent(_ event: Event) {
        environment.process(event)
    }

    /// A touch that is down and that a view of this window is tracking (T9, T10 look at these). A
    /// touch that has lifted no longer counts, even while a recognizer holds back its touchesEnded
    /// (C3): the second tap of a double tap reaches a view without multiple touch.
    func isTracking(_ t: Touch) -> Bool {
        t.window === self && t.isLive && t.viewDelivery.isTrackedByView
    }
}
