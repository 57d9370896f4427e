/// What the views hear: the window delivers touches to their hit-test views after the recognizers
/// have had them (D1.3), gated by the recognizers (uikit-semantics C1–C4) and by the views' own
/// `isMultipleTouchEnabled` (T9) and `isExclusiveTouch` (T10).
///
/// - C1: a recognizer with `cancelsTouchesInView` that recognizes or begins cancels the view's touches
///   (GestureEnvironment queues that before its action, D4).
/// - C2: while any recognizer of the touch with `delaysTouchesBegan` is possible, touchesBegan is
///   withheld; if they all fail it is delivered late with the location and time it had; if one wins
///   the view never hears of the touch.
/// - C3: while any recognizer of the touch with `delaysTouchesEnded` is possible, touchesEnded is
///   withheld, and delivered late (from inside the environment update) once they have all decided.
/// - C4: any one delaying recognizer delays; any one cancelling recognizer cancels.
extension GestureEnvironment {
    func deliverToViews(_ touches: [Touch], event: Event) {
        // Once recognizers have taken the touches (C1), views hear nothing more: the usual case while
        // a gesture runs, decided without building the phase lists.
        guard touches.contains(where: { $0.viewDelivery.awaitsView }) else { return }
        // The delivery states below change either way; the phase lists are only built when some view
        // can see them (R3, R4: see `chainObservesTouches`).
        let collect = touches.contains { t in
            t.viewDelivery.awaitsView && (t.view.map(GestureEnvironment.chainObservesTouches) ?? false)
        }
        var began: [Touch] = [], moved: [Touch] = [], ended: [Touch] = [], cancelled: [Touch] = []
        for t in touches {
            switch t.viewDelivery {
            case .pendingBegan:
                if !viewAccepts(t) {
                    t.viewDelivery = .none
                } else if isBeganDelayed(t) {
                    t.viewDelivery = .beganDelayed(TouchSnapshot(location: t.screenLocation,
                                                                 previousLocation: t.previousScreenLocation,
                                                                 timestamp: t.timestamp, record: t.currentRecord))
                    gatedTouches.append(t)
                } else {
                    t.viewDelivery = .delivering
                    if collect { began.append(t) }
                }
            case .delivering:
                switch t.phase {
                case .moved: if collect { moved.append(t) }
                case .ended:
                    if isEndDelayed(t) {
                        t.viewDelivery = .endDelayed(.ended)
                        gatedTouches.append(t)
                    } else {
                        t.viewDelivery = .finished
                        if collect { ended.append(t) }
                    }
                case .cancelled:
                    t.viewDelivery = .finished
                    if collect { cancelled.append(t) }
                case .began, .stationary:
                    break
                }
            case .unregistered, .none, .beganDelayed, .endDelayed, .cancelled, .finished:
                break
            }
        }
        guard collect else { return }
        deliver(began, phase: .began)
        deliver(moved, phase: .moved)
        deliver(ended, phase: .ended)
        deliver(cancelled, phase: .cancelled)
    }

    /// T9, T10: whether the touch's view takes it, given the touches views are tracking now.
    private func viewAccepts(_ t: Touch) -> Bool {
        guard let view = t.view else { return false }
        // The window's touches that views are tracking, looked at in place: no list is made for each
        // touch that lands (the application's list is held for the walk, and nothing here changes it).
        let live = window.application?.activeTouches ?? []
        return live.allSatisfy { other in
            guard other !== t, window.isTracking(other), let otherView = other.view else { return true }
            if otherView === view && !view.isMultipleTouchEnabled { return false }      // T9
            if otherView !== view && (view.isExclusiveTouch || otherView.isExclusiveTouch) { return false } // T10
            return true
        }
    }

    // Asked after every recognizer call while a touch is gated: the lists are read without retaining
    // their elements (nothing here changes them).
    private func isBeganDelayed(_ t: Touch) -> Bool {
        t.gestureRecognizers.contains { $0.delaysTouchesBegan && holdsTouch($0, t) }
    }

    private func isEndDelayed(_ t: Touch) -> Bool {
        t.gestureRecognizers.contains { $0.delaysTouchesEnded && holdsTouch($0, t) }
    }

