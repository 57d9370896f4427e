/// The touches of one instant (UIEvent of type `.touches`). uikit-semantics E1–E5.
///
/// One event object serves a whole touch sequence (E1): don't keep it past the callback. It holds every
/// live touch, stationary ones included (T3, E2), plus the touches that end or are cancelled in it,
/// which appear in exactly one event.
public final class Event: CustomStringConvertible {
    public enum EventType: Sendable { case touches }

    public let type: EventType = .touches
    /// Seconds on the digitizer's monotonic clock (E4).
    public internal(set) var timestamp: Double = 0

    /// Increases with every dispatch (the object is reused for a whole sequence, E1).
    var serial = 0

    /// The touches of this event in the order they began.
    public internal(set) var orderedTouches: [Touch] = []

    /// While a recognizer's touches… method runs: which recognizer, and the set it was given (E3).
    /// Neither reference is counted (the recognizer and the set outlive the call, see
    /// `GestureEnvironment.deliverToRecognizers`): a counted pair cost six runtime calls per delivery.
    var deliveredRecognizer: ObjectIdentifier?
    var deliveredTouches: UnsafePointer<Set<Touch>>?

    init() {}

    /// Every touch in the event, across views and windows (E2).
    public var allTouches: Set<Touch> { Set(orderedTouches) }

    /// The touches whose view is `view` (descendants' touches are not included), E3.
    public func touches(for view: View) -> Set<Touch> {
        Set(orderedTouches.lazy.filter { $0.view === view })
    }

    /// The touches that began in `window`, E3.
    public func touches(for window: Window) -> Set<Touch> {
        Set(orderedTouches.lazy.filter { $0.window === window })
    }

    /// The touches being delivered to `gestureRecognizer` (E3): during its touches… callbacks the
    /// set it is given, otherwise the event's touches it tracks.
    public func touches(for gestureRecognizer: GestureRecognizer) -> Set<Touch> {
        if let delivered = deliveredTouches, deliveredRecognizer == ObjectIdentifier(gestureRecognizer) { return delivered.pointee }
        return Set(orderedTouches.lazy.filter { t in gestureRecognizer.trackedTouches.contains { $0 === t } })
    }

    public var description: String {
        "Event(t=\(timestamp), \(orderedTouches.map { "#\($0.identifier) \($0.phase)" }.joined(separator: ", ")))"
    }
}
