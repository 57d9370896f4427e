/// Delivery to recognizers (D1, P1–P4, X7), the timers they set (D3), and the view cancellations
/// recognizers ask for (C1).
extension GestureEnvironment {
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
        if anyTerminal { touchesWillEnd(touches) }
        eventInProgressSerial = event.serial
        deliverToRecognizers(touches, event: event)
        eventInProgressSerial = nil
        deliverToViews(touches, event: event)
        // Touches leave their recognizers after the one event they end in. Only then can a recognizer
        // be left without touches (or a group finish), so the checks run only then.
        if anyTerminal || touchesWereIgnored {
            touchesWereIgnored = false
            if anyTerminal { touchesDidEnd() }
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
        var v = touch.reachesRecognizers ? touch.view : nil        // FO3: its view hears it, no recognizer
        while let view = v {
            let attached = view.gestureRecognizers        // a delegate may change the view's list
            attached.forEach { r in
                if accepts(r, touch) { receivers.append(r) }
            }
            v = view.superview
        }
        touch.gestureRecognizers = receivers
        touchRegistered()
        receivers.forEach { r in
            r.trackedTouches.append(touch)
            r.sequenceTouches.append(touch)
            participate(r)
        }
    }

    private func accepts(_ r: GestureRecognizer, _ touch: Touch) -> Bool {
        guard r.isActive, r.storedState.receivesTouches, !r.followsHover else { return false }     // P2, P3, HV4
        // A discrete recognizer that has made its decision and only waits for a requirement (F1)
        // takes no new touches.
        if r.pendingState == .ended { return false }
        guard r.allowedTouchTypes.allows(touch.type) else { return false }        // P5, before the delegate is asked
        return r.delegate?.gestureRecognizer(r, shouldReceive: touch) ?? true        // P2
    }

    /// D1.1–D1.2: each recognizer gets its touches by phase, and the update runs after each call.
    ///
    /// The sets handed to recognizers are reused from the previous event when they hold the same
    /// touches (`TouchSetCache`): while fingers move, that is every event, and no set is hashed.
    private func deliverToRecognizers(_ touches: [Touch], event: Event) {
        // How many of the event's touches are in each phase: a recognizer that tracks that many gets
        // the event's shared set for the phase.
        var sharedCounts = PhaseCounts()
        for t in touches { sharedCounts.count(t.phase) }
        let order = deliveryOrder(touches, everyTouchChanged: sharedCounts.stationary == 0)
        let serial = event.serial
        // `order` is this function's own reference to the list: its recognizers stay alive without a
        // retain each (a recognizer withdrawn meanwhile is still in it, and P3 below skips it).
        order.forEachUnretained { r in
            // One that finished earlier in this event gets nothing more (P3, checked again per phase).
            guard r.takesTouches else { return }
            // The recognizer's touches in this event, by phase (began, moved, ended, cancelled). Its
            // tracked touches are among the event's, so as many as the event has means all of them.
            var counts = PhaseCounts()
            if r.trackedTouches.count == touches.count {
                counts = sharedCounts
            } else {
                for t in r.trackedTouches where t.lastEventSerial == serial { counts.count(t.phase) }
            }
            for slot in 0..<PhaseCounts.delivered {
                let mine = counts[slot]
                guard mine > 0 else { continue }
                guard r.takesTouches else { break }   // P3
                let all = sharedCounts[slot]
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

    struct KeptOrder {
        var version: Int
        var touchCount: Int
        var order: [GestureRecognizer]
        /// Every touch has the same recognizer list.
        var sameLists: Bool
    }

    // MARK: Timers (D3)

    /// Fires the earliest deadline, which the application found to be `deadline`.
    func fireDeadline(at deadline: Double) {
        guard let r = participants.first(where: { $0.deadline == deadline }) else { return }
        time = Swift.max(time, deadline)
        r.deadline = nil
        depth += 1
        if r.isActive && r.storedState.receivesTouches {
            input = "timer"
            r.deadlineReached(at: deadline)
            input = "update"
        }
        failAbandonedRecognizers()
        depth -= 1
        endUpdate()
    }

    // MARK: View cancellation (C1), queued so that it runs before the action (D4)

    func cancelViewTouches(_ touches: [Touch]) {
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

/// How many of an event's touches are in each phase: the four delivered to recognizers by slot, in
/// delivery order (`GestureEnvironment.deliveredPhases`: began, moved, ended, cancelled), and the
/// stationary ones, which are not delivered.
struct PhaseCounts {
    static let delivered = 4
    private var slots = (0, 0, 0, 0)
    private(set) var stationary = 0

    mutating func count(_ phase: Touch.Phase) {
        switch phase {
        case .began: slots.0 += 1
        case .moved: slots.1 += 1
        case .ended: slots.2 += 1
        case .cancelled: slots.3 += 1
        case .stationary: stationary += 1
        }
    }

    /// The count of delivered phase `slot` (0 began, 1 moved, 2 ended, 3 cancelled).
    subscript(slot: Int) -> Int {
        switch slot {
        case 0: return slots.0
        case 1: return slots.1
        case 2: return slots.2
        default: return slots.3
        }
    }
}
