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

/// Event types (`EV_*` in linux/input-event-codes.h).
public enum EventType {
    /// EV_SYN: frame markers.
    public static let syn: UInt16 = 0x00
    /// EV_KEY: buttons, including BTN_TOUCH and the BTN_TOOL_* bits.
    public static let key: UInt16 = 0x01
    /// EV_REL: relative axes.
    public static let rel: UInt16 = 0x02
    /// EV_ABS: absolute axes.
    public static let abs: UInt16 = 0x03
    /// EV_MSC: miscellaneous (MSC_TIMESTAMP, MSC_SCAN).
    public static let msc: UInt16 = 0x04
    public static let max: UInt16 = 0x1f
}

/// EV_SYN codes.
public enum SynCode {
    /// SYN_REPORT: the end of a frame; everything since the last one happened at once.
    public static let report: UInt16 = 0
    /// SYN_CONFIG: unused.
    public static let config: UInt16 = 1
    /// SYN_MT_REPORT: the end of one contact in multitouch protocol A.
    public static let mtReport: UInt16 = 2
    /// SYN_DROPPED: the client's buffer overran; events up to the next SYN_REPORT are lost and the
    /// device's state must be read back (Documentation/input/event-codes.rst).
    public static let dropped: UInt16 = 3
}

/// EV_KEY codes a touch device uses.
public enum KeyCode {
    /// BTN_TOUCH: something touches the surface (single-touch devices, and the legacy emulation).
    public static let touch: UInt16 = 0x14a
    /// BTN_TOOL_PEN / BTN_TOOL_RUBBER: a stylus is in range.
    public static let toolPen: UInt16 = 0x140
    public static let toolRubber: UInt16 = 0x141
    /// BTN_TOOL_FINGER: a finger is in range (a touchpad's mark).
    public static let toolFinger: UInt16 = 0x145
    public static let toolDoubleTap: UInt16 = 0x14d
    public static let left: UInt16 = 0x110
    public static let max: UInt16 = 0x2ff
}

/// EV_ABS codes.
public enum AbsCode {
    /// ABS_X, ABS_Y: position of a single-touch device (or the legacy emulation of a multitouch one).
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    /// ABS_PRESSURE.
    public static let pressure: UInt16 = 0x18
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
}

/// Kernel names for logs and the evtest format.
public enum EventName {
    public static func type(_ type: UInt16) -> String {
        switch type {
        case EventType.syn: "EV_SYN"
        case EventType.key: "EV_KEY"
        case EventType.rel: "EV_REL"
        case EventType.abs: "EV_ABS"
        case EventType.msc: "EV_MSC"
        default: "EV_\(type)"
        }
    }

    public static func code(type: UInt16, code: UInt16) -> String {
        switch (type, code) {
        case (EventType.syn, SynCode.report): "SYN_REPORT"
        case (EventType.syn, SynCode.mtReport): "SYN_MT_REPORT"
        case (EventType.syn, SynCode.dropped): "SYN_DROPPED"
        case (EventType.key, KeyCode.touch): "BTN_TOUCH"
        case (EventType.key, KeyCode.toolFinger): "BTN_TOOL_FINGER"
        case (EventType.key, KeyCode.toolPen): "BTN_TOOL_PEN"
        case (EventType.abs, AbsCode.x): "ABS_X"
        case (EventType.abs, AbsCode.y): "ABS_Y"
        case (EventType.abs, AbsCode.pressure): "ABS_PRESSURE"
        case (EventType.abs, AbsCode.mtSlot): "ABS_MT_SLOT"
        case (EventType.abs, AbsCode.mtTouchMajor): "ABS_MT_TOUCH_MAJOR"
        case (EventType.abs, AbsCode.mtPositionX): "ABS_MT_POSITION_X"
        case (EventType.abs, AbsCode.mtPositionY): "ABS_MT_POSITION_Y"
        case (EventType.abs, AbsCode.mtToolType): "ABS_MT_TOOL_TYPE"
        case (EventType.abs, AbsCode.mtTrackingID): "ABS_MT_TRACKING_ID"
        case (EventType.abs, AbsCode.mtPressure): "ABS_MT_PRESSURE"
        default: String(code, radix: 16)
        }
    }
}
