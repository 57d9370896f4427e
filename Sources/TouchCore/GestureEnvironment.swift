/// The gesture environment of a window (UIGestureEnvironment): who receives a touch, in what order,
/// who wins, who waits for whom, and when recognizers are reset. uikit-semantics §6.
///
/// Per event (D1), inside `Window.sendEvent`:
/// 1. New touches collect the recognizers of their hit-test view and its ancestors up to the window (P1),
///    less disabled, finished and unwilling ones (P2, P3).
/// 2. Each recognizer, hit-test view outward and then in attachment order (X7), gets its touches by phase.
///    After each call the environment update runs: the state changes the recognizer asked for are
///    arbitrated (S5, X1–X4, F1–F3), view touches are cancelled (C1), and actions are sent (S3, D2).
/// 3. The views get their touches, gated by the recognizers (ViewGating.swift, C1–C3, T9, T10).
/// 4. Recognizers whose touch sequence is over are reset (S4).
/// Timers (D3) run the same update from `Application.advance(to:)`.
///
/// Contracts, asserted in debug builds:
/// - a recognizer's observable state changes only along S2;
/// - a recognizer waiting for a failure requirement (F1) reads `possible`;
/// - after its touches have all ended, no recognizer is left in possible without a timer or a
///   requirement to wait for.
final class GestureEnvironment {
    // The type is split by concern: delivery (GestureEnvironment+Delivery.swift), arbitration
    // (+Arbitration), resets (+Reset) and the views' delivery (ViewGating.swift). The state they
    // share is here; what each keeps between updates to save work is told what changed through the
    // methods under "What changed", never by setting its flags from elsewhere.

    /// Set by the window as it is made (`Window.init`), which owns the environment.
    unowned var window: Window!
    /// The clock: the timestamp of the event or timer being processed.
    var time: Double = 0
    var debugLog: ((String) -> Void)?
    var onTransition: ((RecognizerTransition) -> Void)?
    /// Someone reads the transition stream: recognizers' reasons are worth formatting (`fail(because:)`).
    var wantsReasons: Bool { onTransition != nil || debugLog != nil }
    /// Recognizers taking part in the current touch sequences, in the order they joined (X7).
    var participants: [GestureRecognizer] = []
    /// Touches whose view delivery waits on a recognizer (C2, C3), possibly after they ended.
    var gatedTouches: [Touch] = []
    /// `Event.serial` of the event whose recognizer delivery is under way (its view delivery is
    /// still to come); nil between events.
    var eventInProgressSerial: Int?
    /// The window is the only one of its application: every touch of an event is this window's
    /// (`Application.addWindow` keeps it up to date; false for a window without an application).
    var isOnlyWindow = false
    /// What is being processed, for the transition log: "touchesMoved", "timer", …
    var input: StaticString = "update"

    // MARK: Delivery's keeping (+Delivery)

    /// The last delivery order, valid while `recipientsVersion` and the number of touches are the
    /// same; the version changes when a touch registers, ends or is ignored, or a recognizer
    /// finishes, resets or is withdrawn. `deliveryRound` numbers the orders worked out, for `DeliveryMark`.
    var kept: KeptOrder?
    var recipientsVersion = 0
    var deliveryRound = 0
    /// The event's touches of each delivered phase as one set, shared by every recognizer that tracks
    /// all of them (the usual case: the recognizers of one view).
    var sharedSets = [TouchSetCache](repeating: TouchSetCache(), count: 4)
    /// The set of touches a view hears move, kept from one event to the next in the same way (a view
    /// that hears every move, under a pass-through mirror, gets the same touches on every frame).
    var viewMoveSet = TouchSetCache()
    /// A recognizer ignored a touch (C5) during the event: it may be left without touches.
    var touchesWereIgnored = false
    /// The earliest deadline of the participants: nil, to be worked out; .some(nil), none.
    var knownNextDeadline: Double??

    // MARK: Arbitration's keeping (+Arbitration)

    /// Nested updates; the queued work runs when the outermost one ends.
    var depth = 0
    var queue: [Work] = []
    /// Recognizers may be waiting for a requirement (F1): the deadlock check has something to look at.
    var mayHaveWaiters = false
    /// Changes whenever a recognizer joins or leaves `participants` (F2's dynamic requirements are
    /// worked out among them).
    var membership = 0
    /// Participants that may take part in a dynamic failure requirement (F2): only pairs with one of
    /// them are asked.
    var askingParticipants: [GestureRecognizer] = []
    /// Counts the recognizers that joined a sequence (`participationSerial`).
    var participationCount = 0

