/// S4: resetting the recognizers whose touch sequence is over, group by group.
extension GestureEnvironment {
    /// S4: a group of recognizers linked by shared touches or failure requirements is reset when all of
    /// them have finished and none of their touches is still down.
    ///
    /// This runs whenever a recognizer finishes or a touch ends, and while fingers keep coming and going
    /// a sequence never ends: an active recognizer's touch list grows with every finger. So the check
    /// starts from the finished members only and walks outward through the touches' own recognizer
    /// lists, stopping at the first member that is not finished: the usual answer ("a pan is still
    /// going") costs a few steps, whatever the length of the sequence.
    func resetFinishedSequences() {
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

    /// A finished group in reset order (S4): from its first member in participation order, breadth first, each step's members in participation order; members linked
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

    /// S4's reset. `leavingList` false: the caller takes the recognizer out of `participants` (and
    /// `askingParticipants`) itself, with the rest of its group.
    func resetRecognizer(_ r: GestureRecognizer, input: @autoclosure () -> String, leavingList: Bool = true) {
        let old = r.storedState
        r.storedState = .possible
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
        recognizerLeft(r)
        if old != .possible { logTransition(r, from: old, to: .possible, input: input()) }
        r.reset()
    }
}
