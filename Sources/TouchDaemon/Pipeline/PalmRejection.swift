import TouchCore
import TouchProtocol
import TouchScene
import TouchSystem

/// Palm rejection (uikit-semantics PR1–PR4): while a pen is in range of a screen, and for a hold-off
/// after it leaves, finger touches on that screen are the hand that holds the pen.
///
/// - PR1: a pen is in range while its pencil hovers or touches (`DigitizerFrame.pencilInRange`).
/// - PR2: the fingers already down on its screen when it comes in are cancelled: their views hear
///   touchesCancelled, their recognizers cancel (a pan in progress ends cancelled, never in two
///   halves), a pass-through mirror lifts them as palms (libinput: TOUCH_CANCEL).
/// - PR3: a finger that lands while the pen is in range, or within `holdoff` after it left, is never
///   delivered (no view, no recognizer, no mirror) for as long as it stays down, hold-off over or not.
/// - PR4: the pen itself goes on; a screen's finger device whose scene entry says `"palmRejection":
///   false` (or paired with a pen whose entry says so) is left alone.
///
/// Each finger contact is in one state: delivered (the pipeline passes it on) or rejected (it is
/// dropped until it lifts). The owner of this state is the pipeline, which filters every frame here.
package struct PalmRejection {
    /// After the pen leaves: libinput's 90 ms (evdev-fallback.c arms its touch-arbitration timer for
    /// 90 ms at proximity out), because "on a hand-lift the proximity out precedes the touch up by a
    /// few ms": the hand's touches reaching the screen just after the pen left are palms too.
    package static let defaultHoldoff = 0.09
    package var holdoff = PalmRejection.defaultHoldoff

    /// Where a pen is, for its screen's fingers.
    package enum PenState: Equatable {
        case inRange
        /// Out of range since this time (seconds): the hold-off runs from here.
        case away(since: Double)
    }

    /// The contacts of one finger device, each either delivered or rejected (never both).
    package struct FingerDevice {
        var delivered: [Contact] = []
        var rejected: Set<Int> = []
    }

    private var pens: [Int: PenState] = [:]
    /// Pen device → the finger devices of its screen.
    private var screens: [Int: Set<Int>] = [:]
    private var fingers: [Int: FingerDevice] = [:]
    /// Devices whose entry turns palm rejection off.
    private var off: Set<Int> = []

    /// Nothing to do: no pen is paired with a finger device.
    package var isIdle: Bool { screens.isEmpty }

    /// `pen` shares a screen with `finger`.
    package mutating func pair(pen: Int, finger: Int) {
        screens[pen, default: []].insert(finger)
        if pens[pen] == nil { pens[pen] = .away(since: -.infinity) }
    }

    /// `device` went away: its pairs and its contacts' states go with it.
    package mutating func forget(device: Int) {
        pens[device] = nil
        screens[device] = nil
        for k in screens.keys { screens[k]?.remove(device) }
        screens = screens.filter { !$0.value.isEmpty }
        fingers[device] = nil
        off.remove(device)
    }

    /// `device`'s entry turns palm rejection on or off (a finger already rejected stays so until it lifts).
    package mutating func setEnabled(_ enabled: Bool, device: Int) {
        if enabled { off.remove(device) } else { off.insert(device) }
    }

    package func isPen(_ device: Int) -> Bool { screens[device] != nil }

    /// The finger devices `pen` rejects for (its screen's, less those turned off).
    private func guarded(by pen: Int) -> [Int] {
        guard !off.contains(pen) else { return [] }
        return (screens[pen] ?? []).filter { !off.contains($0) }.sorted()
    }

    /// Whether a finger landing on `finger` at `time` is a palm (PR3).
    private func rejects(_ finger: Int, at time: Double) -> Bool {
        guard !off.contains(finger) else { return false }
        for (pen, fingers) in screens where fingers.contains(finger) && !off.contains(pen) {
            switch pens[pen] {
            case .inRange: return true
            case .away(let since): if time < since + holdoff { return true }
            case nil: break
            }
        }
        return false
    }

    /// A pen's frame: its state, and (PR2) the frames that cancel the fingers down on its screen when
    /// it comes in, to be handled before the pen's own.
    package mutating func penFrame(_ frame: DigitizerFrame) -> [DigitizerFrame] {
        let inRange = frame.pencilInRange
        let was = pens[frame.device]
        guard inRange != (was == .inRange) else { return [] }
        pens[frame.device] = inRange ? .inRange : .away(since: frame.timestamp)
        guard inRange else { return [] }
        var cancels: [DigitizerFrame] = []
        for f in guarded(by: frame.device) {
            guard var state = fingers[f], !state.delivered.isEmpty else { continue }
            var contacts = state.delivered
            for i in contacts.indices { contacts[i].isCancelled = true }
            for c in state.delivered { state.rejected.insert(c.id) }
            state.delivered = []
            fingers[f] = state
            cancels.append(DigitizerFrame(device: f, timestamp: frame.timestamp, contacts: contacts))
        }
        return cancels
    }

    /// Whether `device` is a finger device some pen guards.
    package func guards(_ device: Int) -> Bool {
        screens.values.contains { $0.contains(device) }
    }

    /// A finger device's frame, less its palms (PR3): rejected contacts stay dropped until they lift.
    package mutating func fingerFrame(_ frame: DigitizerFrame) -> DigitizerFrame {
        var state = fingers[frame.device] ?? FingerDevice()
        var out = frame
        out.contacts.removeAll(keepingCapacity: true)
        var delivered: [Contact] = []
        var stillRejected: Set<Int> = []
        for c in frame.contacts {
            if state.rejected.contains(c.id) {
                if !c.isCancelled { stillRejected.insert(c.id) }
                continue
            }
            let known = state.delivered.contains { $0.id == c.id }
            if !known && !c.isCancelled && rejects(frame.device, at: frame.timestamp) {
                stillRejected.insert(c.id)
                continue
            }
            out.contacts.append(c)
            if !c.isCancelled { delivered.append(c) }
        }
        state.delivered = delivered
        state.rejected = stillRejected
        assert(Set(delivered.map(\.id)).isDisjoint(with: stillRejected), "PR: a contact both delivered and rejected")
        fingers[frame.device] = state
        return out
    }
}