    // MARK: The views' keeping (ViewGating.swift)

    /// Something that holds a gated touch may have let go of it (C2, C3): a recognizer left possible,
    /// was reset, disabled or withdrawn, stopped delaying, or ignored a touch. Until then the gated
    /// touches stay as they are, and the update after each recognizer call need not look at them.
    var gatesMayHaveOpened = false

    // MARK: The resets' keeping (+Reset)

    /// A recognizer finished or a touch ended since the last look: a group may be ready to reset (S4).
    var groupsMayHaveFinished = false
    /// Where the next S4 check starts: the recognizers whose group may have finished since the last one
    /// (they finished, their timer went, or a touch of theirs ended). Every member of a group that has
    /// just finished is finished, and the last one to get there is among these: no check needs to look
    /// at every participant, which after every recognizer call (D1.2) would cost participants squared.
    var s4Candidates: [GestureRecognizer] = []
    /// The next check looks at every participant: a group may have come apart (a recognizer withdrawn
    /// or a touch ignored), or dynamic failure requirements may be answered anew (F2).
    var s4ScanAll = false
    /// Number the S4 checks (`s4Mark`, `resetMark`) and the walks over groups (`groupMark`,
    /// `Touch.groupRound`, `orderRound`).
    var s4Round = 0
    var groupRound = 0
    /// `finishedGroup`'s list storage between checks (always empty).
    var groupStorage: [GestureRecognizer] = []

    enum Work {
        case action(GestureRecognizer)
        case cancelViewTouches([Touch])
    }

    init() {}

    /// The phases delivered to recognizers, in delivery order (D1.2).
    static let deliveredPhases: [Touch.Phase] = [.began, .moved, .ended, .cancelled]

    // MARK: What changed

    /// A touch began and registered with its recognizers (P1): the delivery order changes.
    func touchRegistered() {
        recipientsVersion += 1
    }

    /// Touches end or are cancelled in the event about to be delivered: those holding them may be
    /// finished from now on (S4 looks at them at its next check).
    func touchesWillEnd(_ touches: [Touch]) {
        for t in touches where t.phase.isTerminal { s4Candidates.append(contentsOf: t.gestureRecognizers) }
    }

    /// The event in which touches ended has been delivered: they leave the delivery order, and a
    /// group may have finished.
    func touchesDidEnd() {
        groupsMayHaveFinished = true
        recipientsVersion += 1
    }

    /// A recognizer ignored a touch (C5): it may be left without touches, the touch may be waiting on
    /// it no more, and its group may have come apart.
    func touchIgnored() {
        touchesWereIgnored = true
        recipientsVersion += 1
        gatesMayHaveOpened = true
        s4ScanAll = true
    }

    /// A recognizer joined or left the sequences: dynamic requirements (F2) and the earliest deadline
    /// are worked out again.
    func membershipChanged() {
        membership += 1
        knownNextDeadline = nil
        if !askingParticipants.isEmpty { s4ScanAll = true }
    }

    /// A recognizer's state changed (S2): gated touches may be released (C2, C3); a finished one
    /// receives nothing more (P3), has nothing left to time, and may finish its group (S4).
    func stateChanged(_ r: GestureRecognizer, to new: GestureRecognizer.State) {
        gatesMayHaveOpened = true
        guard new.isTerminal else { return }
        r.deadline = nil
        groupsMayHaveFinished = true
        s4Candidates.append(r)
        recipientsVersion += 1
    }

    /// A recognizer was reset or withdrawn: it let go of its touches and left the sequences.
    func recognizerLeft(_ r: GestureRecognizer) {
        gatesMayHaveOpened = true
        recipientsVersion += 1
        membershipChanged()
    }

    /// A recognizer was withdrawn from its view: the group it was in may have come apart, or finished.
    func recognizerWithdrawn() {
        groupsMayHaveFinished = true
        s4ScanAll = true
    }

    /// A recognizer was disabled or stopped delaying touches (C2, C3, C6): gated touches may go.
    func gateMayHaveOpened() {
        gatesMayHaveOpened = true
    }

