/// The base class of gesture recognizers (UIGestureRecognizer). uikit-semantics §6.
///
/// A recognizer is a state machine (S1, S2):
///
///     discrete:    possible → recognized (= ended) | failed
///     continuous:  possible → began → changed* → ended | cancelled;  possible → failed
///
/// Subclasses read touches in `touchesBegan/Moved/Ended/Cancelled(_:with:)` and set `state`; the
/// gesture environment (GestureEnvironment.swift) decides what the change means: whether the
/// recognizer may leave `possible` at all (S5, X1–X4, F1–F3), which competitors it forces out, which
/// view touches it cancels (C1) and when the actions are sent (S3, D2). A terminal state lasts until the
/// touch sequence ends; then the recognizer is reset to `possible` and `reset()` is called (S4).
open class GestureRecognizer: CustomStringConvertible {
    /// UIGestureRecognizer.State, with UIKit's raw values (S1).
    public enum State: Int, Sendable, CustomStringConvertible {
        case possible = 0, began, changed, ended, cancelled, failed

        /// The discrete recognizers' name for `ended` (S1).
        public static var recognized: State { .ended }

        public var description: String {
            switch self {
            case .possible: "possible"
            case .began: "began"
            case .changed: "changed"
            case .ended: "ended"
            case .cancelled: "cancelled"
            case .failed: "failed"
            }
        }

        /// ended, cancelled and failed: nothing happens until the reset (S4, P3).
        public var isTerminal: Bool { rawValue >= State.ended.rawValue }

        /// possible, began and changed receive touches (P3).
        var receivesTouches: Bool { rawValue <= State.changed.rawValue }

        /// The transitions S2 allows; everything else is a programming error.
        public static func isLegalTransition(from old: State, to new: State, discrete: Bool) -> Bool {
            switch (old, new) {
            case (.possible, .failed): true
            case (.possible, .ended): discrete
            case (.possible, .began): !discrete
            case (.began, .changed), (.began, .ended), (.began, .cancelled),
                 (.changed, .changed), (.changed, .ended), (.changed, .cancelled): !discrete
            default: false
            }
        }
    }

    public init() {}

    deinit {
        for b in requiredToFail { b.value.failureDependents.removeAll { $0.value === self } }
        for d in failureDependents { d.value.requiredToFail.removeAll { $0.value === self } }
    }

    /// The current state (S1). Subclasses set it to report progress; the environment may keep the
    /// recognizer in `possible` (F1) or fail it instead (S5, X1) — read it back rather than assume.
    /// Setting `failed` from began or changed means `cancelled` (S6); an illegal transition traps in
    /// debug builds and is ignored in release builds (S2).
    public final var state: State {
        get { storedState }
        set { requestState(newValue) }
    }

    /// A disabled recognizer receives no touches. Disabling one in began or changed cancels it (its
    /// action is sent), one in possible fails (C6).
    public final var isEnabled = true {
        didSet {
            guard oldValue && !isEnabled else { return }
            if let hover = self as? HoverGestureRecognizer {           // no touch sequence to leave (HV4)
                hover.cancelFollowing()
                return
            }
            environment?.gateMayHaveOpened()
            environment?.disabled(self)
        }
    }

    /// A name for logs, scene files and the socket protocol ("recognizer" field).
    public final var name: String?

    public weak var delegate: GestureRecognizerDelegate?

    /// The view the recognizer is attached to. Not retained (the view owns its recognizers); the view
    /// clears it when it goes away (`View.deinit`).
    public internal(set) unowned(unsafe) var view: View?

    /// The view's `nameVersion` (nil without a view): the daemon looks at it on every line it writes.
    public final var viewNameVersion: Int? { view?.nameVersion }

