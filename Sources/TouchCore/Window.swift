/// The root of a view tree that touches are delivered in (UIWindow). Its next responder is the
/// application (R2). `sendEvent(_:)` runs the gesture environment and the delivery to views (E5, D1).
open class Window: View {
    /// Set by `Application.addWindow(_:)`.
    public internal(set) weak var application: Application?

    /// UIKit's gesture environment for this window (GestureEnvironment.swift).
    lazy var environment = GestureEnvironment(window: self)

    /// The application (R2: window → application).
    override open var next: Responder? { application }

    /// Delivers an event: recognizers first, then views, as gated by the recognizers (D1). Only the
    /// event's touches that began in this window are considered.
    open func sendEvent(_ event: Event) {
        environment.process(event)
    }

    /// Touches that views of this window are tracking now (T9, T10): live ones of the current event
    /// and ended ones whose view delivery is still pending.
    func viewTrackedTouches() -> [Touch] {
        var result: [Touch] = []
        if let app = application {
            for t in app.activeTouches where t.window === self && t.viewDelivery.isTrackedByView { result.append(t) }
        }
        for t in environment.gatedTouches where t.viewDelivery.isTrackedByView && !result.contains(where: { $0 === t }) {
            result.append(t)
        }
        return result
    }
}
