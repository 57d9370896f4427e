/// Arbitration: the state changes recognizers ask for, checked and carried out with their
/// consequences (S2–S6, X1–X4, F1–F5), and the end of each update, which runs what they queued.
extension GestureEnvironment {
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
            if r.isParticipating { r.pendingState = nil; fail(r, input: GestureEnvironment.disabledInput) }
        case .began, .changed:
            transition(r, to: .cancelled, input: GestureEnvironment.disabledInput)
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
        resetRecognizer(r, input: "removed from its view")
        recognizerWithdrawn()
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
            if r.pendingState == nil { logTransition(r, from: .possible, to: .possible, input: input(), waitsFor: blocker) }
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
        stateChanged(r, to: new)
        logTransition(r, from: old, to: new, input: input())
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
    func dependents(of r: GestureRecognizer) -> [GestureRecognizer] {
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
    func requirements(of r: GestureRecognizer) -> [GestureRecognizer] {
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
        b.isParticipating && b.isActive && b.storedState == .possible
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
    func failAbandonedRecognizers() {
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
}
