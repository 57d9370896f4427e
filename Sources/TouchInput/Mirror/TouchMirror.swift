import TouchCore

/// What a pass-through mirror is sent, as kernel events (multitouch protocol B): touches begin, move,
/// end and are cancelled one by one, and come out as whole frames, each ended by SYN_REPORT.
///
/// The mirror's slots are its own: a touch that begins takes the lowest free slot and a new tracking
/// id; the kernel's per-slot state is kept (`written`), so that only what changed is written and a
/// slot nobody uses is never touched. Frames are cut where a consumer needs them apart:
/// - a touch that begins and then moves, ends or is cancelled before the frame is taken gets a frame
///   of its own first (a late touchesBegan shows at its first location, then catches up);
/// - a slot freed in a frame is not reused in the same frame (libinput would see a new tracking id
///   replace the old one and lose the end).
/// A cancelled touch becomes a palm before it lifts (ABS_MT_TOOL_TYPE = MT_TOOL_PALM, then tracking id
/// −1, in one frame): libinput reports TOUCH_CANCEL and no TOUCH_UP. A slot that last carried a palm
/// is set back to MT_TOOL_FINGER *before* its next tracking id, which is when libinput looks at it.
///
/// The legacy pointer emulation (BTN_TOUCH, BTN_TOOL_FINGER, ABS_X/ABS_Y/ABS_PRESSURE where the
/// mirror has them) follows the oldest mirrored touch, as the kernel's
/// `input_mt_report_pointer_emulation` does, and is written at the end of each frame.
public struct TouchMirror {
    /// The mirror's description (`MirrorDescription.of(source)`).
    public let description: DeviceDescription

    private struct Slot {
        /// The source contact it carries (`Contact.id`); nil while free.
        var contact: Int?
        /// The slot's state as the kernel holds it: tracking id, tool type, axes.
        var written = DigitizerRecord()
        /// When its touch began, for the pointer emulation (oldest first).
        var order = 0
        /// The frame (`frameNumber`) in which a touch last began or ended in it.
        var beganIn = -1
        var endedIn = -1
    }

    private var slots: [Slot]
    /// The slot ABS_MT_SLOT points at, as the kernel holds it.
    private var kernelSlot = 0
    /// Closed frames, then the frame being made (from `frameStart`).
    private var events: [InputEvent] = []
    private var frameStart = 0
    private var frameNumber = 0
    private var beganCount = 0
    private var nextTrackingID: Int32
    private let trackingRange: ClosedRange<Int32>
    /// The per-contact axes copied from the source: the mirror's ABS_MT_* axes but the slot, the
    /// tracking id and the tool type, which the mirror decides itself.
    private let copiedAxes: [UInt16]
    private let sourceHasToolType: Bool
    private let emulated: (x: Bool, y: Bool, pressure: Bool, toolFinger: Bool)
    /// The pointer emulation as the kernel holds it.
    private var pointer = (touch: false, x: Int32(0), y: Int32(0), pressure: Int32(0))
    /// The time the events being made are stamped with (`time(_:)`).
    private var now = 0.0

    public init(source: DeviceDescription) {
        let m = MirrorDescription.of(source)
        description = m
        let count = Int(m.absInfo[AbsCode.mtSlot]!.maximum) + 1
        var empty = Slot()
        empty.written[AbsCode.mtTrackingID] = -1
        slots = Array(repeating: empty, count: count)
        let tracking = m.absInfo[AbsCode.mtTrackingID]!
        trackingRange = max(0, tracking.minimum)...max(0, tracking.maximum)
        nextTrackingID = trackingRange.lowerBound
        copiedAxes = AbsCode.slotAxes.filter {
            m.hasAbs($0) && $0 != AbsCode.mtTrackingID && $0 != AbsCode.mtToolType
        }
        sourceHasToolType = source.hasAbs(AbsCode.mtToolType)
        emulated = (m.hasAbs(AbsCode.x), m.hasAbs(AbsCode.y), m.hasAbs(AbsCode.pressure), m.hasKey(KeyCode.toolFinger))
    }

    /// The number of slots (how many touches can be mirrored at once).
    public var slotCount: Int { slots.count }

    /// No touch is down on the mirror.
    public var isNeutral: Bool { !slots.contains { $0.contact != nil } }

    /// Whether `contact`'s touch is on the mirror.
    public func carries(contact: Int) -> Bool { slot(of: contact) != nil }

    /// The time stamped on the events made from now on (a recording of the mirror shows it; the
    /// kernel stamps a uinput device's events itself).
    public mutating func time(_ t: Double) { now = t }

    // MARK: Touches

