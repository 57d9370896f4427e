import TouchCore
import TouchSystem

// MARK: Protocol A

/// Protocol A's contact being described.
struct AnonymousContact {
    var values = AxisValues()
    var contactID = 0
    var hasPosition: Bool { values[AbsCode.mtPositionX] != nil || values[AbsCode.mtPositionY] != nil }
    func position(_ code: UInt16) -> Int32 { values[code] ?? 0 }
}

/// Protocol A: anonymous contacts separated by SYN_MT_REPORT, matched to the previous frame's by
/// tracking id when the device sends one, else by nearest position (as libmtdev does).
struct AnonymousMode {
    /// The contact being described, the frame's contacts, the last frame's.
    var pending = AnonymousContact()
    var frameContacts: [AnonymousContact] = []
    var previous: [AnonymousContact] = []
    /// A finger was down when the device was opened (`seed(from:)`): not a touch of ours, and not
    /// reported, until it lifts (as protocol B's slots that carry no contact).
    var heldAtOpen = false

    /// A frame: its events (contacts separated by SYN_MT_REPORT), then its SYN_REPORT at `time`.
    mutating func frame(_ events: [InputEvent], time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        for e in events {
            switch e.type {
            case EventType.abs where AbsCode.slotAxes.contains(e.code):
                pending.values[e.code] = e.value
            case EventType.syn where e.code == SynCode.mtReport:
                if pending.hasPosition { frameContacts.append(pending) }
                pending = AnonymousContact()
            default:
                break
            }
        }
        if pending.hasPosition { frameContacts.append(pending) }
        pending = AnonymousContact()
        if frameContacts.isEmpty { heldAtOpen = false }
        return frame(time: time, &a)
    }

    private mutating func frame(time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        var current = frameContacts
        frameContacts = []
        var unmatched = previous
        var assigned = [Bool](repeating: false, count: current.count)
        // By tracking id when the device sends one.
        for i in current.indices {
            guard let tid = current[i].values[AbsCode.mtTrackingID],
                  let j = unmatched.firstIndex(where: { $0.values[AbsCode.mtTrackingID] == tid }) else { continue }
            current[i].contactID = unmatched[j].contactID
            assigned[i] = true
            unmatched.remove(at: j)
        }
        // Else by nearest position, closest pairs first; a jump beyond a quarter of the panel is a new finger.
        let limit = 0.25 * (a.mapping.xAxis.span * a.mapping.xAxis.span + a.mapping.yAxis.span * a.mapping.yAxis.span).squareRoot()
        var pairs: [(Double, Int, Int)] = []
        for i in current.indices where !assigned[i] && current[i].values[AbsCode.mtTrackingID] == nil {
            for (j, old) in unmatched.enumerated() where old.values[AbsCode.mtTrackingID] == nil {
                let dx = Double(current[i].position(AbsCode.mtPositionX) - old.position(AbsCode.mtPositionX))
                let dy = Double(current[i].position(AbsCode.mtPositionY) - old.position(AbsCode.mtPositionY))
                let d = (dx * dx + dy * dy).squareRoot()
                if d <= limit { pairs.append((d, i, j)) }
            }
        }
        pairs.sort { $0.0 < $1.0 }
        var usedOld = Set<Int>()
        for (_, i, j) in pairs where !assigned[i] && !usedOld.contains(j) {
            current[i].contactID = unmatched[j].contactID
            assigned[i] = true
            usedOld.insert(j)
        }
        let vanished = unmatched.enumerated().filter { !usedOld.contains($0.offset) }.map(\.element)
        for i in current.indices where !assigned[i] { current[i].contactID = a.takeContactID() }

        var contacts = a.cancelledSinceLastFrame
        a.cancelledSinceLastFrame = []
        if a.cancelVanished {
            for old in vanished { contacts.append(a.anonymousContact(old, cancelled: true)) }
        }
        for c in current { contacts.append(a.anonymousContact(c, cancelled: false)) }
        previous = current
        a.cancelVanished = false
        return DigitizerFrame(device: a.deviceIndex, timestamp: time, contacts: contacts)
    }

    mutating func cancelAll(_ a: inout FrameAssembler) -> [Contact] {
        let contacts = previous.map { a.anonymousContact($0, cancelled: true) }
        previous = []
        frameContacts = []
        pending = AnonymousContact()
        return contacts
    }
}
