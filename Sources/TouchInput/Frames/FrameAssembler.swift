import TouchCore

/// Turns a device's kernel events into `DigitizerFrame`s, one per SYN_REPORT: the digitizer →
/// BackBoard step of the iOS path. Live devices and recordings feed the same assembler.
///
/// What it understands (Documentation/input/multi-touch-protocol.rst):
/// - Protocol B: slots selected by ABS_MT_SLOT (slot 0 until the first one, "implied slot 0"), a contact
///   per ABS_MT_TRACKING_ID ≥ 0, ended by −1. Values the kernel omits because they did not change are
///   kept from the slot's last state. A tracking id that changes without −1 in between ends one contact
///   and starts another.
/// - Protocol A: anonymous contacts separated by SYN_MT_REPORT, matched to the previous frame's by
///   tracking id when the device sends one, else by nearest position (as libmtdev does).
/// - Single-touch devices: ABS_X/ABS_Y while BTN_TOUCH is down.
/// - ABS_MT_PRESSURE (or ABS_PRESSURE) → force, ABS_MT_TOUCH_MAJOR → majorRadius, MT_TOOL_PALM → the
///   contact is cancelled (for good: it does not come back as a touch), MT_TOOL_PEN → type pencil.
/// - SYN_DROPPED: everything up to the next SYN_REPORT is discarded; then the owner resyncs to the
///   kernel's state (`resync(to:at:)`), and contacts that vanished meanwhile are *cancelled*, not ended,
///   so no touch is ever left down.
///
/// Kernel bugs (an out-of-range slot, a position outside the axis range) are cleaned here, once, and
/// reported once per device as "kernel bug: …".
public struct FrameAssembler {
    public let device: DeviceDescription
    public var mapping: CoordinateMapping {
        didSet { plainMapping = CoordinateMapping.Plain(mapping) }
    }
    /// `mapping` in the form applied to every contact.
    private var plainMapping: CoordinateMapping.Plain
    /// `DigitizerFrame.device` of the frames produced.
    public let deviceIndex: Int
    /// Called once per kind of problem with a sentence naming the device.
    public var onWarning: ((String) -> Void)?

    private let touchType: Touch.TouchType
    /// The axes looked up once: a frame must not pay for dictionary lookups per contact.
    private let mtPressure: AbsInfo?
    private let singlePressure: AbsInfo?
    private let hasTouchMajor: Bool
    private var nextContactID = 1
    private var reported: Set<String> = []

    /// The state of the device's protocol: only that protocol's state exists.
    private var mode: Mode
    private enum Mode {
        case slots(SlotMode)
        case anonymous(AnonymousMode)
        case single(SingleMode)
        /// Only while a mode's state is out of the enum to be changed in place (`withMode`).
        case moving
    }

    /// The events of the frame being made: the mode takes them all at its SYN_REPORT (its state is
    /// changed once a frame, not once an event). Emptied, not freed, from frame to frame.
    private var frameEvents: [InputEvent] = []
    /// SYN_DROPPED: events are discarded until the next SYN_REPORT.
    private var dropping = false
    /// After a drop, contacts missing from the next frame are cancelled (protocol A, single touch).
    fileprivate var cancelVanished = false
    fileprivate var cancelledSinceLastFrame: [Contact] = []

    public init(device: DeviceDescription, mapping: CoordinateMapping, deviceIndex: Int = 0) {
        self.device = device
        self.mapping = mapping
        plainMapping = CoordinateMapping.Plain(mapping)
        self.deviceIndex = deviceIndex
        switch device.kind {
        case .touchpad: touchType = .indirect
        case .tablet: touchType = .pencil
        case .touchscreen, .other: touchType = .direct
        }
        switch device.touchProtocol ?? .singleTouch {
        case .slots(let n):
            mode = .slots(SlotMode(slots: SlotTable(count: n), current: Int(device.absInfo[AbsCode.mtSlot]?.value ?? 0)))
        case .anonymousContacts:
            mode = .anonymous(AnonymousMode())
        case .singleTouch:
            mode = .single(SingleMode(kernel: KernelState(device: device)))
        }
        mtPressure = device.hasAbs(AbsCode.mtPressure) ? device.absInfo[AbsCode.mtPressure] : nil
        singlePressure = device.hasAbs(AbsCode.pressure) ? device.absInfo[AbsCode.pressure] : nil
        hasTouchMajor = device.hasAbs(AbsCode.mtTouchMajor)
    }