    /// When the gesture is recognized or begins, the view's touches are cancelled (C1). Default true.
    public final var cancelsTouchesInView = true
    /// The kinds of touch this recognizer takes (P5): a touch of another type is never delivered to it,
    /// as if it had ignored it. Default: every type.
    public final var allowedTouchTypes = TouchTypes.all
    /// Began-phase touches are withheld from the view while the recognizer is possible (C2). Default false.
    public final var delaysTouchesBegan = false {
        didSet { if oldValue && !delaysTouchesBegan { environment?.gateMayHaveOpened() } }
    }
    /// Ended-phase touches are withheld from the view while the recognizer is possible (C3). Default true.
    public final var delaysTouchesEnded = true {
        didSet { if oldValue && !delaysTouchesEnded { environment?.gateMayHaveOpened() } }
    }

    /// Hover recognizers follow a pencil above the screen, not touches: they take part in no touch
    /// sequence and never receive a touch (HV4). Set by `HoverGestureRecognizer`.
    final var followsHover = false

    /// Discrete recognizers (tap, swipe) go straight from possible to recognized (S2).
    open var isDiscrete: Bool { false }

    /// Adds an action, sent on every entry into began, changed, ended and cancelled, never on
    /// failed (S3). Actions run synchronously inside `Window.sendEvent` or `Application.advance(to:)` (D2).
    public final func addTarget(_ action: @escaping (GestureRecognizer) -> Void) {
        actions.append(action)
    }

    /// This recognizer may leave `possible` only after `other` fails (F1).
    public final func require(toFail other: GestureRecognizer) {
        guard other !== self, !requiredToFail.contains(where: { $0.value === other }) else { return }
        requiredToFail.append(UnownedRecognizer(other))
        other.failureDependents.append(UnownedRecognizer(self))
        requirementsCache = nil
    }

    /// The recognizers this one requires to fail (`require(toFail:)`), in the order they were added.
    public final var failureRequirements: [GestureRecognizer] { requiredToFail.map(\.value) }

    /// The centroid of the recognizer's touches in `view`'s space (nil: window), S7. After the last
    /// touch has gone it stays where the touches were last seen.
    open func location(in view: View?) -> Point {
        let p = trackedTouches.isEmpty ? lastCentroid : Self.centroid(of: trackedTouches)
        return screenToView(p, view)
    }

    /// How many touches the recognizer is tracking (those that lift in the current event included).
    /// A subclass whose gesture outlives its touches says how many made it (a tap recognized after its
    /// fingers lifted, waiting for a double tap to fail, still reports its fingers).
    open var numberOfTouches: Int { trackedTouches.count }

    /// Every touch that has taken part in the current gesture since the last reset, lifted ones
    /// included, in the order they arrived. Not in UIKit; the daemon reads the device from it.
    public final var gestureTouches: [Touch] { sequenceTouches }

    /// The location of one of the tracked touches, in the order they arrived; `.zero` for an index
    /// out of range (UIKit raises an exception there).
    open func location(ofTouch index: Int, in view: View?) -> Point {
        guard trackedTouches.indices.contains(index) else { return .zero }
        return trackedTouches[index].location(in: view)
    }

    /// Stops delivering `touch` to this recognizer; it is no longer part of the gesture, so the view is
    /// not cancelled for it even if `cancelsTouchesInView` is set (C5).
    public final func ignore(_ touch: Touch, for event: Event) {
        if trackedTouches.count == 1 && trackedTouches[0] === touch {
            lastCentroid = touch.screenLocation              // S7: where the last touch was seen
        }
        environment?.touchIgnored()
        trackedTouches.removeAll { $0 === touch }
        sequenceTouches.removeAll { $0 === touch }
        touch.gestureRecognizers.removeAll { $0 === self }
    }

    // MARK: For subclasses (UIGestureRecognizerSubclass.h)

    open func touchesBegan(_ touches: Set<Touch>, with event: Event) {}
    open func touchesMoved(_ touches: Set<Touch>, with event: Event) {}
    open func touchesEnded(_ touches: Set<Touch>, with event: Event) {}
    open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {}

    /// Called when the recognizer is set back to `possible` after its touch sequence (S4). Overrides
    /// must call super.
    open func reset() {}

