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