    /// Runs `slots`, `anonymous` or `single` on the mode's state, changed in place: the state is taken
    /// out of the enum first, so that nothing else holds its arrays while they change.
    private mutating func withMode<R>(slots: (inout SlotMode, inout FrameAssembler) -> R,
                                      anonymous: (inout AnonymousMode, inout FrameAssembler) -> R,
                                      single: (inout SingleMode, inout FrameAssembler) -> R) -> R {
        switch mode {
        case .slots(var m):
            mode = .moving
            defer { mode = .slots(m) }
            return slots(&m, &self)
        case .anonymous(var m):
            mode = .moving
            defer { mode = .anonymous(m) }
            return anonymous(&m, &self)
        case .single(var m):
            mode = .moving
            defer { mode = .single(m) }
            return single(&m, &self)
        case .moving:
            preconditionFailure("FrameAssembler: a mode's state was used while it was being changed")
        }
    }

    /// True while events are being discarded after SYN_DROPPED.
    public var isDropping: Bool { dropping }

    /// Takes the state the device is in when it is opened (libevdev reads it back then). Contacts
    /// already down are not touches of ours: they began before we looked, and stay unreported until
    /// they lift; but they count for `isNeutral`, so that pass-through does not grab the device from
    /// under them.
    public mutating func seed(from state: KernelState) {
        withMode(slots: { m, _ in m.seed(from: state) },
                 anonymous: { m, _ in m.heldAtOpen = state.keys.contains(KeyCode.touch) },
                 single: { m, a in m.kernel = state; m.heldAtOpen = m.isDown(a.device) })
    }

    /// No contact is down on the device, ours or not: the kernel's state is neutral (every slot's
    /// tracking id is −1, or BTN_TOUCH is up), as far as the events fed so far say.
    public var isNeutral: Bool {
        switch mode {
        case .slots(let m): return m.isNeutral
        case .anonymous(let m): return !m.heldAtOpen && m.previous.isEmpty
        case .single(let m): return !m.heldAtOpen && !m.isDown(device)
        case .moving: return false
        }
    }

    /// Takes one event; returns a frame at SYN_REPORT. Only a SYN event's `time` is read (a frame's
    /// timestamp is its SYN_REPORT's).
    @inline(__always)
    public mutating func feed(_ e: InputEvent) -> DigitizerFrame? {
        if e.type == EventType.syn && e.code == SynCode.dropped {
            dropping = true
            return nil
        }
        if dropping {
            if e.type == EventType.syn && e.code == SynCode.report {
                dropping = false
                cancelVanished = true
                frameEvents.removeAll(keepingCapacity: true)
            }
            return nil
        }
        guard e.type == EventType.syn && e.code == SynCode.report else {
            frameEvents.append(e)
            return nil
        }
        var events: [InputEvent] = []
        swap(&events, &frameEvents)
        defer {
            events.removeAll(keepingCapacity: true)
            frameEvents = events
        }
        return withMode(slots: { m, a in m.frame(events, time: e.time, &a) },
                        anonymous: { m, a in m.frame(events, time: e.time, &a) },
                        single: { m, a in m.frame(events, time: e.time, &a) })
    }

    /// Takes a run of events, as one read(2) returns them; `frame` gets each frame they complete.
    public mutating func feed(contentsOf events: UnsafeBufferPointer<InputEvent>, _ frame: (DigitizerFrame) -> Void) {
        for e in events {
            if let f = feed(e) { frame(f) }
        }
    }

    // MARK: Resync and removal

    /// After SYN_DROPPED: brings the assembler to the kernel's state (read back through libevdev for a
    /// live device, or a recording's shadow state) and returns the frame that says so. Contacts whose
    /// tracking id vanished or changed meanwhile are cancelled; new ones begin; the rest move.
    public mutating func resync(to state: KernelState, at time: Double) -> DigitizerFrame {
        dropping = false
        frameEvents.removeAll(keepingCapacity: true)
        return withMode(slots: { m, a in m.resync(to: state, at: time, &a) },
                        anonymous: { m, a in
                            // Protocol A keeps no state: the next full frame is the truth; until then
                            // report the cancel of nothing and let that frame cancel what vanished.
                            a.cancelVanished = true
                            return DigitizerFrame(device: a.deviceIndex, timestamp: time,
                                                  contacts: m.previous.map { a.anonymousContact($0, cancelled: false) })
                        },
                        single: { m, a in
                            m.kernel = state
                            a.cancelVanished = true
                            return m.frame(time: time, &a)
                        })
    }

