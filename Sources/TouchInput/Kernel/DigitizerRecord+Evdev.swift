import TouchCore
import TouchSystem

/// A contact's digitizer record as evdev has it: its slot axes (ABS_MT_TOUCH_MAJOR … ABS_MT_TOOL_Y),
/// lane `code − ABS_MT_TOUCH_MAJOR`, in the device's own units. The frame assembler fills it for every
/// contact (a single-touch device's ABS_X, ABS_Y and ABS_PRESSURE as their ABS_MT_ counterparts);
/// pass-through copies it to the mirror unmodified. An axis the device does not have reads 0.
extension DigitizerRecord {
    public subscript(code: UInt16) -> Int32 {
        get {
            guard AbsCode.slotAxes.contains(code) else { return 0 }
            return lanes[Int(code - AbsCode.slotAxes.lowerBound)]
        }
        set {
            guard AbsCode.slotAxes.contains(code) else { return }
            lanes[Int(code - AbsCode.slotAxes.lowerBound)] = newValue
        }
    }
}
