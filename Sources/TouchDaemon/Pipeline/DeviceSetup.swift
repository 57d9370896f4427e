import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// How a device is set up for the pipeline, live, replayed by the daemon and replayed offline alike:
/// its mapping onto the window, and its pass-through mirror (`Pipeline.addMirror` takes any sink:
/// a uinput device here, an evemu file offline).
package enum DeviceSetup {
    /// The device's mapping onto `window` as its scene entry (with the live changes made to it) says,
    /// udev's calibration standing in where the entry has none. Nil: the device has no position axes.
    package static func mapping(_ description: DeviceDescription, _ config: DeviceConfig, window: Rect,
                        udevCalibration: [Double]?) -> CoordinateMapping? {
        guard var m = CoordinateMapping(device: description, target: window) else { return nil }
        config.configure(&m, window: window, udevCalibration: udevCalibration)
        return m
    }

    /// A uinput mirror of `description` for the compositor. Its phys names the source
    /// ("touchbridge/event5"), from which udev gives it the panel's mapping properties.
    package static func uinputMirror(of description: DeviceDescription, sourceNode: String) throws -> UinputDevice {
        try UinputDevice(description: MirrorDescription.of(description), phys: MirrorDescription.phys(forSourceNode: sourceNode))
    }
}
