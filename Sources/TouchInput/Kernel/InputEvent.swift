import TouchSystem

/// One kernel input event (`struct input_event`): a time, a type, a code and a value.
/// Recordings and live devices both produce these; `FrameAssembler` turns them into frames.
public struct InputEvent: Equatable, Sendable, CustomStringConvertible {
    /// Seconds: CLOCK_MONOTONIC for live devices, whatever the recording says for recordings.
    public var time: Double
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Double, type: UInt16, code: UInt16, value: Int32) {
        (self.time, self.type, self.code, self.value) = (time, type, code, value)
    }

    public var description: String {
        "\(time) \(EventName.type(type)) \(EventName.code(type: type, code: code)) \(value)"
    }
}

/// Event types (`EV_*` in linux/input-event-codes.h): EV_SYN (frame markers), EV_KEY (buttons,
/// BTN_TOUCH and the BTN_TOOL_* bits among them), EV_REL (relative axes), EV_ABS (absolute axes),
/// EV_MSC (MSC_TIMESTAMP, MSC_SCAN).
public enum EventType {
    public static let syn: UInt16 = 0x00, key: UInt16 = 0x01, rel: UInt16 = 0x02, abs: UInt16 = 0x03, msc: UInt16 = 0x04
    public static let max: UInt16 = 0x1f

    /// The kernel's names, for logs and the evtest format.
    static let names: [UInt16: String] = [syn: "EV_SYN", key: "EV_KEY", rel: "EV_REL", abs: "EV_ABS", msc: "EV_MSC"]
}

/// EV_SYN codes (Documentation/input/event-codes.rst): SYN_REPORT ends a frame (everything since the
/// last one happened at once); SYN_CONFIG is unused; SYN_MT_REPORT ends one contact in multitouch
/// protocol A; SYN_DROPPED says the client's buffer overran: events up to the next SYN_REPORT are lost
/// and the device's state must be read back.
public enum SynCode {
    public static let report: UInt16 = 0, config: UInt16 = 1, mtReport: UInt16 = 2, dropped: UInt16 = 3

    static let names: [UInt16: String] = [report: "SYN_REPORT", mtReport: "SYN_MT_REPORT", dropped: "SYN_DROPPED"]
}

/// EV_KEY codes a touch device uses: BTN_TOUCH (something touches the surface: single-touch devices,
/// and the legacy emulation), BTN_TOOL_PEN and BTN_TOOL_RUBBER (a stylus is in range), BTN_TOOL_FINGER
/// (a finger is in range: a touchpad's mark), BTN_TOOL_DOUBLETAP, BTN_LEFT.
public enum KeyCode {
    public static let touch: UInt16 = 0x14a, toolPen: UInt16 = 0x140, toolRubber: UInt16 = 0x141
    public static let toolFinger: UInt16 = 0x145, toolDoubleTap: UInt16 = 0x14d, left: UInt16 = 0x110
    public static let toolTripleTap: UInt16 = 0x14e, toolQuadTap: UInt16 = 0x14f, toolQuintTap: UInt16 = 0x148
    /// The other pen tools a tablet may say are in range (libinput takes each as a pen of its own kind).
    public static let toolBrush: UInt16 = 0x142, toolPencil: UInt16 = 0x143, toolAirbrush: UInt16 = 0x144
    /// A pen's barrel buttons: BTN_STYLUS (the lower, "button 1") and BTN_STYLUS2.
    public static let stylus: UInt16 = 0x14b, stylus2: UInt16 = 0x14c
    /// Every key that says a pen tool is in range.
    public static let penTools: [UInt16] = [toolPen, toolRubber, toolBrush, toolPencil, toolAirbrush]
    public static let max: UInt16 = 0x2ff

    static let names: [UInt16: String] = [touch: "BTN_TOUCH", toolFinger: "BTN_TOOL_FINGER", toolPen: "BTN_TOOL_PEN"]
}

