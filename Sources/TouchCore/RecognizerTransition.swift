/// One state change of a recognizer, as the gesture environment makes it (S2, S4), for those who
/// watch recognizers decide (`Application.onTransition`): every transition, including possible →
/// failed, a wait for a failure requirement (possible → possible, `waitsFor` set, F1) and the reset
/// back to possible.
public struct RecognizerTransition {
    public let recognizer: GestureRecognizer
    public let from: GestureRecognizer.State
    public let to: GestureRecognizer.State
    /// The environment's clock: the event's or the timer's time (seconds).
    public let time: Double
    /// What was being processed: "touchesBegan", "touchesMoved", "touchesEnded", "touchesCancelled",
    /// "timer", or "update" (a change another recognizer's caused).
    public let cause: String
    /// Why, where it is known: the recognizer's own reason ("moved 52 pt", `fail(because:)`) or the
    /// environment's ("excluded by pan", "required doubleTap to fail, which recognized", "disabled",
    /// "touch sequence ended").
    public let reason: String?
    /// The recognizer it waits for, on a wait (F1).
    public let waitsFor: GestureRecognizer?

    public init(recognizer: GestureRecognizer, from: GestureRecognizer.State, to: GestureRecognizer.State, time: Double,
                cause: String, reason: String?, waitsFor: GestureRecognizer?) {
        self.recognizer = recognizer
        self.from = from
        self.to = to
        self.time = time
        self.cause = cause
        self.reason = reason
        self.waitsFor = waitsFor
    }
}
