import TouchCore
import TouchSystem

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
        case pen(PenMode)
        /// Only while a mode's state is out of the enum to be changed in place (`withMode`).
        case moving
    }

    /// The events of the frame being made: the mode takes them all at its SYN_REPORT (its state is
    /// changed once a frame, not once an event). Emptied, not freed, from frame to frame.
    private var frameEvents: [InputEvent] = []
    /// SYN_DROPPED: events are discarded until the next SYN_REPORT.
    private var dropping = false
    /// After a drop, contacts missing from the next frame are cancelled (protocol A, single touch).
    var cancelVanished = false
    var cancelledSinceLastFrame: [Contact] = []

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
        switch device.kind == .tablet ? nil : device.touchProtocol ?? .singleTouch {
        case nil:
            mode = .pen(PenMode(device: device))
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
                                      single: (inout SingleMode, inout FrameAssembler) -> R,
                                      pen: (inout PenMode, inout FrameAssembler) -> R) -> R {
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
        case .pen(var m):
            mode = .moving
            defer { mode = .pen(m) }
            return pen(&m, &self)
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
                 single: { m, a in m.kernel = state; m.heldAtOpen = m.isDown(a.device) },
                 pen: { m, _ in m.seed(from: state) })
    }

    /// No contact is down on the device, ours or not: the kernel's state is neutral (every slot's
    /// tracking id is −1, or BTN_TOUCH is up), as far as the events fed so far say.
    public var isNeutral: Bool {
        switch mode {
        case .slots(let m): return m.isNeutral
        case .anonymous(let m): return !m.heldAtOpen && m.previous.isEmpty
        case .single(let m): return !m.heldAtOpen && !m.isDown(device)
        case .pen(let m): return m.isNeutral
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
                        single: { m, a in m.frame(events, time: e.time, &a) },
                        pen: { m, a in m.frame(events, time: e.time, &a) })
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
                        },
                        pen: { m, a in
                            m.kernel = state
                            m.updateTip()
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
                                single: { m, a in m.cancelAll(&a) },
                                pen: { m, a in m.cancelAll(&a) })
        return DigitizerFrame(device: deviceIndex, timestamp: time, contacts: contacts)
    }

    // MARK: Contacts

    mutating func takeContactID() -> Int {
        defer { nextContactID += 1 }
        return nextContactID
    }

    /// A contact in window points. Positions outside the axis range are a kernel bug: clamped.
    /// Force: the middle of the pressure range is 1.0, an average touch (T8); maximumPossibleForce 2.0.
    mutating func makeContact(id: Int, x: Int32, y: Int32, pressure: Int32?, pressureAxis: UInt16,
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

    /// A raw position in window points, clamped to the axis range as every contact's is.
    mutating func mapped(x: Int32, y: Int32) -> Point {
        plainMapping.map(x: clamp(x, mapping.xAxis, "x"), y: clamp(y, mapping.yAxis, "y"))
    }

    /// A raw displacement in window points (the mapping's linear part).
    func direction(dx: Double, dy: Double) -> Point {
        plainMapping.direction(dx: dx, dy: dy)
    }

    /// The device is a pen (PenMode): its frames carry hover and barrel buttons.
    public var isPen: Bool {
        if case .pen = mode { return true }
        return false
    }

    /// A protocol A contact as a frame's contact.
    mutating func anonymousContact(_ c: AnonymousContact, cancelled: Bool) -> Contact {
        let tool = c.values[AbsCode.mtToolType] ?? MTToolType.finger
        return makeContact(id: c.contactID, x: c.position(AbsCode.mtPositionX), y: c.position(AbsCode.mtPositionY),
                           pressure: c.values[AbsCode.mtPressure], pressureAxis: AbsCode.mtPressure,
                           major: c.values[AbsCode.mtTouchMajor], tool: tool,
                           cancelled: cancelled || tool == MTToolType.palm, record: c.values.record)
    }

    /// Whether this device's contacts carry a pressure (ABS_MT_PRESSURE, ABS_PRESSURE) or a touch major.
    var reportsMTPressure: Bool { mtPressure != nil }
    var reportsSinglePressure: Bool { singlePressure != nil }
    var reportsTouchMajor: Bool { hasTouchMajor }

    @inline(__always)
    private mutating func clamp(_ v: Int32, _ axis: AbsInfo, _ name: StaticString) -> Int32 {
        guard axis.maximum > axis.minimum, v < axis.minimum || v > axis.maximum else { return v }
        return clampOutOfRange(v, axis, name)
    }

    private mutating func clampOutOfRange(_ v: Int32, _ axis: AbsInfo, _ name: StaticString) -> Int32 {
        report("range-\(name)", "kernel bug: \(device.name): \(name) position \(v) is outside \(axis.minimum)…\(axis.maximum); clamped")
        return min(max(v, axis.minimum), axis.maximum)
    }

    mutating func report(_ key: String, _ message: String) {
        guard reported.insert(key).inserted else { return }
        onWarning?(message)
    }
}
