import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A device whose mapping onto the window a `set device` may change (an open device or a replay).
/// The mapping is only changed while `isNeutral` (no finger down), so no touch sequence changes
/// coordinates halfway.
package protocol MappedSource: AnyObject {
    var index: Int { get }
    var config: DeviceConfig { get }
    var node: String { get }
    var name: String { get }
    var description: DeviceDescription { get }
    var mapping: CoordinateMapping { get set }
    var isNeutral: Bool { get }
    var mappingPending: Bool { get set }
    /// udev's LIBINPUT_CALIBRATION_MATRIX for the device, which a scene entry without its own replaces.
    var udevCalibration: [Double]? { get }
}
