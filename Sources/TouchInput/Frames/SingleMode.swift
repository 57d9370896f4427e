import TouchCore
import TouchSystem

// MARK: Single touch

/// Single-touch devices: ABS_X/ABS_Y while BTN_TOUCH is down.
struct SingleMode {
    /// The device's keys and axes as its events left them.
    var kernel: KernelState
    /// The contact while the finger is down.
    var contactID: Int?
    /// A finger was down when the device was opened: not ours until it lifts.
    var heldAtOpen = false

    /// Down while BTN_TOUCH is (or, on a device without BTN_TOUCH, while a BTN_TOOL_* key is).
    func isDown(_ device: DeviceDescription) -> Bool {
        if device.hasKey(KeyCode.touch) { return kernel.keys.contains(KeyCode.touch) }
        return kernel.keys.contains(KeyCode.toolFinger) || kernel.keys.contains(KeyCode.toolPen)
    }

    /// A frame: its events, then its SYN_REPORT at `time`.
    mutating func frame(_ events: [InputEvent], time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        for e in events { kernel.apply(e) }
        return frame(time: time, &a)
    }

    mutating func frame(time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        var contacts = a.cancelledSinceLastFrame
        a.cancelledSinceLastFrame = []
        let down = isDown(a.device)
        if heldAtOpen {
            heldAtOpen = down                       // the finger that was down at open: not ours
        } else if down {
            let id: Int
            if let existing = contactID { id = existing } else { id = a.takeContactID(); contactID = id }
            let pen = kernel.keys.contains(KeyCode.toolPen) || kernel.keys.contains(KeyCode.toolRubber)
            contacts.append(a.makeContact(id: id, x: kernel.abs[AbsCode.x] ?? 0, y: kernel.abs[AbsCode.y] ?? 0,
                                          pressure: a.reportsSinglePressure ? kernel.abs[AbsCode.pressure] : nil,
                                          pressureAxis: AbsCode.pressure, major: nil,
                                          tool: pen ? MTToolType.pen : MTToolType.finger, cancelled: false,
                                          record: kernel.singleContactRecord))
        } else if let id = contactID {
            if a.cancelVanished { contacts.append(cancelled(id: id, &a)) }
            contactID = nil
        }
        a.cancelVanished = false
        return DigitizerFrame(device: a.deviceIndex, timestamp: time, contacts: contacts)
    }


    private func cancelled(id: Int, _ a: inout FrameAssembler) -> Contact {
        a.makeContact(id: id, x: kernel.abs[AbsCode.x] ?? 0, y: kernel.abs[AbsCode.y] ?? 0,
                      pressure: nil, pressureAxis: AbsCode.pressure, major: nil,
                      tool: MTToolType.finger, cancelled: true)
    }

    mutating func cancelAll(_ a: inout FrameAssembler) -> [Contact] {
        var contacts: [Contact] = []
        if let id = contactID { contacts.append(cancelled(id: id, &a)) }
        contactID = nil
        kernel.keys = []
        return contacts
    }
}

extension KernelState {
    /// The record of a single-touch device's (or a pen's) one contact: its ABS_X, ABS_Y and ABS_PRESSURE
    /// as their ABS_MT_ counterparts.
    var singleContactRecord: DigitizerRecord {
        var r = DigitizerRecord()
        r[AbsCode.mtPositionX] = abs[AbsCode.x] ?? 0
        r[AbsCode.mtPositionY] = abs[AbsCode.y] ?? 0
        r[AbsCode.mtPressure] = abs[AbsCode.pressure] ?? 0
        return r
    }
}