    /// A touch begins at `values`: it takes a free slot and a new tracking id. Returns false when every
    /// slot is taken (the touch is not mirrored).
    @discardableResult
    public mutating func begin(contact: Int, values: DigitizerRecord) -> Bool {
        guard slot(of: contact) == nil else { return true }
        guard var s = freeSlot(reusable: true) ?? freeSlot(reusable: false) else { return false }
        if slots[s].endedIn == frameNumber {
            closeFrame()                                // every free slot was freed in this frame
            s = freeSlot(reusable: true)!
        }
        select(s)
        let tool = sourceHasToolType ? values[AbsCode.mtToolType] : MTToolType.finger
        write(s, AbsCode.mtToolType, tool == MTToolType.palm ? MTToolType.finger : tool)
        let id = nextTrackingID
        nextTrackingID = id >= trackingRange.upperBound ? trackingRange.lowerBound : id + 1
        write(s, AbsCode.mtTrackingID, id)
        for code in copiedAxes { write(s, code, values[code]) }
        slots[s].contact = contact
        slots[s].order = beganCount
        beganCount += 1
        slots[s].beganIn = frameNumber
        return true
    }

    /// The touch moved (or its pressure or size changed): the axes that differ are written.
    public mutating func move(contact: Int, values: DigitizerRecord) {
        guard let s = slot(of: contact) else { return }
        if slots[s].beganIn == frameNumber { closeFrame() }
        for code in copiedAxes where slots[s].written[code] != values[code] {
            select(s)
            write(s, code, values[code])
        }
    }

    /// The touch lifted: tracking id −1.
    public mutating func end(contact: Int) {
        guard let s = slot(of: contact) else { return }
        if slots[s].beganIn == frameNumber { closeFrame() }
        select(s)
        write(s, AbsCode.mtTrackingID, -1)
        release(s)
    }

    /// The touch was cancelled: a palm, then tracking id −1 (libinput: TOUCH_CANCEL, no TOUCH_UP).
    public mutating func cancel(contact: Int) {
        guard let s = slot(of: contact) else { return }
        if slots[s].beganIn == frameNumber { closeFrame() }
        select(s)
        write(s, AbsCode.mtToolType, MTToolType.palm)
        write(s, AbsCode.mtTrackingID, -1)
        release(s)
    }

    /// Cancels every touch on the mirror (the daemon stops, the source went away).
    public mutating func cancelAll() {
        for s in slots.indices { if let c = slots[s].contact { cancel(contact: c) } }
    }

    // MARK: Frames

    /// Whether there is anything to take.
    public var hasEvents: Bool { !events.isEmpty }

    /// Ends the frame being made and hands every frame made since the last call to `body` (one write,
    /// each frame ending with SYN_REPORT); nothing when nothing changed on the mirror.
    public mutating func flush(_ body: (UnsafeBufferPointer<InputEvent>) -> Void) {
        closeFrame()
        guard !events.isEmpty else { return }
        events.withUnsafeBufferPointer(body)
        events.removeAll(keepingCapacity: true)
        frameStart = 0
    }

    /// Ends the frame being made, if anything changed in it: the pointer emulation, then SYN_REPORT.
    private mutating func closeFrame() {
        guard events.count > frameStart else { return }
        var oldest: Int?
        for s in slots.indices where slots[s].contact != nil {
            if oldest.map({ slots[s].order < slots[$0].order }) ?? true { oldest = s }
        }
        let touching = oldest != nil
        if touching != pointer.touch {
            pointer.touch = touching
            append(EventType.key, KeyCode.touch, touching ? 1 : 0)
            if emulated.toolFinger { append(EventType.key, KeyCode.toolFinger, touching ? 1 : 0) }
        }
        if let o = oldest {
            let w = slots[o].written
            if emulated.x && w[AbsCode.mtPositionX] != pointer.x {
                pointer.x = w[AbsCode.mtPositionX]
                append(EventType.abs, AbsCode.x, pointer.x)
            }
            if emulated.y && w[AbsCode.mtPositionY] != pointer.y {
                pointer.y = w[AbsCode.mtPositionY]
                append(EventType.abs, AbsCode.y, pointer.y)
            }
            if emulated.pressure && w[AbsCode.mtPressure] != pointer.pressure {
                pointer.pressure = w[AbsCode.mtPressure]
                append(EventType.abs, AbsCode.pressure, pointer.pressure)
            }
        }
        append(EventType.syn, SynCode.report, 0)
        frameStart = events.count
        frameNumber += 1
    }

    // MARK: Slots

    private func slot(of contact: Int) -> Int? {
        for s in slots.indices where slots[s].contact == contact { return s }
        return nil
    }

    /// The lowest free slot; with `reusable`, only one not freed in the frame being made.
    private func freeSlot(reusable: Bool) -> Int? {
        for s in slots.indices where slots[s].contact == nil && (!reusable || slots[s].endedIn != frameNumber) {
            return s
        }
        return nil
    }

    private mutating func release(_ s: Int) {
        slots[s].contact = nil
        slots[s].endedIn = frameNumber
    }

    private mutating func select(_ s: Int) {
        guard kernelSlot != s else { return }
        kernelSlot = s
        append(EventType.abs, AbsCode.mtSlot, Int32(s))
    }

    /// Writes a slot axis unless the kernel already holds that value (it would drop the event).
    private mutating func write(_ s: Int, _ code: UInt16, _ value: Int32) {
        guard slots[s].written[code] != value || code == AbsCode.mtTrackingID else { return }
        slots[s].written[code] = value
        append(EventType.abs, code, value)
    }

    private mutating func append(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: now, type: type, code: code, value: value))
    }
}