    /// The recognizer has not decided yet about a gesture the touch is part of (C2, C3).
    private func holdsTouch(_ r: GestureRecognizer, _ t: Touch) -> Bool {
        r.isActive && r.isParticipating && r.storedState == .possible && r.sequenceTouches.containsIdentical(t)
    }

    /// C2, C3: touches whose recognizers have all decided get their late delivery.
    func releaseGatedTouches() {
        guard !gatedTouches.isEmpty, gatesMayHaveOpened else { return }
        gatesMayHaveOpened = false
        for t in gatedTouches {
            switch t.viewDelivery {
            case .beganDelayed(let snapshot):
                guard !isBeganDelayed(t) else { continue }
                // The late touchesBegan reports the touch as it was when it began (C2).
                let phase = t.phase
                t.replay = snapshot
                t.phase = .began
                t.viewDelivery = .delivering
                deliver([t], phase: .began)
                t.replay = nil
                t.phase = phase
                // Catch up with where the finger is now, unless the event under way is about to
                // deliver its move or end anyway.
                let inProgress = eventInProgressSerial.map { t.lastEventSerial == $0 } ?? false
                if inProgress && t.phase != .stationary { continue }
                if t.screenLocation != snapshot.location && t.viewDelivery.isDelivering {
                    t.phase = .moved
                    deliver([t], phase: .moved)
                    t.phase = phase
                }
                if t.phase.isTerminal && t.viewDelivery.isDelivering {
                    if t.phase == .ended && isEndDelayed(t) {
                        t.viewDelivery = .endDelayed(.ended)
                    } else {
                        t.viewDelivery = .finished
                        deliver([t], phase: t.phase)
                    }
                }
            case .endDelayed(let phase):
                guard !isEndDelayed(t) else { continue }
                t.viewDelivery = .finished
                deliver([t], phase: phase)
            case .unregistered, .none, .pendingBegan, .delivering, .cancelled, .finished:
                break
            }
        }
        gatedTouches.removeAll { t in
            switch t.viewDelivery {
            case .beganDelayed, .endDelayed: false
            default: true
            }
        }
    }

    /// Sends one phase to the touches' views, one call per view with all its touches, views in the
    /// order of their first touch. The responder chain takes it from there (R3).
    func deliver(_ touches: [Touch], phase: Touch.Phase) {
        guard !touches.isEmpty else { return }
        var views: [View] = []
        for t in touches {
            if let v = t.view, !views.contains(where: { $0 === v }) { views.append(v) }
        }
        // Views whose whole chain only forwards (R3) would drop the set at its end (R4): nothing to
        // build or send to them.
        for v in views where GestureEnvironment.chainObservesTouches(from: v) {
            // One view hearing its touches move: the same set as on the last event, usually.
            let set = views.count == 1 && phase == .moved
                ? viewMoveSet.set(of: touches, phase: .moved, serial: nil)
                : Set(touches.filter { $0.view === v })
            let event = set.first?.lastEvent
            switch phase {
            case .began: v.touchesBegan(set, with: event)
            case .moved: v.touchesMoved(set, with: event)
            case .ended: v.touchesEnded(set, with: event)
            case .cancelled: v.touchesCancelled(set, with: event)
            case .stationary: break
            }
        }
    }
}

extension GestureEnvironment {
    /// Whether anyone can see touches delivered to `view` (R3, R4). The default `touches…` methods only
    /// hand the set to `next`, so a chain made of plain `View`s and `Window`s up to the `Application`
    /// drops it without effect: delivering to it is skipped. A subclass anywhere in the chain (it may
    /// override a `touches…` method, or `next`) gets its delivery as always.
    static func chainObservesTouches(from view: View) -> Bool {
        var responder: Responder? = view
        while let r = responder {
            let type = Swift.type(of: r)
            guard type == View.self || type == Window.self || type == Application.self else { return true }
            responder = r.next
        }
        return false
    }
}

extension ViewDelivery {
    var isDelivering: Bool {
        if case .delivering = self { return true }
        return false
    }

    /// The view is to hear of the touch in this event: it has not been told of it yet, or it is
    /// following it.
    var awaitsView: Bool {
        switch self {
        case .pendingBegan, .delivering: true
        case .unregistered, .none, .beganDelayed, .endDelayed, .cancelled, .finished: false
        }
    }
}
