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
    /// Set by the window as it is made (`Window.init`), which owns the environment.
    unowned var window: Window!
    /// The clock: the timestamp of the event or timer being processed.
    var time: Double = 0
    var debugLog: ((String) -> Void)?
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
    private var input: StaticString = "update"
    /// Nested updates; the queued work runs when the outermost one ends.
    private var depth = 0
    /// A recognizer finished or a touch ended since the last look: a group may be ready to reset (S4).
    private var groupsMayHaveFinished = false
    /// Where the next S4 check starts: the recognizers whose group may have finished since the last one
    /// (they finished, their timer went, or a touch of theirs ended). Every member of a group that has
    /// just finished is finished, and the last one to get there is among these: no check needs to look
    /// at every participant, which after every recognizer call (D1.2) would cost participants squared.
    private var s4Candidates: [GestureRecognizer] = []
    /// The next check looks at every participant: a group may have come apart (a recognizer withdrawn
    /// or a touch ignored), or dynamic failure requirements may be answered anew (F2).
    var s4ScanAll = false
    private var queue: [Work] = []
    /// Recognizers may be waiting for a requirement (F1): the deadlock check has something to look at.
    private var mayHaveWaiters = false
    /// Changes whenever a recognizer joins or leaves `participants` (F2's dynamic requirements are
    /// worked out among them).
    private var membership = 0
    /// A recognizer ignored a touch (C5) during the event: it may be left without touches.
    var touchesWereIgnored = false
    /// Something that holds a gated touch may have let go of it (C2, C3): a recognizer left possible,
    /// was reset, disabled or withdrawn, stopped delaying, or ignored a touch. Until then the gated
    /// touches stay as they are, and the update after each recognizer call need not look at them.
    var gatesMayHaveOpened = false
    /// The last delivery order, valid while `recipientsVersion` and the number of touches are the
    /// same; the version changes when a touch registers, ends or is ignored, or a recognizer
    /// finishes, resets or is withdrawn. `deliveryRound` numbers the orders worked out, for `DeliveryMark`.
    private var kept: KeptOrder?
    var recipientsVersion = 0
    private var deliveryRound = 0
    /// The event's touches of each delivered phase as one set, shared by every recognizer that tracks
    /// all of them (the usual case: the recognizers of one view).
    private var sharedSets = [TouchSetCache](repeating: TouchSetCache(), count: 4)
    /// The set of touches a view hears move, kept from one event to the next in the same way (a view
    /// that hears every move, under a pass-through mirror, gets the same touches on every frame).
    var viewMoveSet = TouchSetCache()

    private enum Work {
        case action(GestureRecognizer)
        case cancelViewTouches([Touch])
    }

    init() {}

    /// The phases delivered to recognizers, in delivery order (D1.2).
    static let deliveredPhases: [Touch.Phase] = [.began, .moved, .ended, .cancelled]

    // MARK: Events (D1)

    func process(_ event: Event) {
        time = Swift.max(time, event.timestamp)
        // With one window every touch is this window's: no need to look at each.
        let touches = isOnlyWindow ? event.orderedTouches : event.orderedTouches.filter { $0.window === window }
        var anyBegan = false, anyTerminal = false, allTerminal = true
        for t in touches {
            switch t.phase {
            case .began: anyBegan = true; allTerminal = false
            case .ended, .cancelled: anyTerminal = true
            case .moved, .stationary: allTerminal = false
            }
        }
        if anyBegan {
            touches.forEach { t in
                if t.phase == .began && t.viewDelivery.isUnregistered { register(t, event: event) }
            }
        }
        if anyTerminal {
            // Those holding a touch that ended may be finished now: any check from here on looks at them.
            touches.forEach { t in
                if t.phase.isTerminal { s4Candidates.append(contentsOf: t.gestureRecognizers) }
            }
        }
        eventInProgressSerial = event.serial
        deliverToRecognizers(touches, event: event)
        eventInProgressSerial = nil
        deliverToViews(touches, event: event)
        // Touches leave their recognizers after the one event they end in. Only then can a recognizer
        // be left without touches (or a group finish), so the checks run only then.
        if anyTerminal || touchesWereIgnored {
            touchesWereIgnored = false
            if anyTerminal {
                groupsMayHaveFinished = true
                recipientsVersion += 1          // the ended touches leave (an ignore() counted already)
            }
            let list = participants
            list.forEach { r in
                guard r.trackedTouches.contains(where: { $0.phase.isTerminal }) else { return }
                r.lastCentroid = GestureRecognizer.centroid(of: r.trackedTouches)   // S7: where they lifted
                r.trackedTouches.removeAll { $0.phase.isTerminal }
            }
            depth += 1
            failAbandonedRecognizers()
            depth -= 1
        }
        if allTerminal {
            // The sequence is over: the shared sets and the kept order let go of its touches.
            for i in sharedSets.indices { sharedSets[i].clear() }
            viewMoveSet.clear()
            kept = nil
        }
        endUpdate()
    }

    /// P1, P2: the recognizers of the touch's view and of every ancestor up to and including the
    /// window, hit-test view outward, each view's in attachment order (X7).
    private func register(_ touch: Touch, event: Event) {
        touch.viewDelivery = touch.view == nil ? .none : .pendingBegan
        var receivers: [GestureRecognizer] = []
        var v = touch.view
        while let view = v {
            let attached = view.gestureRecognizers        // a delegate may change the view's list
            attached.forEach { r in
                if accepts(r, touch) { receivers.append(r) }
            }
            v = view.superview
        }
        touch.gestureRecognizers = receivers
        recipientsVersion += 1
        receivers.forEach { r in
            r.trackedTouches.append(touch)
            r.sequenceTouches.append(touch)
            participate(r)
        }
    }

    private func accepts(_ r: GestureRecognizer, _ touch: Touch) -> Bool {
        guard r.isEnabled, r.storedState.receivesTouches else { return false }     // P2, P3
        // A discrete recognizer that has made its decision and only waits for a requirement (F1)
        // takes no new touches.
        if r.pendingState == .ended { return false }
        return r.delegate?.gestureRecognizer(r, shouldReceive: touch) ?? true        // P2
    }

    func participate(_ r: GestureRecognizer) {
        guard !r.isParticipating else { return }
        r.isParticipating = true
        r.participatingEnvironment = self
        participants.append(r)
        participationCount &+= 1
        r.participationSerial = participationCount
        r.asksAboutRequirements = r.asksAboutFailureRequirements
        if r.asksAboutRequirements { askingParticipants.append(r) }
        if !askingParticipants.isEmpty { s4ScanAll = true }    // F2 answers may change with membership
        membership += 1
        knownNextDeadline = nil
    }

    /// Participants that may take part in a dynamic failure requirement (F2): only pairs with one of
    /// them are asked.
    private var askingParticipants: [GestureRecognizer] = []
    /// Counts the recognizers that joined a sequence (`participationSerial`).
    private var participationCount = 0

    /// D1.1–D1.2: each recognizer gets its touches by phase, and the update runs after each call.
    ///
    /// The sets handed to recognizers are reused from the previous event when they hold the same
    /// touches (`TouchSetCache`): while fingers move, that is every event, and no set is hashed.
    private func deliverToRecognizers(_ touches: [Touch], event: Event) {
        // How many of the event's touches are in each phase: a recognizer that tracks that many gets
        // the event's shared set for the phase.
        var sharedCounts = (0, 0, 0, 0)
        var stationary = 0
        for t in touches {
            switch t.phase {
            case .began: sharedCounts.0 += 1
            case .moved: sharedCounts.1 += 1
            case .ended: sharedCounts.2 += 1
            case .cancelled: sharedCounts.3 += 1
            case .stationary: stationary += 1
            }
        }
        let order = deliveryOrder(touches, everyTouchChanged: stationary == 0)
        let serial = event.serial
        // `order` is this function's own reference to the list: its recognizers stay alive without a
        // retain each (a recognizer withdrawn meanwhile is still in it, and P3 below skips it).
        order.forEachUnretained { r in
            // One that finished earlier in this event gets nothing more (P3, checked again per phase).
            guard r.takesTouches else { return }
            // The recognizer's touches in this event, by phase (began, moved, ended, cancelled). Its
            // tracked touches are among the event's, so as many as the event has means all of them.
            var counts = (0, 0, 0, 0)
            if r.trackedTouches.count == touches.count {
                counts = sharedCounts
            } else {
                for t in r.trackedTouches where t.lastEventSerial == serial {
                    switch t.phase {
                    case .began: counts.0 += 1
                    case .moved: counts.1 += 1
                    case .ended: counts.2 += 1
                    case .cancelled: counts.3 += 1
                    case .stationary: break
                    }
                }
            }
            for slot in 0..<4 {
                let mine = GestureEnvironment.count(counts, slot)
                guard mine > 0 else { continue }
                guard r.takesTouches else { break }   // P3
                let all = GestureEnvironment.count(sharedCounts, slot)
                let phase = GestureEnvironment.deliveredPhases[slot]
                let set = mine == all
                    ? sharedSets[slot].set(of: touches, phase: phase, serial: nil)
                    : r.touchSets[slot].set(of: r.trackedTouches, phase: phase, serial: serial)
                guard !set.isEmpty else { continue }
                // `touches(for:)` reads the set through a pointer that is valid only in this call.
                withUnsafePointer(to: set) { delivered in
                    event.deliveredRecognizer = ObjectIdentifier(r)
                    event.deliveredTouches = delivered
                    depth += 1
                    switch phase {
                    case .began: input = "touchesBegan"; r.touchesBegan(set, with: event)
                    case .moved: input = "touchesMoved"; r.touchesMoved(set, with: event)
                    case .ended: input = "touchesEnded"; r.touchesEnded(set, with: event)
                    case .cancelled: input = "touchesCancelled"; r.touchesCancelled(set, with: event)
                    case .stationary: break
                    }
                    depth -= 1
                    event.deliveredRecognizer = nil
                    event.deliveredTouches = nil
                }
                endUpdate()
            }
        }
        input = "update"
    }

    /// The count of phase slot `slot` (began, moved, ended, cancelled) in a tuple of four.
    @inline(__always)
    private static func count(_ counts: (Int, Int, Int, Int), _ slot: Int) -> Int {
        slot == 0 ? counts.0 : slot == 1 ? counts.1 : slot == 2 ? counts.2 : counts.3
    }

    /// D1.2, X7: the recipients of the event's changed touches, each once, in the order of the
    /// touches' recognizer lists (hit-test view outward, then attachment order).
    ///
    /// The recipients of all the event's touches are kept while no touch comes, goes or is ignored
    /// (`recipientsVersion`). They are the answer when every touch changed, and also when every touch
    /// has the same recognizers (one view, the usual case): recognizers without a changed touch then
    /// get nothing in `deliverToRecognizers` anyway.
    private func deliveryOrder(_ touches: [Touch], everyTouchChanged: Bool) -> [GestureRecognizer] {
        if kept == nil || kept!.version != recipientsVersion || kept!.touchCount != touches.count {
            var sameLists = true
            let first = touches.first?.gestureRecognizers ?? []
            for t in touches.dropFirst() where sameLists {
                let list = t.gestureRecognizers
                sameLists = list.count == first.count && zip(list, first).allSatisfy { $0 === $1 }
            }
            // The old order's storage is refilled: taken out of `kept` first so that nothing shares
            // it (while touches come and go the order is worked out again on most frames).
            var order = kept?.order ?? []
            kept = nil
            order.removeAll(keepingCapacity: true)
            collectRecipients(of: touches, changedOnly: false, into: &order)
            kept = KeptOrder(version: recipientsVersion, touchCount: touches.count, order: order, sameLists: sameLists)
        }
        let k = kept!
        if everyTouchChanged || k.sameLists { return k.order }
        return recipients(of: touches, changedOnly: true)
    }

    /// The union of the touches' recognizer lists, in order.
    private func recipients(of touches: [Touch], changedOnly: Bool) -> [GestureRecognizer] {
        var order: [GestureRecognizer] = []
        collectRecipients(of: touches, changedOnly: changedOnly, into: &order)
        return order
    }

    /// `recipients(of:changedOnly:)`, appended to `order`.
    private func collectRecipients(of touches: [Touch], changedOnly: Bool, into order: inout [GestureRecognizer]) {
        deliveryRound &+= 1
        let mark = GestureRecognizer.DeliveryMark(environment: ObjectIdentifier(self), round: deliveryRound)
        for t in touches where !changedOnly || t.phase != .stationary {
            // Finished and reset recognizers receive nothing (P3): they are left out, and the kept
            // order is worked out again when one finishes or resets (`transition`, `resetRecognizer`).
            for r in t.gestureRecognizers where r.deliveryMark != mark && r.takesTouches {
                r.deliveryMark = mark
                order.append(r)
            }
        }
    }

    private struct KeptOrder {
        var version: Int
        var touchCount: Int
        var order: [GestureRecognizer]
        /// Every touch has the same recognizer list.
        var sameLists: Bool
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

    /// nil: to be worked out; .some(nil): no deadline.
    private var knownNextDeadline: Double??

    func deadlinesChanged() { knownNextDeadline = nil }

    /// A recognizer's timer was cleared: finished, its group may be too (S4).
    func deadlineCleared(_ r: GestureRecognizer) {
        if r.storedState.isTerminal { s4Candidates.append(r) }
    }

    /// Fires the earliest deadline, which the application found to be `deadline`.
    func fireDeadline(at deadline: Double) {
        guard let r = participants.first(where: { $0.deadline == deadline }) else { return }
        time = Swift.max(time, deadline)
        r.deadline = nil
        depth += 1
        if r.isEnabled && r.storedState.receivesTouches {
            input = "timer"
            r.deadlineReached(at: deadline)
            input = "update"
        }
        failAbandonedRecognizers()
        depth -= 1
        endUpdate()
    }

    // MARK: State changes (S2–S6, X1–X4, F1–F3)

    /// A recognizer set `state` to `new`; S2 legality was checked by the recognizer.
    func recognizer(_ r: GestureRecognizer, requests new: GestureRecognizer.State) {
        depth += 1
        defer { depth -= 1; endUpdate() }
        switch (r.storedState, new) {
        case (.possible, .began), (.possible, .ended):
            attemptToLeavePossible(r, to: new, input: self.input.description)
        case (.possible, .failed):
            r.pendingState = nil
            fail(r, input: self.input.description)
        default:
            // began/changed → changed | ended | cancelled
            transition(r, to: new, input: self.input.description)
            queue.append(.action(r))
        }
    }

    /// C6: a recognizer was disabled.
    func disabled(_ r: GestureRecognizer) {
        depth += 1
        defer { depth -= 1; endUpdate() }
        switch r.storedState {
        case .possible:
            if r.isParticipating { r.pendingState = nil; fail(r, input: "isEnabled = false") }
        case .began, .changed:
            transition(r, to: .cancelled, input: "isEnabled = false")
            queue.append(.action(r))
        case .ended, .cancelled, .failed:
            break
        }
    }

    /// A recognizer was removed from its view: it leaves the sequence at once, without an action.
    func withdraw(_ r: GestureRecognizer) {
        depth += 1
        defer { depth -= 1; endUpdate() }
        if r.storedState == .possible && r.isParticipating {
            r.pendingState = nil
            fail(r, input: "removed from its view")
        }
        for t in r.sequenceTouches { t.gestureRecognizers.removeAll { $0 === r } }
        resetRecognizer(r, input: "removed from its view")          // which bumps `recipientsVersion`
        groupsMayHaveFinished = true
        s4ScanAll = true                                            // its group may have come apart
    }

    /// F1, F2: leave possible now, wait for requirements, or fail.
    private func attemptToLeavePossible(_ r: GestureRecognizer, to target: GestureRecognizer.State, input: @autoclosure () -> String) {
        let requirements = self.requirements(of: r)
        r.attemptRequirements = requirements
        if let winner = requirements.first(where: { hasWon($0) }) {
            r.pendingState = nil
            fail(r, input: "\(input()); required \(winner) to fail, which recognized")
            return
        }
        if let blocker = requirements.first(where: { isStillDeciding($0) }) {
            if r.pendingState == nil { log("\(r): possible → \(input()) → possible (waits for \(blocker) to fail)") }
            r.pendingState = target
            mayHaveWaiters = true
            return
        }
        perform(r, to: target, input: input())
    }

    /// The transition out of possible, once nothing stands in the way.
    private func perform(_ r: GestureRecognizer, to target: GestureRecognizer.State, input: @autoclosure () -> String) {
        let waited = r.pendingState != nil
        r.pendingState = nil
        // S5: the delegate and the touched views may refuse.
        if let d = r.delegate, !d.gestureRecognizerShouldBegin(r) {
            fail(r, input: "\(input()); delegate's gestureRecognizerShouldBegin is false")
            return
        }
        for v in touchedViews(of: r) where !v.gestureRecognizerShouldBegin(r) {
            fail(r, input: "\(input()); \(v).gestureRecognizerShouldBegin is false")
            return
        }
        // X1, X3: an active competitor that may not run alongside prevents the recognizer. (One whose
        // delegate runs it alongside everyone, X2, neither prevents nor is prevented: nothing to ask.)
        let alongsideEveryone = r.isSimultaneousWithEveryone
        if !alongsideEveryone {
            for b in participants where b !== r && isActive(b) && competes(r, b) && !simultaneous(r, b)
                && b.canPrevent(r) && r.canBePrevented(by: b) {
                fail(r, input: "\(input()); prevented by \(b)")
                return
            }
        }
        if waited { r.willBeginAfterSatisfyingFailureRequirements() }     // F5
        transition(r, to: target, input: waited ? "\(input()); failure requirements satisfied" : input())
        // X1: competitors that may not run alongside are forced out.
        if !alongsideEveryone {
            for b in participants where b !== r && b.storedState.receivesTouches && competes(r, b)
                && !simultaneous(r, b) && r.canPrevent(b) && b.canBePrevented(by: r) {
                if b.storedState == .possible {
                    b.pendingState = nil
                    fail(b, input: "excluded by \(r)")
                } else {
                    transition(b, to: .cancelled, input: "excluded by \(r)")
                    queue.append(.action(b))
                }
            }
        }
        // C1: the view's touches are cancelled before the first action (D4).
        if r.cancelsTouchesInView { queue.append(.cancelViewTouches(r.sequenceTouches)) }
        queue.append(.action(r))
        // F3: recognizers that required this one to fail, fail.
        for d in dependents(of: r) where d.storedState == .possible {
            d.pendingState = nil
            fail(d, input: "required \(r) to fail, which recognized")
        }
    }

    /// possible → failed, then the recognizers waiting for this failure may go ahead (F3).
    private func fail(_ r: GestureRecognizer, input: @autoclosure () -> String) {
        guard r.storedState == .possible else { return }
        transition(r, to: .failed, input: input())
        for d in dependents(of: r) where d.storedState == .possible && d.pendingState != nil {
            if let target = d.pendingState { attemptToLeavePossible(d, to: target, input: "\(r) failed") }
        }
    }

    private func transition(_ r: GestureRecognizer, to new: GestureRecognizer.State, input: @autoclosure () -> String) {
        let old = r.storedState
        assert(GestureRecognizer.State.isLegalTransition(from: old, to: new, discrete: r.isDiscrete),
               "S2: illegal transition \(r): \(old) → \(new)")
        r.storedState = new
        gatesMayHaveOpened = true                    // it no longer holds touches as possible (C2, C3)
        if new.isTerminal {
            r.deadline = nil                         // a finished recognizer has nothing left to time
            groupsMayHaveFinished = true
            s4Candidates.append(r)
            recipientsVersion += 1                   // it receives no more touches (P3): out of the order
        }
        log("\(r): \(old) → \(input()) → \(new)")
    }

    // MARK: Relations

    /// F1, F2: static requirements plus the dynamic ones, among the recognizers of this sequence. A pair
    /// is asked only when one of the two may answer (`asksAboutFailureRequirements`): with none such, a
    /// recognizer's requirements cost its static ones, however many take part.
    private func failureRequirements(of a: GestureRecognizer) -> [GestureRecognizer] {
        var result: [GestureRecognizer] = []
        for w in a.requiredToFail where w.value !== a { result.append(w.value) }
        guard !askingParticipants.isEmpty else { return result }
        // a's own hooks and delegate are asked about everyone; the others' only when they may answer.
        let others = a.asksAboutRequirements ? participants : askingParticipants
        for b in others where b !== a && !result.contains(where: { $0 === b }) {
            if a.asksAboutRequirements && (a.shouldRequireFailure(of: b)
                    || a.delegate?.gestureRecognizer(a, shouldRequireFailureOf: b) == true)
                || b.asksAboutRequirements && (b.shouldBeRequiredToFail(by: a)
                    || b.delegate?.gestureRecognizer(b, shouldBeRequiredToFailBy: a) == true) {
                result.append(b)
            }
        }
        return result
    }

    /// The participants that require `r` to fail (F1, F2), in participation order: found from `r`'s own
    /// list of static dependents and, for dynamic requirements, among those that may have one, so
    /// that the cost follows the requirements and not the number of participants.
    private func dependents(of r: GestureRecognizer) -> [GestureRecognizer] {
        var result: [GestureRecognizer] = []
        for w in r.failureDependents {
            let d = w.value
            if d !== r && d.isParticipating && d.participatingEnvironment === self && requires(d, r) { result.append(d) }
        }
        if !askingParticipants.isEmpty {
            let candidates = r.asksAboutRequirements ? participants : askingParticipants
            for d in candidates where d !== r && !result.containsIdentical(d) && requires(d, r) { result.append(d) }
        }
        if result.count > 1 { result.sort { $0.participationSerial < $1.participationSerial } }
        return result
    }

    /// F2: evaluated once per attempt. A recognizer that has attempted to leave possible keeps what
    /// it saw then; before that, the answer is kept while the sequence's participants stay the same.
    private func requirements(of r: GestureRecognizer) -> [GestureRecognizer] {
        if let attempted = r.attemptRequirements { return attempted }
        let key = GestureRecognizer.Membership(environment: ObjectIdentifier(self), count: membership)
        if let cached = r.requirementsCache, cached.membership == key { return cached.requirements }
        let list = failureRequirements(of: r)
        r.requirementsCache = (key, list)
        return list
    }

    private func requires(_ d: GestureRecognizer, _ b: GestureRecognizer) -> Bool {
        requirements(of: d).contains { $0 === b }
    }

    /// A requirement that recognized or began makes its dependents fail (F1, F3).
    private func hasWon(_ b: GestureRecognizer) -> Bool {
        b.isParticipating && (b.storedState == .began || b.storedState == .changed || b.storedState == .ended)
    }

    /// A requirement still in possible holds its dependents back (F1). One that takes no part in the
    /// current sequence (no touches, no timer) or is disabled cannot fail any more and does not.
    private func isStillDeciding(_ b: GestureRecognizer) -> Bool {
        b.isParticipating && b.isEnabled && b.storedState == .possible
    }

    /// began or changed, or recognized and not yet reset.
    private func isActive(_ b: GestureRecognizer) -> Bool {
        b.storedState == .began || b.storedState == .changed || b.storedState == .ended
    }

    /// X5: recognizers compete when they share a touch of the current sequence.
    private func competes(_ a: GestureRecognizer, _ b: GestureRecognizer) -> Bool {
        a.sequenceTouches.contains { t in b.sequenceTouches.contains { $0 === t } }
    }

    /// X2: either delegate saying yes is enough.
    private func simultaneous(_ a: GestureRecognizer, _ b: GestureRecognizer) -> Bool {
        a.delegate?.gestureRecognizer(a, shouldRecognizeSimultaneouslyWith: b) == true
            || b.delegate?.gestureRecognizer(b, shouldRecognizeSimultaneouslyWith: a) == true
    }

    /// The recognizer's own view and the hit-test views of its touches, each once (S5 asks them: a
    /// control under a superview's recognizer can refuse it, X6).
    private func touchedViews(of r: GestureRecognizer) -> [View] {
        var views: [View] = []
        if let own = r.view { views.append(own) }
        for t in r.sequenceTouches {
            if let v = t.view, !views.contains(where: { $0 === v }) { views.append(v) }
        }
        return views
    }

    // MARK: The end of an update

    /// Runs queued work when the outermost update ends: view cancellations and actions in the order
    /// they arose, late view deliveries (C2, C3), deadlocks, and resets (S4).
    func endUpdate() {
        guard depth == 0 else { return }
        depth += 1
        // This runs after every recognizer call: each step is looked at here, and called only when
        // it has something to do.
        repeat {
            if !queue.isEmpty {
                // In the order the work arose; actions may queue more, which runs in this pass too.
                // The queue only grows until it is emptied below (a nested update returns at once).
                var next = 0
                while next < queue.count {
                    let index = next
                    next += 1
                    switch queue[index] {
                    case .action(let r): r.sendActions()
                    case .cancelViewTouches(let touches): cancelViewTouches(touches)
                    }
                }
                // Usually one action: taken off the end, without the general emptying's copy loop.
                if queue.count == 1 { queue.removeLast() } else { queue.removeAll(keepingCapacity: true) }
            }
            if gatesMayHaveOpened && !gatedTouches.isEmpty { releaseGatedTouches() }
            if mayHaveWaiters { breakRequirementDeadlocks() }
        } while !queue.isEmpty
        if groupsMayHaveFinished { resetFinishedSequences() }
        depth -= 1
    }

    /// A recognizer left in possible with no touch, no timer and no requirement to wait for can never
    /// decide: UIKit would leave it stuck; here it fails, and the log says whose bug it is.
    private func failAbandonedRecognizers() {
        let list = participants                     // failing one may bring others in (F1)
        list.forEach { r in
            guard r.storedState == .possible && r.pendingState == nil && r.trackedTouches.isEmpty
                && r.deadline == nil && !r.sequenceTouches.isEmpty else { return }
            log("recognizer bug: \(r) is still possible after its touches ended; failing it")
            fail(r, input: "touches gone")
        }
    }

    /// F-graph cycles: recognizers that all wait for each other would wait forever. The earliest
    /// (X7 order) goes ahead, which fails the others that require it.
    private func breakRequirementDeadlocks() {
        guard mayHaveWaiters else { return }
        guard participants.contains(where: { $0.pendingState != nil }) else {
            mayHaveWaiters = false
            return
        }
        let waiting = participants.filter { $0.pendingState != nil && $0.storedState == .possible }
        guard !waiting.isEmpty else { return }
        // A waiting recognizer is live if it waits for one that is still deciding on its own, or for a
        // live waiting one.
        var live = Set<ObjectIdentifier>()
        var grew = true
        while grew {
            grew = false
            for r in waiting where !live.contains(ObjectIdentifier(r)) {
                let reqs = r.attemptRequirements ?? []
                if reqs.contains(where: { b in
                    isStillDeciding(b) && (b.pendingState == nil || live.contains(ObjectIdentifier(b)))
                }) {
                    live.insert(ObjectIdentifier(r))
                    grew = true
                }
            }
        }
        guard let first = waiting.first(where: { !live.contains(ObjectIdentifier($0)) }),
              let target = first.pendingState else { return }
        log("scene bug: failure requirements form a cycle through \(first); it goes ahead")
        perform(first, to: target, input: "requirement cycle broken")
    }

    /// S4: a group of recognizers linked by shared touches or failure requirements is reset when all of
    /// them have finished and none of their touches is still down.
    ///
    /// This runs whenever a recognizer finishes or a touch ends, and while fingers keep coming and going
    /// a sequence never ends: an active recognizer's touch list grows with every finger. So the check
    /// starts from the finished members only and walks outward through the touches' own recognizer
    /// lists, stopping at the first member that is not finished: the usual answer ("a pan is still
    /// going") costs a few steps, whatever the length of the sequence.
    private func resetFinishedSequences() {
        guard groupsMayHaveFinished else { return }
        groupsMayHaveFinished = false
        // The candidates' storage is taken for the check and given back empty: the check runs after
        // most recognizer calls that finish something.
        var starts: [GestureRecognizer] = []
        swap(&starts, &s4Candidates)
        defer {
            starts.removeAll(keepingCapacity: true)
            if s4Candidates.isEmpty { s4Candidates = starts }
        }
        if s4ScanAll {
            s4ScanAll = false
            starts.removeAll(keepingCapacity: true)
            starts.append(contentsOf: participants)
        }
        guard !participants.isEmpty, !starts.isEmpty else { return }
        // Members of groups known not to be finished carry this check's mark (`s4Mark`): no set to
        // build and hash on every frame a finger lifts.
        s4Round &+= 1
        let unfinished = GestureRecognizer.DeliveryMark(environment: ObjectIdentifier(self), round: s4Round)
        var finished: [[GestureRecognizer]] = []
        for start in starts {
            guard start.isParticipating, start.participatingEnvironment === self, start.s4Mark != unfinished,
                  start.resetMark != unfinished, isDone(start) else { continue }
            guard let group = finishedGroup(from: start, unfinished: unfinished) else { continue }
            for r in group { r.resetMark = unfinished }                // found: not walked again
            finished.append(group)
        }
        guard !finished.isEmpty else { return }
        // Each group is reset whole, the groups in the order of their first members' participation
        // (the order a scan of the participants finds them in).
        if finished.count > 1 {
            finished.sort { a, b in
                a.lazy.map(\.participationSerial).min()! < b.lazy.map(\.participationSerial).min()!
            }
        }
        for group in finished {
            for r in inResetOrder(group) { resetRecognizer(r, input: "touch sequence ended", leavingList: false) }
        }
        // Out of the lists in one pass each, not one pass per member.
        participants.removeAll { !$0.isParticipating }
        if !askingParticipants.isEmpty { askingParticipants.removeAll { !$0.isParticipating } }
    }
    private var s4Round = 0

    /// Finished: in a terminal state, no timer, none of its touches down. Its most recent touches are
    /// looked at first: they are the ones that may still be down.
    private func isDone(_ r: GestureRecognizer) -> Bool {
        guard r.storedState.isTerminal && r.deadline == nil else { return false }
        return r.sequenceTouches.withUnsafeBufferPointer { touches in
            for i in touches.indices.reversed() where touches[i].isLive { return false }
            return true
        }
    }

    /// The group of `start` (linked by a shared touch, X5, or a failure requirement either way, F1/F2)
    /// if every member of it is finished; nil, with the members seen added to `unfinished`, otherwise.
    private func finishedGroup(from start: GestureRecognizer,
                               unfinished: GestureRecognizer.DeliveryMark) -> [GestureRecognizer]? {
        // The kept list's storage is taken for the walk and given back empty when the group is still
        // going, the usual answer: the check runs after every touch that ends, and while fingers come
        // and go a new list there allocated (and grew) on most frames. (A call made meanwhile, by a
        // delegate asked in `requirements(of:)`, finds no storage kept and makes its own.)
        var group: [GestureRecognizer] = []
        swap(&group, &groupStorage)
        // Members carry this walk's mark, and the touches walked its round: each is looked at once,
        // so a group costs its members and their touches' lists, not their square.
        groupRound &+= 1
        let round = groupRound
        let member = GestureRecognizer.DeliveryMark(environment: ObjectIdentifier(self), round: round)
        start.groupMark = member
        group.append(start)
        var i = 0
        while i < group.count {
            let a = group[i]
            i += 1
            let allDone = forEachNeighbor(of: a, round: round) { b in
                if b.groupMark == member { return true }
                // One member still going keeps the group, and so does one already found in a group
                // still going (the same group): each member is walked from one start at most.
                guard b.s4Mark != unfinished, isDone(b) else { return false }
                b.groupMark = member
                group.append(b)
                return true
            }
            if !allDone {
                for r in group { r.s4Mark = unfinished }
                group.removeAll(keepingCapacity: true)      // holds no recognizer between checks
                groupStorage = group
                return nil
            }
        }
        return group
    }
    /// `finishedGroup`'s list storage between checks (always empty).
    private var groupStorage: [GestureRecognizer] = []
    /// Numbers the group walks (`finishedGroup`).
    private var groupRound = 0

    /// Calls `visit` with the participants linked to `a` directly, until it returns false; returns
    /// false then. A touch lists every recognizer it was delivered to (P1); one that has been reset
    /// since holds touches that began after it, so a touch older than its first one is from an earlier
    /// sequence and links nothing now. A touch already walked in this `round` is not walked again: its
    /// recognizers were all visited then.
    private func forEachNeighbor(of a: GestureRecognizer, round: Int, _ visit: (GestureRecognizer) -> Bool) -> Bool {
        func linkable(_ b: GestureRecognizer) -> Bool {
            b !== a && b.isParticipating && b.participatingEnvironment === self
        }
        // Read without retaining: `visit` and `requirements(of:)` change none of these lists.
        // Latest first: the touches most likely still down, and the recognizers delivered to last,
        // which at the end of a delivery pass are the ones not yet finished (a check runs after each
        // recognizer's call, D1.2, and must not walk the ones finished before it every time).
        let byTouch = a.sequenceTouches.reversed().allSatisfy { t in
            guard t.groupRound != round else { return true }
            t.groupRound = round
            return t.gestureRecognizers.reversed().allSatisfy { b in
                guard linkable(b), let first = b.sequenceTouches.first?.identifier, t.identifier >= first else { return true }
                return visit(b)
            }
        }
        guard byTouch else { return false }
        guard requirements(of: a).allSatisfy({ b in !linkable(b) || visit(b) }) else { return false }
        return dependents(of: a).allSatisfy(visit)
    }

    /// A finished group in the order the resets have always run in: from its first member in
    /// participation order, breadth first, each step's members in participation order; members linked
    /// only through an earlier sequence's touch lists last, in participation order. Each touch's list is
    /// walked once: the members holding it are all taken the first time.
    private func inResetOrder(_ group: [GestureRecognizer]) -> [GestureRecognizer] {
        guard group.count > 1 else { return group }
        let members = group.sorted { $0.participationSerial < $1.participationSerial }
        let member = members[0].groupMark                   // the group walk marked every member
        groupRound &+= 1                                    // a new round for the touches
        let round = groupRound
        var ordered = [members[0]]
        members[0].orderRound = round
        var batch: [GestureRecognizer] = []
        func take(_ b: GestureRecognizer) {
            guard b.groupMark == member, b.orderRound != round else { return }
            b.orderRound = round
            batch.append(b)
        }
        var i = 0
        while i < ordered.count {
            let a = ordered[i]
            i += 1
            for t in a.sequenceTouches where t.groupRound != round {
                t.groupRound = round
                // X5: those holding the touch in their own sequence share it with `a`.
                for b in t.gestureRecognizers {
                    if let first = b.sequenceTouches.first?.identifier, t.identifier >= first,
                       b.sequenceTouches.containsIdentical(t) { take(b) }
                }
            }
            for b in requirements(of: a) { take(b) }
            for b in dependents(of: a) { take(b) }
            if batch.count > 1 { batch.sort { $0.participationSerial < $1.participationSerial } }
            ordered.append(contentsOf: batch)
            batch.removeAll(keepingCapacity: true)
        }
        for b in members where b.orderRound != round { ordered.append(b) }
        return ordered
    }

    /// The window is going away: the recognizers still in a sequence let go of this environment.
    func detachAll() {
        for r in participants {
            r.isParticipating = false
            r.participatingEnvironment = nil
        }
        gatesMayHaveOpened = true
        participants = []
        askingParticipants = []
        knownNextDeadline = nil
    }

    /// The application went away with sequences under way: every recognizer taking part is reset, and
    /// every touch this environment or its recognizers keep is let go of (a touch holds its window,
    /// which holds this environment).
    func letGoOfTouches() {
        debugLog = nil                               // whoever listened may be going away too
        // S4's reset, early: each recognizer's own lists of touches (a tap's fingers, a pan's) go too.
        for r in participants { resetRecognizer(r, input: "the application went away", leavingList: false) }
        detachAll()
        gatedTouches = []
        s4Candidates = []
        for i in sharedSets.indices { sharedSets[i].clear() }
        viewMoveSet.clear()
        kept = nil
    }

    /// S4's reset. `leavingList` false: the caller takes the recognizer out of `participants` (and
    /// `askingParticipants`) itself, with the rest of its group.
    private func resetRecognizer(_ r: GestureRecognizer, input: @autoclosure () -> String, leavingList: Bool = true) {
        let old = r.storedState
        r.storedState = .possible
        gatesMayHaveOpened = true                    // it leaves the sequence and lets go of its touches
        recipientsVersion += 1
        r.trackedTouches = []
        r.sequenceTouches = []
        r.pendingState = nil
        r.attemptRequirements = nil
        r.requirementsCache = nil
        r.deadline = nil
        r.isParticipating = false
        r.participatingEnvironment = nil
        for i in r.touchSets.indices { r.touchSets[i].clear() }
        if leavingList {
            participants.removeAll { $0 === r }
            if r.asksAboutRequirements { askingParticipants.removeAll { $0 === r } }
        }
        membership += 1
        knownNextDeadline = nil
        if old != .possible { log("\(r): \(old) → \(input()) → possible") }
        r.reset()
    }

    /// Formats the message only when someone listens: transitions happen on every frame.
    func log(_ message: @autoclosure () -> String) {
        guard let debugLog else { return }
        debugLog(message())
    }

    // MARK: View cancellation (C1), queued so that it runs before the action (D4)

    private func cancelViewTouches(_ touches: [Touch]) {
        var batch: [Touch] = []
        for t in touches {
            switch t.viewDelivery {
            case .delivering, .endDelayed:
                t.viewDelivery = .cancelled
                batch.append(t)
            case .pendingBegan, .beganDelayed:
                t.viewDelivery = .cancelled          // the view never heard of it (C2)
            case .none, .cancelled, .finished, .unregistered:
                break
            }
        }
        deliver(batch, phase: .cancelled)
    }
}
