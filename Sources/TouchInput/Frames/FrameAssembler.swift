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

    private let proto: DeviceDescription.TouchProtocol
    private let touchType: Touch.TouchType
    /// The axes looked up once: a frame must not pay for dictionary lookups per contact.
    private let mtPressure: AbsInfo?
    private let singlePressure: AbsInfo?
    private let hasTouchMajor: Bool
    private var nextContactID = 1
    private var reported: Set<String> = []

    /// Protocol B.
    private var slots = SlotTable(count: 0)
    private var currentSlot = 0
    /// The contacts of the frame being made. Reused from frame to frame: once the owner has dropped the
    /// last frame, its array is free again and no frame allocates.
    private var contactBuffer: [Contact] = []

    /// Protocol A: the contact being described, the frame's contacts, the last frame's.
    private struct AnonymousContact {
        var values = AxisValues()
        var contactID = 0
        var hasPosition: Bool { values[AbsCode.mtPositionX] != nil || values[AbsCode.mtPositionY] != nil }
    }
    private var pending = AnonymousContact()
    private var frameContacts: [AnonymousContact] = []
    private var previousContacts: [AnonymousContact] = []

    /// Single touch.
    private var single = KernelState(slotCount: 0)
    private var singleContactID: Int?
    /// A finger was down when the device was opened (`seed(from:)`): not a touch of ours, and not
    /// reported, until it lifts (as protocol B's slots that carry no contact).
    private var heldAtOpen = false

    /// SYN_DROPPED: events are discarded until the next SYN_REPORT.
    private var dropping = false
    /// After a drop, contacts missing from the next frame are cancelled (protocol A, single touch).
    private var cancelVanished = false
    private var cancelledSinceLastFrame: [Contact] = []

    public init(device: DeviceDescription, mapping: CoordinateMapping, deviceIndex: Int = 0) {
        self.device = device
        self.mapping = mapping
        plainMapping = CoordinateMapping.Plain(mapping)
        self.deviceIndex = deviceIndex
        proto = device.touchProtocol ?? .singleTouch
        switch device.kind {
        case .touchpad: touchType = .indirect
        case .tablet: touchType = .pencil
        case .touchscreen, .other: touchType = .direct
        }
        if case .slots(let n) = proto {
            slots = SlotTable(count: n)
            currentSlot = Int(device.absInfo[AbsCode.mtSlot]?.value ?? 0)
        }
        single = KernelState(device: device)
        mtPressure = device.hasAbs(AbsCode.mtPressure) ? device.absInfo[AbsCode.mtPressure] : nil
        singlePressure = device.hasAbs(AbsCode.pressure) ? device.absInfo[AbsCode.pressure] : nil
        hasTouchMajor = device.hasAbs(AbsCode.mtTouchMajor)
    }

    /// True while events are being discarded after SYN_DROPPED.
    public var isDropping: Bool { dropping }

    /// Takes the state the device is in when it is opened (libevdev reads it back then). Contacts
    /// already down are not touches of ours: they began before we looked, and stay unreported until
    /// they lift; but they count for `isNeutral`, so that pass-through does not grab the device from
    /// under them.
    public mutating func seed(from state: KernelState) {
        switch proto {
        case .slots:
            for i in 0..<min(slots.count, state.slots.count) { slots.load(i, axes: state.slots[i]) }
            if slots.contains(state.currentSlot) { currentSlot = state.currentSlot }
        case .anonymousContacts:
            heldAtOpen = state.keys.contains(KeyCode.touch)
        case .singleTouch:
            single = state
            heldAtOpen = singleIsDown
        }
    }

    /// No contact is down on the device, ours or not: the kernel's state is neutral (every slot's
    /// tracking id is −1, or BTN_TOUCH is up), as far as the events fed so far say.
    public var isNeutral: Bool {
        switch proto {
        case .slots:
            for i in 0..<slots.count where slots.trackingID(i) >= 0 { return false }
            return true
        case .anonymousContacts:
            return !heldAtOpen && previousContacts.isEmpty
        case .singleTouch:
            return !heldAtOpen && !singleIsDown
        }
    }

    /// Takes one event; returns a frame at SYN_REPORT. Only a SYN event's `time` is read (a frame's
    /// timestamp is its SYN_REPORT's).
    ///
    /// Inlined into the device's read loop: a frame is some twenty events, and under emulation (the
    /// lab) every call and return costs a jump-target lookup.
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
            }
            return nil
        }
        switch proto {
        case .slots: return feedSlots(e)
        case .anonymousContacts: return feedAnonymous(e)
        case .singleTouch: return feedSingle(e)
        }
    }

    /// Takes a run of events, as one read(2) returns them; `frame` gets each frame they complete.
    public mutating func feed(contentsOf events: UnsafeBufferPointer<InputEvent>, _ frame: (DigitizerFrame) -> Void) {
        for e in events {
            if let f = feed(e) { frame(f) }
        }
    }

    // MARK: Protocol B

    @inline(__always)
    private mutating func feedSlots(_ e: InputEvent) -> DigitizerFrame? {
        switch e.type {
        case EventType.abs:
            slotAxis(e)
            // ABS_X/ABS_Y and the like are the legacy single-touch emulation: not needed.
        case EventType.syn where e.code == SynCode.report:
            return slotFrame(time: e.time)
        default:
            break
        }
        return nil
    }

    /// ABS_MT_SLOT selects a slot; the slot axes update it.
    @inline(__always)
    private mutating func slotAxis(_ e: InputEvent) {
        if e.code == AbsCode.mtSlot {
            currentSlot = Int(e.value)
            if !slots.contains(currentSlot) {
                report("slot", "kernel bug: \(device.name): ABS_MT_SLOT \(e.value) is outside 0…\(slots.count - 1); its events are ignored")
            }
        } else if AbsCode.slotAxes.contains(e.code) {
            guard slots.contains(currentSlot) else { return }
            if e.code == AbsCode.mtTrackingID {
                let old = slots.trackingID(currentSlot)
                if e.value < 0 {
                    slots.contactIDs[currentSlot] = nil
                    slots.cancelled[currentSlot] = false
                } else if e.value != old {
                    // A new tracking id, with or without −1 before it: a new contact.
                    slots.contactIDs[currentSlot] = takeContactID()
                    slots.cancelled[currentSlot] = false
                }
            }
            slots.set(currentSlot, e.code, e.value)
        }
    }

    private mutating func slotFrame(time: Double) -> DigitizerFrame {
        var contacts = takeContactBuffer()
        for i in 0..<slots.count {
            guard slots.trackingID(i) >= 0, let id = slots.contactIDs[i] else { continue }
            let tool = slots.value(i, AbsCode.mtToolType)
            if tool == MTToolType.palm && !slots.cancelled[i] { slots.cancelled[i] = true }
            contacts.append(makeContact(id: id, x: slots.value(i, AbsCode.mtPositionX), y: slots.value(i, AbsCode.mtPositionY),
                                        pressure: mtPressure != nil ? slots.value(i, AbsCode.mtPressure) : nil,
                                        pressureAxis: AbsCode.mtPressure,
                                        major: hasTouchMajor ? slots.value(i, AbsCode.mtTouchMajor) : nil,
                                        tool: tool, cancelled: slots.cancelled[i], record: slots.record(i)))
        }
        cancelVanished = false
        contactBuffer = contacts
        return DigitizerFrame(device: deviceIndex, timestamp: time, contacts: contacts)
    }

    /// The reused contact array, emptied, with the contacts cancelled since the last frame in it.
    private mutating func takeContactBuffer() -> [Contact] {
        var contacts = contactBuffer
        contactBuffer = []
        contacts.removeAll(keepingCapacity: true)
        if !cancelledSinceLastFrame.isEmpty {
            contacts.append(contentsOf: cancelledSinceLastFrame)
            cancelledSinceLastFrame = []
        }
        return contacts
    }

    // MARK: Protocol A

    private mutating func feedAnonymous(_ e: InputEvent) -> DigitizerFrame? {
        switch e.type {
        case EventType.abs where AbsCode.slotAxes.contains(e.code):
            pending.values[e.code] = e.value
        case EventType.syn where e.code == SynCode.mtReport:
            if pending.hasPosition { frameContacts.append(pending) }
            pending = AnonymousContact()
        case EventType.syn where e.code == SynCode.report:
            if pending.hasPosition { frameContacts.append(pending) }
            pending = AnonymousContact()
            if frameContacts.isEmpty { heldAtOpen = false }
            return anonymousFrame(time: e.time)
        default:
            break
        }
        return nil
    }

    private mutating func anonymousFrame(time: Double) -> DigitizerFrame {
        var current = frameContacts
        frameContacts = []
        var unmatched = previousContacts
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
        let limit = 0.25 * (mapping.xAxis.span * mapping.xAxis.span + mapping.yAxis.span * mapping.yAxis.span).squareRoot()
        var pairs: [(Double, Int, Int)] = []
        for i in current.indices where !assigned[i] && current[i].values[AbsCode.mtTrackingID] == nil {
            for (j, old) in unmatched.enumerated() where old.values[AbsCode.mtTrackingID] == nil {
                let dx = Double(position(current[i], AbsCode.mtPositionX) - position(old, AbsCode.mtPositionX))
                let dy = Double(position(current[i], AbsCode.mtPositionY) - position(old, AbsCode.mtPositionY))
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
        for i in current.indices where !assigned[i] { current[i].contactID = takeContactID() }

        var contacts = cancelledSinceLastFrame
        cancelledSinceLastFrame = []
        if cancelVanished {
            for old in vanished { contacts.append(anonymousContact(old, cancelled: true)) }
        }
        for c in current { contacts.append(anonymousContact(c, cancelled: false)) }
        previousContacts = current
        cancelVanished = false
        return DigitizerFrame(device: deviceIndex, timestamp: time, contacts: contacts)
    }

    private func position(_ c: AnonymousContact, _ code: UInt16) -> Int32 {
        c.values[code] ?? 0
    }

    private mutating func anonymousContact(_ c: AnonymousContact, cancelled: Bool) -> Contact {
        let tool = c.values[AbsCode.mtToolType] ?? MTToolType.finger
        return makeContact(id: c.contactID, x: position(c, AbsCode.mtPositionX), y: position(c, AbsCode.mtPositionY),
                           pressure: c.values[AbsCode.mtPressure], pressureAxis: AbsCode.mtPressure,
                           major: c.values[AbsCode.mtTouchMajor], tool: tool,
                           cancelled: cancelled || tool == MTToolType.palm, record: c.values.record)
    }

    // MARK: Single touch

    private mutating func feedSingle(_ e: InputEvent) -> DigitizerFrame? {
        if e.type == EventType.syn && e.code == SynCode.report { return singleFrame(time: e.time) }
        single.apply(e)
        return nil
    }

    /// Down while BTN_TOUCH is (or, on a device without BTN_TOUCH, while a BTN_TOOL_* key is).
    private var singleIsDown: Bool {
        if device.hasKey(KeyCode.touch) { return single.keys.contains(KeyCode.touch) }
        return single.keys.contains(KeyCode.toolFinger) || single.keys.contains(KeyCode.toolPen)
    }

    private mutating func singleFrame(time: Double) -> DigitizerFrame {
        var contacts = cancelledSinceLastFrame
        cancelledSinceLastFrame = []
        if heldAtOpen {
            heldAtOpen = singleIsDown               // the finger that was down at open: not ours
        } else if singleIsDown {
            let id: Int
            if let existing = singleContactID { id = existing } else { id = takeContactID(); singleContactID = id }
            let pen = single.keys.contains(KeyCode.toolPen) || single.keys.contains(KeyCode.toolRubber)
            contacts.append(makeContact(id: id, x: single.abs[AbsCode.x] ?? 0, y: single.abs[AbsCode.y] ?? 0,
                                        pressure: singlePressure != nil ? single.abs[AbsCode.pressure] : nil,
                                        pressureAxis: AbsCode.pressure, major: nil,
                                        tool: pen ? MTToolType.pen : MTToolType.finger, cancelled: false,
                                        record: singleRecord(id: id)))
        } else if let id = singleContactID {
            if cancelVanished {
                contacts.append(makeContact(id: id, x: single.abs[AbsCode.x] ?? 0, y: single.abs[AbsCode.y] ?? 0,
                                            pressure: nil, pressureAxis: AbsCode.pressure, major: nil,
                                            tool: MTToolType.finger, cancelled: true))
            }
            singleContactID = nil
        }
        cancelVanished = false
        return DigitizerFrame(device: deviceIndex, timestamp: time, contacts: contacts)
    }

    /// A single-touch contact's record: its ABS_X, ABS_Y and ABS_PRESSURE as their ABS_MT_ counterparts.
    private func singleRecord(id: Int) -> DigitizerRecord {
        var r = DigitizerRecord()
        r[AbsCode.mtPositionX] = single.abs[AbsCode.x] ?? 0
        r[AbsCode.mtPositionY] = single.abs[AbsCode.y] ?? 0
        r[AbsCode.mtPressure] = single.abs[AbsCode.pressure] ?? 0
        return r
    }

    // MARK: Resync and removal

    /// After SYN_DROPPED: brings the assembler to the kernel's state (read back through libevdev for a
    /// live device, or a recording's shadow state) and returns the frame that says so. Contacts whose
    /// tracking id vanished or changed meanwhile are cancelled; new ones begin; the rest move.
    public mutating func resync(to state: KernelState, at time: Double) -> DigitizerFrame {
        dropping = false
        switch proto {
        case .slots:
            for i in 0..<slots.count where i < state.slots.count {
                let newID = state.trackingID(slot: i)
                let oldID = slots.trackingID(i)
                if oldID >= 0, newID != oldID, let id = slots.contactIDs[i] {
                    cancelledSinceLastFrame.append(cancelledContact(id: id, slot: i))
                    slots.contactIDs[i] = nil
                }
                if newID >= 0 && newID != oldID {
                    slots.contactIDs[i] = takeContactID()
                    slots.cancelled[i] = false
                }
                slots.load(i, axes: state.slots[i])
            }
            currentSlot = state.currentSlot
            return slotFrame(time: time)
        case .anonymousContacts:
            // Protocol A keeps no state: the next full frame is the truth; until then report the cancel
            // of nothing and let that frame cancel what vanished.
            cancelVanished = true
            return DigitizerFrame(device: deviceIndex, timestamp: time,
                                  contacts: previousContacts.map { anonymousContact($0, cancelled: false) })
        case .singleTouch:
            single = state
            cancelVanished = true
            return singleFrame(time: time)
        }
    }

    /// The device went away: every contact is cancelled (C7). Later events start afresh.
    public mutating func cancelAll(at time: Double) -> DigitizerFrame {
        var contacts: [Contact] = []
        for i in 0..<slots.count {
            if let id = slots.contactIDs[i], slots.trackingID(i) >= 0 {
                contacts.append(cancelledContact(id: id, slot: i))
            }
            slots.clear(i)
        }
        for c in previousContacts { contacts.append(anonymousContact(c, cancelled: true)) }
        previousContacts = []
        frameContacts = []
        pending = AnonymousContact()
        if let id = singleContactID {
            contacts.append(makeContact(id: id, x: single.abs[AbsCode.x] ?? 0, y: single.abs[AbsCode.y] ?? 0,
                                        pressure: nil, pressureAxis: AbsCode.pressure, major: nil,
                                        tool: MTToolType.finger, cancelled: true))
            singleContactID = nil
        }
        single.keys = []
        dropping = false
        return DigitizerFrame(device: deviceIndex, timestamp: time, contacts: contacts)
    }

    private mutating func cancelledContact(id: Int, slot: Int) -> Contact {
        makeContact(id: id, x: slots.value(slot, AbsCode.mtPositionX), y: slots.value(slot, AbsCode.mtPositionY), pressure: nil,
                    pressureAxis: AbsCode.mtPressure, major: nil, tool: MTToolType.finger, cancelled: true)
    }

    // MARK: Contacts

    private mutating func takeContactID() -> Int {
        defer { nextContactID += 1 }
        return nextContactID
    }

    /// A contact in window points. Positions outside the axis range are a kernel bug: clamped.
    /// Force: the middle of the pressure range is 1.0, an average touch (T8); maximumPossibleForce 2.0.
    private mutating func makeContact(id: Int, x: Int32, y: Int32, pressure: Int32?, pressureAxis: UInt16,
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

    @inline(__always)
    private mutating func clamp(_ v: Int32, _ axis: AbsInfo, _ name: StaticString) -> Int32 {
        guard axis.maximum > axis.minimum, v < axis.minimum || v > axis.maximum else { return v }
        return clampOutOfRange(v, axis, name)
    }

    private mutating func clampOutOfRange(_ v: Int32, _ axis: AbsInfo, _ name: StaticString) -> Int32 {
        report("range-\(name)", "kernel bug: \(device.name): \(name) position \(v) is outside \(axis.minimum)…\(axis.maximum); clamped")
        return min(max(v, axis.minimum), axis.maximum)
    }

    private mutating func report(_ key: String, _ message: String) {
        guard reported.insert(key).inserted else { return }
        onWarning?(message)
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