    /// The device went away: every contact is cancelled (C7). Later events start afresh.
    public mutating func cancelAll(at time: Double) -> DigitizerFrame {
        dropping = false
        frameEvents.removeAll(keepingCapacity: true)
        let contacts = withMode(slots: { m, a in m.cancelAll(&a) },
                                anonymous: { m, a in m.cancelAll(&a) },
                                single: { m, a in m.cancelAll(&a) })
        return DigitizerFrame(device: deviceIndex, timestamp: time, contacts: contacts)
    }

    // MARK: Contacts

    fileprivate mutating func takeContactID() -> Int {
        defer { nextContactID += 1 }
        return nextContactID
    }

    /// A contact in window points. Positions outside the axis range are a kernel bug: clamped.
    /// Force: the middle of the pressure range is 1.0, an average touch (T8); maximumPossibleForce 2.0.
    fileprivate mutating func makeContact(id: Int, x: Int32, y: Int32, pressure: Int32?, pressureAxis: UInt16,
                                          major: Int32?, tool: Int32, cancelled: Bool,
                                          record: DigitizerRecord = DigitizerRecord()) -> Contact {
        let cx = clamp(x, mapping.xAxis, "x"), cy = clamp(y, mapping.yAxis, "y")
        var contact = Contact(id: id, location: plainMapping.map(x: cx, y: cy),
                              type: tool == MTToolType.pen ? .pencil : touchType, isCancelled: cancelled,
                              record: record)
        if let pressure, let info = pressureAxis == AbsCode.mtPressure ? mtPressure : singlePressure,
           info.maximum > info.minimum {
            let normalized = Double(pressure - info.minimum) / Double(info.maximum - info.minimum)
            contact.force = max(0, min(1, normalized)) * 2
            contact.maximumPossibleForce = 2
        }
        if let major {
            contact.majorRadius = Double(max(0, major)) / 2 * mapping.pointsPerUnit
            contact.majorRadiusTolerance = mapping.pointsPerUnit / 2
        }
        return contact
    }

    /// A protocol A contact as a frame's contact.
    fileprivate mutating func anonymousContact(_ c: AnonymousContact, cancelled: Bool) -> Contact {
        let tool = c.values[AbsCode.mtToolType] ?? MTToolType.finger
        return makeContact(id: c.contactID, x: c.position(AbsCode.mtPositionX), y: c.position(AbsCode.mtPositionY),
                           pressure: c.values[AbsCode.mtPressure], pressureAxis: AbsCode.mtPressure,
                           major: c.values[AbsCode.mtTouchMajor], tool: tool,
                           cancelled: cancelled || tool == MTToolType.palm, record: c.values.record)
    }

    /// Whether this device's contacts carry a pressure (ABS_MT_PRESSURE, ABS_PRESSURE) or a touch major.
    fileprivate var reportsMTPressure: Bool { mtPressure != nil }
    fileprivate var reportsSinglePressure: Bool { singlePressure != nil }
    fileprivate var reportsTouchMajor: Bool { hasTouchMajor }

    @inline(__always)
    private mutating func clamp(_ v: Int32, _ axis: AbsInfo, _ name: StaticString) -> Int32 {
        guard axis.maximum > axis.minimum, v < axis.minimum || v > axis.maximum else { return v }
        return clampOutOfRange(v, axis, name)
    }

    private mutating func clampOutOfRange(_ v: Int32, _ axis: AbsInfo, _ name: StaticString) -> Int32 {
        report("range-\(name)", "kernel bug: \(device.name): \(name) position \(v) is outside \(axis.minimum)…\(axis.maximum); clamped")
        return min(max(v, axis.minimum), axis.maximum)
    }

    fileprivate mutating func report(_ key: String, _ message: String) {
        guard reported.insert(key).inserted else { return }
        onWarning?(message)
    }
}

// MARK: Protocol B