/// EV_ABS codes.
public enum AbsCode {
    /// ABS_X, ABS_Y: position of a single-touch device (or the legacy emulation of a multitouch one).
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    /// ABS_PRESSURE.
    public static let pressure: UInt16 = 0x18
    /// ABS_DISTANCE: how far a pen is above the surface (larger is farther).
    public static let distance: UInt16 = 0x19
    /// ABS_TILT_X, ABS_TILT_Y: a pen's tilt; units per radian as resolution when the range spans 0.
    public static let tiltX: UInt16 = 0x1a, tiltY: UInt16 = 0x1b
    /// ABS_MT_SLOT: the slot the following ABS_MT_* events are for (protocol B).
    public static let mtSlot: UInt16 = 0x2f
    /// ABS_MT_TOUCH_MAJOR: the contact's major axis, in surface units.
    public static let mtTouchMajor: UInt16 = 0x30
    public static let mtTouchMinor: UInt16 = 0x31
    public static let mtWidthMajor: UInt16 = 0x32
    public static let mtWidthMinor: UInt16 = 0x33
    public static let mtOrientation: UInt16 = 0x34
    /// ABS_MT_POSITION_X, ABS_MT_POSITION_Y.
    public static let mtPositionX: UInt16 = 0x35
    public static let mtPositionY: UInt16 = 0x36
    /// ABS_MT_TOOL_TYPE: MT_TOOL_FINGER, MT_TOOL_PEN, MT_TOOL_PALM.
    public static let mtToolType: UInt16 = 0x37
    public static let mtBlobID: UInt16 = 0x38
    /// ABS_MT_TRACKING_ID: a contact's id; −1 ends the contact in its slot.
    public static let mtTrackingID: UInt16 = 0x39
    /// ABS_MT_PRESSURE.
    public static let mtPressure: UInt16 = 0x3a
    public static let mtDistance: UInt16 = 0x3b
    public static let mtToolX: UInt16 = 0x3c
    public static let mtToolY: UInt16 = 0x3d
    public static let max: UInt16 = 0x3f

    /// The per-slot axes a protocol B device keeps (ABS_MT_TOUCH_MAJOR … ABS_MT_TOOL_Y).
    public static let slotAxes: ClosedRange<UInt16> = mtTouchMajor...mtToolY

    static let names: [UInt16: String] = [
        x: "ABS_X", y: "ABS_Y", pressure: "ABS_PRESSURE", mtSlot: "ABS_MT_SLOT", mtTouchMajor: "ABS_MT_TOUCH_MAJOR",
        mtPositionX: "ABS_MT_POSITION_X", mtPositionY: "ABS_MT_POSITION_Y", mtToolType: "ABS_MT_TOOL_TYPE",
        mtTrackingID: "ABS_MT_TRACKING_ID", mtPressure: "ABS_MT_PRESSURE",
    ]
}

/// ABS_MT_TOOL_TYPE values.
public enum MTToolType {
    public static let finger: Int32 = 0
    public static let pen: Int32 = 1
    public static let palm: Int32 = 2
}

/// Input properties (INPUT_PROP_*).
public enum InputProperty {
    /// INPUT_PROP_POINTER: needs a pointer (touchpads).
    public static let pointer = 0
    /// INPUT_PROP_DIRECT: direct input device (touchscreens, tablets with screens).
    public static let direct = 1
    /// INPUT_PROP_BUTTONPAD: a clickpad, its one button under the surface.
    public static let buttonpad = 2
}

/// Kernel names for logs and the evtest format: each kind of code keeps its own table, beside its
/// constants.
public enum EventName {
    public static func type(_ type: UInt16) -> String {
        EventType.names[type] ?? "EV_\(type)"
    }

    public static func code(type: UInt16, code: UInt16) -> String {
        let names: [UInt16: String]
        switch type {
        case EventType.syn: names = SynCode.names
        case EventType.key: names = KeyCode.names
        case EventType.abs: names = AbsCode.names
        default: names = [:]
        }
        return names[code] ?? String(code, radix: 16)
    }
}