    /// Whether this recognizer, when it leaves possible, may force `other` out (X3). Default true.
    open func canPrevent(_ other: GestureRecognizer) -> Bool { true }
    /// Whether `other`, when it leaves possible, may force this recognizer out (X3). Default true.
    open func canBePrevented(by other: GestureRecognizer) -> Bool { true }
    /// A dynamic failure requirement: this recognizer waits for `other` to fail (F2). Default false.
    open func shouldRequireFailure(of other: GestureRecognizer) -> Bool { false }
    /// A dynamic failure requirement: `other` waits for this recognizer to fail (F2). Default false.
    open func shouldBeRequiredToFail(by other: GestureRecognizer) -> Bool { false }

    /// Whether a dynamic failure requirement (F2) can involve this recognizer: its class may override
    /// `shouldRequireFailure(of:)` or `shouldBeRequiredToFail(by:)` (TouchCore's own classes do not),
    /// or its delegate may answer them. Only such recognizers are asked about every other one.
    final var asksAboutFailureRequirements: Bool {
        if let delegate, delegate.answersFailureRequirements { return true }
        return !GestureRecognizer.classesWithoutDynamicRequirements.contains(ObjectIdentifier(type(of: self)))
    }

    /// TouchCore's classes, none of which overrides the dynamic-requirement methods (exactly these
    /// classes: a subclass of one may).
    private static let classesWithoutDynamicRequirements: Set<ObjectIdentifier> = [
        ObjectIdentifier(GestureRecognizer.self), ObjectIdentifier(TapGestureRecognizer.self),
        ObjectIdentifier(LongPressGestureRecognizer.self), ObjectIdentifier(PanGestureRecognizer.self),
        ObjectIdentifier(ScreenEdgePanGestureRecognizer.self), ObjectIdentifier(SwipeGestureRecognizer.self),
        ObjectIdentifier(PinchGestureRecognizer.self), ObjectIdentifier(RotationGestureRecognizer.self),
        ObjectIdentifier(HoverGestureRecognizer.self),
    ]

    /// Whether the delegate says this recognizer runs alongside every other one (X2).
    final var isSimultaneousWithEveryone: Bool {
        delegate?.recognizesSimultaneouslyWithEveryone(self) ?? false
    }

    /// Fails the recognizer (S2: possible → failed; from began or changed, cancelled, S6) and says why,
    /// for the transition log and the recognizer stream (`Application.onTransition`): "moved 52 pt".
    /// The reason is formatted only when someone reads it.
    public final func fail(because reason: @autoclosure () -> String) {
        if environment?.wantsReasons == true { failureReason = reason() }
        state = .failed
        failureReason = nil
    }