    /// A recognizer set or cleared its timer (D3).
    func deadlinesChanged() { knownNextDeadline = nil }

    /// A recognizer's timer was cleared: finished, its group may be too (S4).
    func deadlineCleared(_ r: GestureRecognizer) {
        if r.storedState.isTerminal { s4Candidates.append(r) }
    }

    // MARK: Membership

    func participate(_ r: GestureRecognizer) {
        guard !r.isParticipating else { return }
        r.isParticipating = true
        r.participatingEnvironment = self
        participants.append(r)
        participationCount &+= 1
        r.participationSerial = participationCount
        r.asksAboutRequirements = r.asksAboutFailureRequirements
        if r.asksAboutRequirements { askingParticipants.append(r) }
        membershipChanged()
    }

    // MARK: Timers (D3)

    /// The earliest deadline of the participants. Asked before every frame (`Application.advance`),
    /// so it is kept until a deadline is set or cleared, or the participants change.
    var nextDeadline: Double? {
        if let known = knownNextDeadline { return known }
        var earliest: Double?
        for r in participants {
            if let d = r.deadline, d < (earliest ?? .infinity) { earliest = d }
        }
        knownNextDeadline = .some(earliest)
        return earliest
    }

    /// The window is going away: the recognizers still in a sequence let go of this environment.
    func detachAll() {
        for r in participants {
            r.isParticipating = false
            r.participatingEnvironment = nil
        }
        participants = []
        askingParticipants = []
        gateMayHaveOpened()
        deadlinesChanged()
    }

    /// The application went away with sequences under way: every recognizer taking part is reset, and
    /// every touch this environment or its recognizers keep is let go of (a touch holds its window,
    /// which holds this environment).
    func letGoOfTouches() {
        debugLog = nil                               // whoever listened may be going away too
        onTransition = nil
        // S4's reset, early: each recognizer's own lists of touches (a tap's fingers, a pan's) go too.
        for r in participants { resetRecognizer(r, input: "the application went away", leavingList: false) }
        detachAll()
        gatedTouches = []
        s4Candidates = []
        for i in sharedSets.indices { sharedSets[i].clear() }
        viewMoveSet.clear()
        kept = nil
    }

    /// Formats the message only when someone listens: transitions happen on every frame.
    func log(_ message: @autoclosure () -> String) {
        guard let debugLog else { return }
        debugLog(message())
    }

    /// The transition log's cause of a change C6 makes (the stream's reason: "disabled").
    static let disabledInput = "isEnabled = false"

    /// A recognizer's state changed (or it waits, F1): the transition log and the transition stream.
    /// `input` is what the environment says of it: the event phase being delivered, perhaps followed
    /// by "; " and why ("touchesEnded; prevented by pan"), or only why ("excluded by pan"). The
    /// recognizer's own reason (`fail(because:)`), when it gave one, goes to the stream only: the
    /// log's line ends with it (`r: possible → touchesBegan → failed: began 380 pt from the edge`).
    func logTransition(_ r: GestureRecognizer, from old: GestureRecognizer.State, to new: GestureRecognizer.State,
                       input: @autoclosure () -> String, waitsFor: GestureRecognizer? = nil) {
        let own = r.failureReason
        r.failureReason = nil
        if let debugLog {
            debugLog("\(r): \(old) → \(input()) → \(new)" + (own.map { ": \($0)" } ?? "")
                     + (waitsFor.map { " (waits for \($0) to fail)" } ?? ""))
        }
        guard let onTransition else { return }
        let said = input()
        let cause = self.input.description
        var reason: String?
        if said == cause {
            reason = nil
        } else if said.hasPrefix(cause + "; ") {
            reason = String(said.dropFirst(cause.count + 2))
        } else {
            reason = said == GestureEnvironment.disabledInput ? "disabled" : said
        }
        if let own { reason = reason.map { "\($0); \(own)" } ?? own }
        if let waitsFor { reason = reason.map { "\($0); waits for \(waitsFor) to fail" } ?? "waits for \(waitsFor) to fail" }
        onTransition(RecognizerTransition(recognizer: r, from: old, to: new, time: time, cause: cause,
                                           reason: reason, waitsFor: waitsFor))
    }
}
