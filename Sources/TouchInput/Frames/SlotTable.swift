import TouchCore
import TouchSystem

/// Protocol B's slots as the assembler keeps them: every slot's axes in one flat array (the
/// `KernelState.slotIndex` order), and per slot the contact it carries. One array for all slots, so
/// that an event updates one element in place instead of an array inside an array.
struct SlotTable {
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
struct AxisValues {
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