    /// For reasons: a length or a time with at most one decimal ("52", "0.8").
    static func format(_ v: Double) -> String {
        let tenths = (v * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }

    /// "moved 52 pt (at most 45 pt)".
    static func moved(_ distance: Double, _ limit: Double) -> String {
        "moved \(format(distance)) pt (at most \(format(limit)) pt)"
    }

    /// A timer for the subclass, in the event clock's seconds: `deadlineReached(at:)` is called when
    /// `Application.advance(to:)` reaches it (D3). One per recognizer; nil cancels; reset clears it.
    public final var deadline: Double? {
        didSet {
            guard deadline != oldValue, let environment else { return }
            if deadline != nil { environment.participate(self) } else { environment.deadlineCleared(self) }
            environment.deadlinesChanged()
        }
    }

    /// The deadline set by the subclass has come.
    open func deadlineReached(at time: Double) {}

    /// F5: called just before a recognizer that waited for a failure requirement performs its
    /// transition, so a pan can start its translation at zero.
    func willBeginAfterSatisfyingFailureRequirements() {}

    /// For continuous recognizers whose gesture lasts until every finger has lifted (PAN6, PI3, RO3):
    /// ended if it had begun, failed if it never did.
    func endAfterLastLift() {
        switch state {
        case .possible: fail(because: "lifted before it began")
        case .began, .changed: state = .ended
        case .ended, .cancelled, .failed: break
        }
    }

    /// The clock of the gesture environment: the timestamp of the event or timer being processed.
    public final var currentTime: Double {
        // `environment`'s two sources read in place (through `environment` the reference is retained
        // and released on every read: this runs for every line).
        participatingEnvironment?.time ?? view?.window?.environment.time ?? 0
    }

    open var description: String {
        let typeName = String(describing: type(of: self))
        if let name { return "\(typeName)(\(name))" }
        if let v = view { return "\(typeName) on \(v)" }
        return typeName
    }

    // MARK: Environment bookkeeping (GestureEnvironment.swift)

    var storedState: State = .possible
    /// The targets' closures (`addTarget`), in the order they were added.
    var actions: [(GestureRecognizer) -> Void] = []
    /// F1: the recognizers this one waits for, and those waiting for this one. Neither side retains
    /// the other (a requirement does not keep a recognizer alive, and cycles are allowed); whichever
    /// goes first takes itself out of the other's list (`deinit`).
    var requiredToFail: [UnownedRecognizer] = []
    var failureDependents: [UnownedRecognizer] = []
    /// F2: the requirements worked out for the current sequence, valid while its participants are
    /// the same (`GestureEnvironment.membership`).
    var requirementsCache: (membership: Membership, requirements: [GestureRecognizer])?

    struct Membership: Equatable {
        var environment: ObjectIdentifier
        var count: Int
    }
    /// Live touches delivered to the recognizer, in the order they arrived (not ignored ones).
    var trackedTouches: [Touch] = []
    /// Every touch delivered since the last reset: who competes with whom (X5) and what C1 cancels.
    var sequenceTouches: [Touch] = []
    /// F1: the transition the recognizer asked for while a required recognizer was still possible.
    var pendingState: State?
    /// F2: the requirements of the current attempt, evaluated once.
    /// Out of the focused app's scope (a scene's `apps` and `exceptApps`, docs/focus.md, FO1): not
    /// UIKit's. The daemon sets it only between touch sequences; every rule that reads `isEnabled`
    /// reads `isActive`, so a scoped-out recognizer takes no touches and follows no hover. Kept apart
    /// from `isEnabled`, the user's own switch (`set recognizers`), so neither overwrites the other.
    public final var isScopedOut = false {
        didSet {
            guard isScopedOut && !oldValue else { return }
            (self as? HoverGestureRecognizer)?.cancelFollowing()
        }
    }

    /// Enabled and in scope: what takes part.
    public final var isActive: Bool { isEnabled && !isScopedOut }

    var attemptRequirements: [GestureRecognizer]?
    /// Taking part in the current touch sequence of its environment.
    var isParticipating = false
    /// P3: enabled, taking part, and in a state that receives touches (possible, began, changed).
    var takesTouches: Bool { isActive && storedState.receivesTouches && isParticipating }
    /// The environment of the sequence the recognizer takes part in; set and cleared with
    /// `isParticipating` (and by the window when it goes away), so it is retained only meanwhile.
    var participatingEnvironment: GestureEnvironment?
    /// Where the tracked touches were last seen, in screen points.
    var lastCentroid: Point = .zero
    /// The sets of the last delivery, by phase (began, moved, ended, cancelled): see `TouchSetCache`.
    var touchSets = [TouchSetCache](repeating: TouchSetCache(), count: 4)
    /// Which delivery this recognizer was last put in the order of (GestureEnvironment).
    var deliveryMark = DeliveryMark(environment: nil, round: 0)
    /// The last S4 check that found the recognizer's group still going (`resetFinishedSequences`).
    var s4Mark = DeliveryMark(environment: nil, round: 0)
    /// The S4 group walk the recognizer was last taken into (`finishedGroup`).
    var groupMark = DeliveryMark(environment: nil, round: 0)
    /// The reason `fail(because:)` gave, until the transition it explains is logged.
    var failureReason: String?
    /// `asksAboutFailureRequirements`, worked out as it joins a sequence (GestureEnvironment.participate).
    var asksAboutRequirements = false
    /// When it joined its sequence, counted by its environment: the participants' order (X7, S4) without
    /// looking up its place in the list.
    var participationSerial = 0
    /// The S4 check that found its group finished (`GestureEnvironment.resetFinishedSequences`).
    var resetMark = DeliveryMark(environment: nil, round: 0)
    /// The S4 reset-order walk that took it (`GestureEnvironment.inResetOrder`).
    var orderRound = 0

    struct DeliveryMark: Equatable {
        var environment: ObjectIdentifier?
        var round: Int
    }

    var environment: GestureEnvironment? {
        participatingEnvironment ?? view?.window?.environment
    }

    private func requestState(_ requested: State) {
        let old = storedState
        var new = requested
        if new == .failed && (old == .began || old == .changed) { new = .cancelled }   // S6
        if new == old && old == .possible { return }
        guard State.isLegalTransition(from: old, to: new, discrete: isDiscrete) else {
            assertionFailure("S2: illegal transition \(self): \(old) → \(new)")
            return
        }
        if let environment {
            environment.recognizer(self, requests: new)
        } else {
            // Not in a window: no arbitration, the transition happens and the actions run now.
            storedState = new
            if new != .failed { sendActions() }
        }
    }

    /// A recognizer that follows no touch sequence (hover, HV4) changes state at once: there is no
    /// sequence to arbitrate in, the actions run now, and the transition is reported as any other
    /// (`cause`, and `reason` when there is more to say). `.possible` is the reset after ended or
    /// cancelled (S4).
    final func transitionOutsideSequences(to new: State, cause: StaticString, reason: String? = nil) {
        let old = storedState
        guard new == .possible ? old.isTerminal : State.isLegalTransition(from: old, to: new, discrete: isDiscrete) else {
            assertionFailure("S2: illegal transition \(self): \(old) → \(new)")
            return
        }
        storedState = new
        if let environment = view?.window?.environment {
            let saved = environment.input
            environment.input = cause
            environment.logTransition(self, from: old, to: new, input: reason ?? cause.description)
            environment.input = saved
        }
        if new == .possible { reset() } else if new != .failed { sendActions() }
    }

    func sendActions() {
        let targets = actions                       // an action may add a target
        for action in targets { action(self) }
    }

    static func centroid(of touches: [Touch]) -> Point {
        guard !touches.isEmpty else { return .zero }
        var sum = Point.zero
        for t in touches { sum += t.screenLocation }
        return sum / Double(touches.count)
    }

    /// Calls `body` with the window the gesture happens in: its touches', else its view's.
    private func withReferenceWindow<R>(_ body: (Window?) -> R) -> R {
        if let window = trackedTouches.first?.window { return body(window) }
        return body(view?.window)
    }

    /// A screen point (the touches' space) in `view`'s space (nil: the window's).
    func screenToView(_ p: Point, _ view: View?) -> Point {
        withReferenceWindow { View.convertFromScreen(p, window: $0, to: view) }
    }

    /// A screen-space displacement in `view`'s space (nil: the window's): for translation and velocity.
    func screenVectorToView(_ v: Point, _ view: View?) -> Point {
        withReferenceWindow { window in
            // G4: a displacement turns with the linear part only; into an untransformed window it is the
            // same vector (the daemon's case: every line is in window coordinates).
            if let window, view == nil || view === window, window.transform.isIdentity { return v }
            return View.convertFromScreen(v, window: window, to: view) - View.convertFromScreen(.zero, window: window, to: view)
        }
    }

    /// A point in `view`'s space (nil: the window's) in screen points.
    func viewToScreen(_ p: Point, _ view: View?) -> Point {
        withReferenceWindow { View.convertToScreen(p, window: $0, from: view) }
    }

    /// A displacement in `view`'s space (nil: the window's) in screen points.
    func viewVectorToScreen(_ v: Point, _ view: View?) -> Point {
        viewToScreen(v, view) - viewToScreen(.zero, view)
    }
}

/// A reference to a recognizer that does not keep it alive: the two ends of a failure requirement
/// point at each other, and each one's `deinit` removes itself from the other's list (comparing
/// references to itself, which a checked `unowned` reference may not load once `deinit` has begun).
struct UnownedRecognizer {
    unowned(unsafe) let value: GestureRecognizer
    init(_ value: GestureRecognizer) { self.value = value }
}