/// Protocol B: slots selected by ABS_MT_SLOT, a contact per tracking id.
private struct SlotMode {
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

// MARK: Protocol A

/// Protocol A's contact being described.
private struct AnonymousContact {
    var values = AxisValues()
    var contactID = 0
    var hasPosition: Bool { values[AbsCode.mtPositionX] != nil || values[AbsCode.mtPositionY] != nil }
    func position(_ code: UInt16) -> Int32 { values[code] ?? 0 }
}

/// Protocol A: anonymous contacts separated by SYN_MT_REPORT, matched to the previous frame's by
/// tracking id when the device sends one, else by nearest position (as libmtdev does).
private struct AnonymousMode {
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

// MARK: Single touch

/// Single-touch devices: ABS_X/ABS_Y while BTN_TOUCH is down.
private struct SingleMode {
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
                                          record: record))
        } else if let id = contactID {
            if a.cancelVanished { contacts.append(cancelled(id: id, &a)) }
            contactID = nil
        }
        a.cancelVanished = false
        return DigitizerFrame(device: a.deviceIndex, timestamp: time, contacts: contacts)
    }

    /// The contact's record: its ABS_X, ABS_Y and ABS_PRESSURE as their ABS_MT_ counterparts.
    private var record: DigitizerRecord {
        var r = DigitizerRecord()
        r[AbsCode.mtPositionX] = kernel.abs[AbsCode.x] ?? 0
        r[AbsCode.mtPositionY] = kernel.abs[AbsCode.y] ?? 0
        r[AbsCode.mtPressure] = kernel.abs[AbsCode.pressure] ?? 0
        return r
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

/// Protocol B's slots as the assembler keeps them: every slot's axes in one flat array (the
/// `KernelState.slotIndex` order), and per slot the contact it carries. One array for all slots, so
/// that an event updates one element in place instead of an array inside an array.
private struct SlotTable {
    private static let axisCount = KernelState.slotAxisCount
    private static let trackingIndex = KernelState.slotIndex(AbsCode.mtTrackingID)

    let count: Int
    private var axes: [Int32]
    /// The contact of each slot; nil while the slot is empty.
    var contactIDs: [Int?]
    /// A palm, or a contact cancelled by a resync: reported as cancelled until its tracking id ends.
    var cancelled: [Bool]

    init(count: Int) {
        self.count = max(0, count)
        axes = [Int32](repeating: 0, count: self.count * SlotTable.axisCount)
        contactIDs = [Int?](repeating: nil, count: self.count)
        cancelled = [Bool](repeating: false, count: self.count)
        for i in 0..<self.count { axes[i * SlotTable.axisCount + SlotTable.trackingIndex] = -1 }
    }

    func contains(_ slot: Int) -> Bool { slot >= 0 && slot < count }

    func value(_ slot: Int, _ code: UInt16) -> Int32 {
        axes[slot * SlotTable.axisCount + KernelState.slotIndex(code)]
    }

    func trackingID(_ slot: Int) -> Int32 { axes[slot * SlotTable.axisCount + SlotTable.trackingIndex] }

    mutating func set(_ slot: Int, _ code: UInt16, _ value: Int32) {
        axes[slot * SlotTable.axisCount + KernelState.slotIndex(code)] = value
    }

    /// The slot's axes as a contact's record (lane `code − ABS_MT_TOUCH_MAJOR`, as `axes` is laid out).
    func record(_ slot: Int) -> DigitizerRecord {
        var lanes = SIMD16<Int32>()
        let base = slot * SlotTable.axisCount
        for i in 0..<SlotTable.axisCount { lanes[i] = axes[base + i] }
        return DigitizerRecord(lanes: lanes)
    }

    /// The slot's axes as the kernel reports them (a resync).
    mutating func load(_ slot: Int, axes values: [Int32]) {
        for (i, v) in values.prefix(SlotTable.axisCount).enumerated() { axes[slot * SlotTable.axisCount + i] = v }
    }

    /// Empty: no contact, tracking id −1.
    mutating func clear(_ slot: Int) {
        for i in 0..<SlotTable.axisCount { axes[slot * SlotTable.axisCount + i] = 0 }
        axes[slot * SlotTable.axisCount + SlotTable.trackingIndex] = -1
        contactIDs[slot] = nil
        cancelled[slot] = false
    }
}

/// Protocol A's axis values of one contact: the slot axes (ABS_MT_TOUCH_MAJOR … ABS_MT_TOOL_Y), each
/// present or not. Fixed storage, not a dictionary: a frame describes every contact afresh.
private struct AxisValues {
    private var values = SIMD16<Int32>()
    private var present: UInt16 = 0

    /// The values as a contact's record (absent axes read 0).
    var record: DigitizerRecord {
        var lanes = SIMD16<Int32>()
        for i in 0..<16 where present & (1 << UInt16(i)) != 0 { lanes[i] = values[i] }
        return DigitizerRecord(lanes: lanes)
    }

    subscript(_ code: UInt16) -> Int32? {
        get {
            let i = Int(code) - Int(AbsCode.slotAxes.lowerBound)
            guard i >= 0 && i < 16, present & (1 << UInt16(i)) != 0 else { return nil }
            return values[i]
        }
        set {
            let i = Int(code) - Int(AbsCode.slotAxes.lowerBound)
            guard i >= 0 && i < 16 else { return }
            if let v = newValue {
                values[i] = v
                present |= 1 << UInt16(i)
            } else {
                present &= ~(1 << UInt16(i))
            }
        }
    }
}
