import TouchCore
import TouchInput
import TouchProtocol
import TouchSystem

/// How one input device is chosen and mapped (a scene's "devices" entry).
public struct DeviceConfig: Equatable, Sendable {
    public var selector = DeviceSelector()
    public var rotation: CoordinateMapping.Rotation = .none
    public var flipX = false
    public var flipY = false
    /// Overrides the device's udev LIBINPUT_CALIBRATION_MATRIX.
    public var calibration: [Double]?
    /// Take the device exclusively (EVIOCGRAB).
    public var grab = false
    /// Also accept pen tablets that are not display pens (ID_INPUT_TABLET without INPUT_PROP_DIRECT:
    /// an Intuos on the desk). Display pens are accepted by default (docs/pens.md).
    public var tablets = false
    /// While a pen of this device's screen is in range (and for a hold-off after), fingers are palms
    /// (PalmRejection, PR1–PR4). On by default; false on either the finger panel's or the pen's entry
    /// turns it off for the pair.
    public var palmRejection = true
    /// The part of the window the device maps onto (default: all of it), e.g. one of two screens.
    public var region: Rect?
    /// Pass-through (README "Pass-through"): the device is grabbed and the compositor reads a mirror
    /// of it that hears exactly what the scene's views hear.
    public var passthrough = false
    /// Apps that want every touch (a drawing app): while one is focused, this device's touches reach
    /// no recognizer, only the views and so the mirror (FO3, docs/focus.md). Shell patterns, as `apps`.
    public var passthroughApps: [String] = []
    /// Where the touchscreen's output lies on the desktop, as fractions (0–1) of it: an action's
    /// pointer lands there (compositors spread an absolute pointer over the whole desktop). Nil: the
    /// whole desktop, right for one screen.
    public var pointerArea: Rect?
    /// A DRM connector's sysfs `dpms` attribute (`/sys/class/drm/card1-eDP-1/dpms`), read when a touch
    /// sequence begins: "Off" there swallows the sequence as `set display off` does (docs/screen-aware.md).
    public var dpms: String?

    public init() {}

    /// Applies this configuration (and the udev calibration when none is given here) to a mapping
    /// onto `window`.
    public func configure(_ m: inout CoordinateMapping, window: Rect, udevCalibration: [Double]?) {
        m.target = region ?? window
        m.rotation = rotation
        m.flipX = flipX
        m.flipY = flipY
        if let c = calibration ?? udevCalibration { m.calibration = c }
    }
}

extension ClientCommand.MappingChange {
    /// `config` with this change made.
    package func applied(to config: DeviceConfig) -> DeviceConfig {
        var c = config
        if let rotation { c.rotation = rotation }
        if let flipX { c.flipX = flipX }
        if let flipY { c.flipY = flipY }
        if let calibration { c.calibration = calibration }
        return c
    }
}
