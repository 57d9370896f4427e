import TouchSystem

/// The state of an evdev device as the kernel keeps it: every absolute axis, the keys that are down,
/// and for protocol B the per-slot axes. This is what `EVIOCGABS`, `EVIOCGKEY` and `EVIOCGMTSLOTS`
/// read back, and what a reader resynchronizes to after `SYN_DROPPED`.
///
/// Recordings keep one as a shadow, fed with every event, including those a reader drops, so that a
/// replay can resync exactly as a live device does through libevdev.
public struct KernelState: Equatable, Sendable {
    /// Per slot: ABS_MT_TOUCH_MAJOR … ABS_MT_TOOL_Y, indexed by `code − ABS_MT_TOUCH_MAJOR`.
    public var slots: [[Int32]]
    /// The slot ABS_MT_* events go to; may be out of range when the kernel says so.
    public var currentSlot: Int
    /// Values of the non-slot absolute axes.
    public var abs: [UInt16: Int32] = [:]
    /// Keys that are down.
    public var keys: Set<UInt16> = []

    static let slotAxisCount = Int(AbsCode.slotAxes.upperBound - AbsCode.slotAxes.lowerBound) + 1
    static func slotIndex(_ code: UInt16) -> Int { Int(code - AbsCode.slotAxes.lowerBound) }

    public init(slotCount: Int) {
        var empty = [Int32](repeating: 0, count: KernelState.slotAxisCount)
        empty[KernelState.slotIndex(AbsCode.mtTrackingID)] = -1
        slots = Array(repeating: empty, count: max(0, slotCount))
        currentSlot = 0
    }

    /// A fresh state for `device`: every slot empty, the axes at the values its absinfo reports.
    public init(device: DeviceDescription) {
        if case .slots(let n) = device.touchProtocol { self.init(slotCount: n) } else { self.init(slotCount: 0) }
        for (code, info) in device.absInfo where !AbsCode.slotAxes.contains(code) && code != AbsCode.mtSlot {
            abs[code] = info.value
        }
        if let slot = device.absInfo[AbsCode.mtSlot] { currentSlot = Int(slot.value) }
    }

    public func trackingID(slot: Int) -> Int32 { slots[slot][KernelState.slotIndex(AbsCode.mtTrackingID)] }

    public func value(slot: Int, _ code: UInt16) -> Int32 { slots[slot][KernelState.slotIndex(code)] }

    /// Applies one event as the kernel's input core would.
    public mutating func apply(_ e: InputEvent) {
        switch e.type {
        case EventType.abs:
            if e.code == AbsCode.mtSlot {
                currentSlot = Int(e.value)
            } else if AbsCode.slotAxes.contains(e.code) && !slots.isEmpty {
                if slots.indices.contains(currentSlot) { slots[currentSlot][KernelState.slotIndex(e.code)] = e.value }
            } else {
                abs[e.code] = e.value
            }
        case EventType.key:
            if e.value != 0 { keys.insert(e.code) } else { keys.remove(e.code) }
        default:
            break
        }
    }
}
