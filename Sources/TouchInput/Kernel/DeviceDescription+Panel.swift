import TouchSystem

extension DeviceDescription {
    /// A direct-touch multitouch panel as the kernel would describe it: BTN_TOUCH and protocol B with
    /// `slots` slots (ABS_MT_SLOT, ABS_MT_POSITION_X/Y over `0…width`, `0…height`, ABS_MT_TRACKING_ID),
    /// optionally ABS_MT_PRESSURE and ABS_MT_TOUCH_MAJOR (0…255), ABS_MT_TOOL_TYPE, and the
    /// single-touch axes the kernel keeps for the oldest contact. For tests, benchmarks and fuzzing,
    /// which make up their panels; `resolution` in units per millimetre (0: unknown).
    public static func panel(name: String, slots: Int = 10, width: Int32 = 4095, height: Int32 = 4095,
                             resolution: Int32 = 0, pressure: Bool = false, touchMajor: Bool = false,
                             toolType: Bool = false, singleTouchAxes: Bool = false) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.properties = [InputProperty.direct]
        d.codes[EventType.key] = [KeyCode.touch]
        if singleTouchAxes {
            d.addAbs(AbsCode.x, AbsInfo(minimum: 0, maximum: width, resolution: resolution))
            d.addAbs(AbsCode.y, AbsInfo(minimum: 0, maximum: height, resolution: resolution))
        }
        d.addAbs(AbsCode.mtSlot, AbsInfo(minimum: 0, maximum: Int32(max(1, slots) - 1)))
        d.addAbs(AbsCode.mtPositionX, AbsInfo(minimum: 0, maximum: width, resolution: resolution))
        d.addAbs(AbsCode.mtPositionY, AbsInfo(minimum: 0, maximum: height, resolution: resolution))
        d.addAbs(AbsCode.mtTrackingID, AbsInfo(minimum: 0, maximum: 65535))
        if toolType { d.addAbs(AbsCode.mtToolType, AbsInfo(minimum: 0, maximum: 2)) }
        if pressure { d.addAbs(AbsCode.mtPressure, AbsInfo(minimum: 0, maximum: 255)) }
        if touchMajor { d.addAbs(AbsCode.mtTouchMajor, AbsInfo(minimum: 0, maximum: 255)) }
        return d
    }
}

extension DeviceDescription {
    /// A display pen as the kernel would describe it: INPUT_PROP_DIRECT, BTN_TOOL_PEN and _RUBBER,
    /// BTN_TOUCH, both barrel buttons; ABS_X/ABS_Y over `x`, `y` (`resolution` units per millimetre),
    /// ABS_PRESSURE 0…2047, ABS_DISTANCE 0…63, ABS_TILT_X/Y over `tilt` (`tiltResolution` units per
    /// radian; 0: none, and libinput then reads the range as −64°…64°). A Wacom Cintiq 13HD's axes by
    /// default; `distance: false` for a pen without ABS_DISTANCE (many AES and MPP pens). For tests,
    /// benchmarks and fuzzing, which make up their pens.
    public static func pen(name: String, x: ClosedRange<Int32> = 400...59152, y: ClosedRange<Int32> = 400...33448,
                           resolution: Int32 = 200, tilt: ClosedRange<Int32> = -64...63,
                           tiltResolution: Int32 = 57, distance: Bool = true) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.properties = [InputProperty.direct]
        d.codes[EventType.key] = [KeyCode.toolPen, KeyCode.toolRubber, KeyCode.touch, KeyCode.stylus, KeyCode.stylus2]
        d.addAbs(AbsCode.x, AbsInfo(minimum: x.lowerBound, maximum: x.upperBound, resolution: resolution))
        d.addAbs(AbsCode.y, AbsInfo(minimum: y.lowerBound, maximum: y.upperBound, resolution: resolution))
        d.addAbs(AbsCode.pressure, AbsInfo(minimum: 0, maximum: 2047))
        if distance { d.addAbs(AbsCode.distance, AbsInfo(minimum: 0, maximum: 63)) }
        d.addAbs(AbsCode.tiltX, AbsInfo(minimum: tilt.lowerBound, maximum: tilt.upperBound, resolution: tiltResolution))
        d.addAbs(AbsCode.tiltY, AbsInfo(minimum: tilt.lowerBound, maximum: tilt.upperBound, resolution: tiltResolution))
        return d
    }
}
