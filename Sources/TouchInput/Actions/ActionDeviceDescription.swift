import TouchSystem

/// The two uinput devices actions are written to (README "Actions"), described as udev and libinput
/// expect a keyboard and a mouse to be, so that every compositor takes them without configuration:
///
/// - `TouchBridge keyboard`: every key a full keyboard has, KEY_ESC … KEY_MICMUTE and the media and
///   XF86 keys above it, but no BTN_* code. udev's input_id calls a device a keyboard when it has
///   KEY_ESC through KEY_D (its first 32 key bits, less KEY_RESERVED); libinput then opens it as one.
/// - `TouchBridge pointer`: absolute ABS_X/ABS_Y without INPUT_PROP_DIRECT, BTN_LEFT/RIGHT/MIDDLE and
///   the wheel (REL_WHEEL, REL_HWHEEL and their hi-res twins): the shape of QEMU's USB tablet, which
///   udev calls a mouse ("absolute axes and a mouse button") and libinput a pointer with absolute
///   motion (POINTER_MOTION_ABSOLUTE). Motion, buttons and wheel on one device, so that the compositor
///   treats them as one pointer: a click lands where the motion put it.
///
/// Neither is a touchscreen, so the daemon's device monitor never considers them; their phys,
/// "touchbridge-actions", is not a mirror's ("touchbridge/…").
public enum ActionDeviceDescription {
    public static let keyboardName = "TouchBridge keyboard"
    public static let pointerName = "TouchBridge pointer"
    public static let touchpadName = "TouchBridge touchpad"
    /// The touchpad's size (mm) and resolution (units a mm): a large clickpad's, 160 × 110 mm at 40
    /// units a mm (Apple's largest is 160 × 100). libinput sizes its thresholds in millimetres from the
    /// resolution (palm, thumb and jump detection, the gestures' distances), so it must be plausible;
    /// large, because GNOME takes 76 mm of travel for a workspace and 57 for the overview (AC9), and a
    /// swipe across the panel must fit on the pad from wherever it starts, three fingers' row and the
    /// margins included.
    public static let touchpadWidth = 160.0, touchpadHeight = 110.0, touchpadResolution: Int32 = 40
    public static let touchpadSlots = 5
    public static let phys = "touchbridge-actions"
    /// The pointer's axis range, 0…32767 as QEMU's tablet: a fraction of the desktop times this.
    public static let pointerMaximum: Int32 = 32767

    public static let relWheel: UInt16 = 0x08, relHWheel: UInt16 = 0x06
    public static let relWheelHiRes: UInt16 = 0x0b, relHWheelHiRes: UInt16 = 0x0c

    /// A device of ours as the kernel lists it: BUS_VIRTUAL, the Linux Foundation's vendor id (as other
    /// virtual devices use), a product of its own, version 1.
    private static func virtual(_ name: String, product: UInt16) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.bustype = 0x06
        d.vendor = 0x1d6b
        d.product = product
        d.version = 1
        return d
    }

    public static var keyboard: DeviceDescription {
        var d = virtual(keyboardName, product: 0x0101)
        // KEY_ESC (1) … KEY_MICMUTE (248), then KEY_OK (0x160) … KEY_LIGHTS_TOGGLE (0x21e) and the
        // keys up to KEY_MAX past the BTN_TRIGGER_HAPPY block: never a BTN_* (0x100–0x15f), which
        // would make udev call it a mouse or a joystick.
        var keys = Set<UInt16>(1...248)
        keys.formUnion(0x160...0x2bf)
        d.codes[EventType.key] = keys
        return d
    }

    /// `TouchBridge touchpad` (docs/actions.md, "Touchpad"): a clickpad as udev's input_id and libinput
    /// take one — INPUT_PROP_POINTER and INPUT_PROP_BUTTONPAD, never INPUT_PROP_DIRECT; BTN_LEFT;
    /// BTN_TOUCH and BTN_TOOL_FINGER … BTN_TOOL_QUINTTAP, which say how many fingers are down; the
    /// single-touch ABS_X/ABS_Y and protocol B's five slots over the same range and resolution. No
    /// pressure or touch size: libinput's palm detection, which reads them, has nothing to judge by.
    public static var touchpad: DeviceDescription {
        var d = virtual(touchpadName, product: 0x0103)
        d.properties = [InputProperty.pointer, InputProperty.buttonpad]
        d.codes[EventType.key] = [KeyCode.left, KeyCode.touch, KeyCode.toolFinger, KeyCode.toolDoubleTap,
                                  KeyCode.toolTripleTap, KeyCode.toolQuadTap, KeyCode.toolQuintTap]
        let x = AbsInfo(minimum: 0, maximum: Int32(touchpadWidth) * touchpadResolution, resolution: touchpadResolution)
        let y = AbsInfo(minimum: 0, maximum: Int32(touchpadHeight) * touchpadResolution, resolution: touchpadResolution)
        d.addAbs(AbsCode.x, x)
        d.addAbs(AbsCode.y, y)
        d.addAbs(AbsCode.mtSlot, AbsInfo(minimum: 0, maximum: Int32(touchpadSlots - 1)))
        d.addAbs(AbsCode.mtPositionX, x)
        d.addAbs(AbsCode.mtPositionY, y)
        d.addAbs(AbsCode.mtTrackingID, AbsInfo(minimum: 0, maximum: 65535))
        return d
    }

    public static var pointer: DeviceDescription {
        var d = virtual(pointerName, product: 0x0102)
        d.codes[EventType.key] = [0x110, 0x111, 0x112]     // BTN_LEFT, BTN_RIGHT, BTN_MIDDLE
        d.codes[EventType.rel] = [relHWheel, relWheel, relWheelHiRes, relHWheelHiRes]
        let axis = AbsInfo(value: 0, minimum: 0, maximum: pointerMaximum, fuzz: 0, flat: 0, resolution: 0)
        d.addAbs(AbsCode.x, axis)
        d.addAbs(AbsCode.y, axis)
        return d
    }
}
