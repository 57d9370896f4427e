import TouchCore
import TouchSystem

// MARK: Protocol B

/// Protocol B: slots selected by ABS_MT_SLOT, a contact per tracking id.
struct SlotMode {
    var slots: SlotTable
    /// The slot ABS_MT_SLOT selected last (slot 0 until the first one: "implied slot 0").
    var current: Int
    /// The contacts of the frame being made. Reused from frame to frame: once the owner has dropped the
    /// last frame, its array is free again and no frame allocates.
    var contactBuffer: [Contact] = []
    /// Contacts whose tracking id went to −1 in the frame being made: (slot, contact id). A slot whose
    /// tool type is MT_TOOL_PALM at the frame's end lifted as a palm, and is cancelled rather than
    /// ended, as libinput does (evdev-fallback.c handles a slot's palm state before its end state).
    var endedInFrame: [(slot: Int, id: Int)] = []

    var isNeutral: Bool {
        for i in 0..<slots.count where slots.trackingID(i) >= 0 { return false }
        return true
    }

    mutating func seed(from state: KernelState) {
        for i in 0..<min(slots.count, state.slots.count) { slots.load(i, axes: state.slots[i]) }
        if slots.contains(state.currentSlot) { current = state.currentSlot }
    }

    /// A frame: its events, then its SYN_REPORT at `time`. ABS_X/ABS_Y and the like are the legacy
    /// single-touch emulation: not needed.
    mutating func frame(_ events: [InputEvent], time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        for e in events where e.type == EventType.abs { axis(e, &a) }
        return frame(time: time, &a)
    }

    /// ABS_MT_SLOT selects a slot; the slot axes update it.
    @inline(__always)
    private mutating func axis(_ e: InputEvent, _ a: inout FrameAssembler) {
        if e.code == AbsCode.mtSlot {
            current = Int(e.value)
            if !slots.contains(current) {
                a.report("slot", "kernel bug: \(a.device.name): ABS_MT_SLOT \(e.value) is outside 0…\(slots.count - 1); its events are ignored")
            }
        } else if AbsCode.slotAxes.contains(e.code) {
            guard slots.contains(current) else { return }
            if e.code == AbsCode.mtTrackingID {
                let old = slots.trackingID(current)
                if e.value < 0 {
                    if let id = slots.contactIDs[current], !slots.cancelled[current] {
                        endedInFrame.append((current, id))
                    }
                    slots.contactIDs[current] = nil
                    slots.cancelled[current] = false
                } else if e.value != old {
                    // A new tracking id, with or without −1 before it: a new contact.
                    slots.contactIDs[current] = a.takeContactID()
                    slots.cancelled[current] = false
                }
            }
            slots.set(current, e.code, e.value)
        }
    }

    mutating func frame(time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        var contacts = contactBuffer
        contactBuffer = []
        contacts.removeAll(keepingCapacity: true)
        if !a.cancelledSinceLastFrame.isEmpty {
            contacts.append(contentsOf: a.cancelledSinceLastFrame)
            a.cancelledSinceLastFrame = []
        }
        let pressure = a.reportsMTPressure, major = a.reportsTouchMajor
        if !endedInFrame.isEmpty {
            for (slot, id) in endedInFrame
            where slots.trackingID(slot) < 0 && slots.value(slot, AbsCode.mtToolType) == MTToolType.palm {
                contacts.append(cancelledContact(id: id, slot: slot, &a))
            }
            endedInFrame.removeAll(keepingCapacity: true)
        }
        for i in 0..<slots.count {
            guard slots.trackingID(i) >= 0, let id = slots.contactIDs[i] else { continue }
            let tool = slots.value(i, AbsCode.mtToolType)
            if tool == MTToolType.palm && !slots.cancelled[i] { slots.cancelled[i] = true }
            contacts.append(a.makeContact(id: id, x: slots.value(i, AbsCode.mtPositionX), y: slots.value(i, AbsCode.mtPositionY),
                                          pressure: pressure ? slots.value(i, AbsCode.mtPressure) : nil,
                                          pressureAxis: AbsCode.mtPressure,
                                          major: major ? slots.value(i, AbsCode.mtTouchMajor) : nil,
                                          tool: tool, cancelled: slots.cancelled[i], record: slots.record(i)))
        }
        a.cancelVanished = false
        contactBuffer = contacts
        return DigitizerFrame(device: a.deviceIndex, timestamp: time, contacts: contacts)
    }

    mutating func resync(to state: KernelState, at time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        for i in 0..<slots.count where i < state.slots.count {
            let newID = state.trackingID(slot: i)
            let oldID = slots.trackingID(i)
            if oldID >= 0, newID != oldID, let id = slots.contactIDs[i] {
                a.cancelledSinceLastFrame.append(cancelledContact(id: id, slot: i, &a))
                slots.contactIDs[i] = nil
            }
            if newID >= 0 && newID != oldID {
                slots.contactIDs[i] = a.takeContactID()
                slots.cancelled[i] = false
            }
            slots.load(i, axes: state.slots[i])
        }
        current = state.currentSlot
        return frame(time: time, &a)
    }

    mutating func cancelAll(_ a: inout FrameAssembler) -> [Contact] {
        var contacts: [Contact] = []
        for i in 0..<slots.count {
            if let id = slots.contactIDs[i], slots.trackingID(i) >= 0 {
                contacts.append(cancelledContact(id: id, slot: i, &a))
            }
            slots.clear(i)
        }
        return contacts
    }

    private func cancelledContact(id: Int, slot: Int, _ a: inout FrameAssembler) -> Contact {
        a.makeContact(id: id, x: slots.value(slot, AbsCode.mtPositionX), y: slots.value(slot, AbsCode.mtPositionY), pressure: nil,
                      pressureAxis: AbsCode.mtPressure, major: nil, tool: MTToolType.finger, cancelled: true)
    }
}
