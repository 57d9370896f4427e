import CEvdev
import TouchCore
import TouchSystem

/// What a pass-through mirror is sent, as kernel events (multitouch protocol B): touches begin, move,
/// end and are cancelled one by one, and come out as whole frames, each ended by SYN_REPORT.
///
/// The mirror's slots are its own: a touch that begins takes the lowest free slot and a new tracking
/// id. Changes are gathered per slot and written when the frame closes, slot by slot in slot order, so
/// the bytes do not depend on the order touches were reported in; the kernel's per-slot state is kept
/// (`written`), so that only what changed is written and a slot nobody uses is never touched. Frames
/// are cut where a consumer needs them apart:
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

    /// What happens to a slot in the frame being made.
    private struct Change {
        var begins = false
        var ends = false
        var palm = false
        /// The values to write (the touch's record), when it began or moved.
        var values: DigitizerRecord?
    }

    /// The source contact each slot carries (`Contact.id`), −1 while free: scanned on every report.
    private var contacts: [Int]
    /// Each slot's state as the kernel holds it: tracking id, tool type, axes.
    private var written: [DigitizerRecord]
    /// When each slot's touch began, for the pointer emulation (oldest first).
    private var order: [Int]
    /// The frame (`frameNumber`) in which each slot last ended a touch.
    private var endedIn: [Int]
    /// The changes of the frame being made, by slot; `changed` lists the slots that have one.
    private var changes: [Change]
    private var changed: UInt64 = 0
    /// The slot ABS_MT_SLOT points at, as the kernel holds it.
    private var kernelSlot = 0
    /// Closed frames, in the kernel's layout, stamped with `now` (the kernel ignores the time of a
    /// uinput write and stamps the events itself; a recording of the mirror shows it).
    private var events: [input_event] = []
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
    /// The time stamped on the events made from now on (`time(_:)`).
    private var now = timeval()

    public init(source: DeviceDescription) {
        let m = MirrorDescription.of(source)
        description = m
        let count = min(64, Int(m.absInfo[AbsCode.mtSlot]!.maximum) + 1)
        var empty = DigitizerRecord()
        empty[AbsCode.mtTrackingID] = -1
        contacts = Array(repeating: -1, count: count)
        written = Array(repeating: empty, count: count)
        order = Array(repeating: 0, count: count)
        endedIn = Array(repeating: -1, count: count)
        changes = Array(repeating: Change(), count: count)
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
    public var slotCount: Int { contacts.count }

    /// No touch is down on the mirror.
    public var isNeutral: Bool { !contacts.contains { $0 >= 0 } }

    /// Whether `contact`'s touch is on the mirror.
    public func carries(contact: Int) -> Bool { slot(of: contact) != nil }

    /// The time stamped on the events made from now on (seconds).
    public mutating func time(_ t: Double) {
        let us = Int((t.isFinite ? max(0, t) : 0) * 1_000_000 + 0.5)
        now = timeval(tv_sec: us / 1_000_000, tv_usec: us % 1_000_000)
    }

    // MARK: Touches

    /// A touch begins at `values`: it takes a free slot and a new tracking id. Returns false when every
    /// slot is taken (the touch is not mirrored).
    @discardableResult
    public mutating func begin(contact: Int, values: DigitizerRecord) -> Bool {
        guard slot(of: contact) == nil else { return true }
        guard var s = freeSlot(reusable: true) ?? freeSlot(reusable: false) else { return false }
        if endedIn[s] == frameNumber {
            closeFrame()                                // every free slot was freed in this frame
            s = freeSlot(reusable: true)!
        }
        contacts[s] = contact
        order[s] = beganCount
        beganCount += 1
        changes[s].begins = true
        changes[s].values = values
        changed |= 1 << UInt64(s)
        return true
    }

    /// The touch moved (or its pressure or size changed): the axes that differ are written.
    public mutating func move(contact: Int, values: DigitizerRecord) {
        guard let s = slot(of: contact) else { return }
        if changes[s].begins { closeFrame() }
        changes[s].values = values
        changed |= 1 << UInt64(s)
    }

    /// The touch lifted: tracking id −1.
    public mutating func end(contact: Int) {
        release(contact, palm: false)
    }

    /// The touch was cancelled: a palm, then tracking id −1 (libinput: TOUCH_CANCEL, no TOUCH_UP).
    public mutating func cancel(contact: Int) {
        release(contact, palm: true)
    }

    /// Cancels every touch on the mirror (the daemon stops, the source went away).
    public mutating func cancelAll() {
        for s in contacts.indices where contacts[s] >= 0 { cancel(contact: contacts[s]) }
    }

    private mutating func release(_ contact: Int, palm: Bool) {
        guard let s = slot(of: contact) else { return }
        if changes[s].begins { closeFrame() }
        changes[s].ends = true
        changes[s].palm = palm
        changed |= 1 << UInt64(s)
        contacts[s] = -1
        endedIn[s] = frameNumber
    }

    // MARK: Frames

    /// Whether there is anything to take.
    public var hasEvents: Bool { !events.isEmpty || changed != 0 }

    /// Ends the frame being made and hands every frame made since the last call to `body`, in the
    /// kernel's layout (one write, each frame ending with SYN_REPORT); nothing when nothing changed.
    public mutating func flush(_ body: (UnsafeBufferPointer<input_event>) -> Void) {
        closeFrame()
        guard !events.isEmpty else { return }
        events.withUnsafeBufferPointer(body)
        events.removeAll(keepingCapacity: true)
    }

    /// Writes the frame's changes slot by slot, then the pointer emulation and SYN_REPORT, if anything
    /// changed on the mirror.
    private mutating func closeFrame() {
        guard changed != 0 else { return }
        let start = events.count
        var pending = changed
        changed = 0
        while pending != 0 {
            let s = pending.trailingZeroBitCount
            pending &= pending - 1
            let c = changes[s]
            changes[s] = Change()
            if c.begins {
                let v = c.values!
                let tool = sourceHasToolType ? v[AbsCode.mtToolType] : MTToolType.finger
                write(s, AbsCode.mtToolType, tool == MTToolType.palm ? MTToolType.finger : tool)
                let id = nextTrackingID
                nextTrackingID = id >= trackingRange.upperBound ? trackingRange.lowerBound : id + 1
                write(s, AbsCode.mtTrackingID, id)
            }
            if let v = c.values {
                for code in copiedAxes { write(s, code, v[code]) }
            }
            if c.ends {
                if c.palm { write(s, AbsCode.mtToolType, MTToolType.palm) }
                write(s, AbsCode.mtTrackingID, -1)
            }
        }
        guard events.count > start else { return }      // moves to where the slots already were
        emulatePointer()
        append(EventType.syn, SynCode.report, 0)
        frameNumber += 1
    }

    /// BTN_TOUCH and the single-touch axes, from the oldest touch on the mirror.
    private mutating func emulatePointer() {
        var oldest = -1
        for s in contacts.indices where contacts[s] >= 0 && (oldest < 0 || order[s] < order[oldest]) { oldest = s }
        let touching = oldest >= 0
        if touching != pointer.touch {
            pointer.touch = touching
            append(EventType.key, KeyCode.touch, touching ? 1 : 0)
            if emulated.toolFinger { append(EventType.key, KeyCode.toolFinger, touching ? 1 : 0) }
        }
        guard touching else { return }
        let w = written[oldest]
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

    // MARK: Slots

    private func slot(of contact: Int) -> Int? {
        contacts.withUnsafeBufferPointer { c in
            for s in 0..<c.count where c[s] == contact { return s }
            return nil
        }
    }

    /// The lowest free slot; with `reusable`, only one not freed in the frame being made.
    private func freeSlot(reusable: Bool) -> Int? {
        for s in contacts.indices where contacts[s] < 0 && !(reusable && endedIn[s] == frameNumber) { return s }
        return nil
    }

    /// Writes a slot axis unless the kernel already holds that value (it would drop the event); a
    /// tracking id is always written.
    private mutating func write(_ s: Int, _ code: UInt16, _ value: Int32) {
        guard written[s][code] != value || code == AbsCode.mtTrackingID else { return }
        written[s][code] = value
        if kernelSlot != s {
            kernelSlot = s
            append(EventType.abs, AbsCode.mtSlot, Int32(s))
        }
        append(EventType.abs, code, value)
    }

    private mutating func append(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(input_event(time: now, type: type, code: code, value: value))
    }
}
