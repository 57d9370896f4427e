/// Closures that the per-frame path calls without counting references.
///
/// Calling a closure kept in a `var` costs a retain and a release of its context (whatever is called
/// might replace the variable and free the closure while it runs), and a closure that captures an
/// object through `unowned(unsafe)` retains it again to use it. Under emulation (the lab) every one of
/// those calls is a jump-target lookup after each wakeup (BENCHMARKS.md, "What dominates under
/// emulation"), and one frame passes through seven such closures on its way from the device to the
/// socket. So the hot path keeps each closure in a constant of a small final class (`EventCallback`
/// and the like, one per signature: a generic one would store its closure at the generic abstraction
/// and call it through a reabstraction thunk, one more call each time) and calls it through an
/// `Unmanaged` reference to that object: `callback?._withUnsafeGuaranteedRef { $0.call(…) }`.
///
/// A `CallbackOwner` keeps the objects alive: the current one of each slot, and every one replaced,
/// until the owner itself goes away. A closure replaced while it runs is not freed under it, and
/// callbacks are set when things are wired together, a handful in a lifetime.
public struct CallbackOwner {
    private var kept: [AnyObject] = []

    public init() {}

    /// Keeps `callback` for the owner's lifetime; returns the reference to call it through.
    public mutating func keep<Callback: AnyObject>(_ callback: Callback?) -> Unmanaged<Callback>? {
        guard let callback else { return nil }
        kept.append(callback)
        return .passUnretained(callback)
    }
}

/// `Application.onEvent`'s closure.
final class EventCallback {
    let call: (Event) -> Void
    init(_ call: @escaping (Event) -> Void) { self.call = call }
}

/// A gesture recognizer's target (`addTarget`).
final class ActionCallback {
    let call: (GestureRecognizer) -> Void
    init(_ call: @escaping (GestureRecognizer) -> Void) { self.call = call }
}
