import Glibc
import TouchSystem

/// Why a device could not be opened, each with the remedy.
public enum DeviceError: Error, CustomStringConvertible, Equatable {
    /// open() said EACCES/EPERM; `group` owns the node (usually "input").
    case permissionDenied(path: String, group: String?)
    /// Another program holds an exclusive grab (EVIOCGRAB said EBUSY).
    case busy(path: String)
    /// The node does not exist (ENOENT) or the device went away (ENODEV).
    case noSuchDevice(path: String)
    /// The device has position axes but is not a touchscreen (a touchpad, a tablet when pens were not
    /// asked for, a mouse…).
    case notATouchscreen(path: String, name: String, kind: DeviceDescription.Kind)
    /// The device has neither ABS_MT_POSITION_X nor ABS_X.
    case noPositionAxes(path: String, name: String)
    /// Any other failure of the system.
    case system(SystemError)

    public var description: String {
        switch self {
        case .permissionDenied(let path, let group):
            let g = group ?? "input"
            return "\(path): permission denied (add the user to group \"\(g)\": sudo usermod -aG \(g) $USER, then log in again; or run the systemd service, which has it)"
        case .busy(let path):
            return "\(path): device is busy: another program has grabbed it exclusively (stop it, or open this device without \"grab\")"
        case .noSuchDevice(let path):
            return "\(path): no such device (it was unplugged, or the path is wrong: see `touchbridgectl devices`)"
        case .notATouchscreen(let path, let name, let kind):
            return "\(path): \"\(name)\" is a \(kind.rawValue), not a touchscreen (select a touchscreen, or allow tablets with \"tablets\": true)"
        case .noPositionAxes(let path, let name):
            return "\(path): \"\(name)\" has no ABS_MT_POSITION_X and no ABS_X axis: it is not a touch device"
        case .system(let e):
            return e.description
        }
    }

    /// The error for a failed open() of `path`.
    static func opening(_ path: String, errno code: Int32) -> DeviceError {
        switch code {
        case EACCES, EPERM: return .permissionDenied(path: path, group: groupOwning(path))
        case ENOENT, ENODEV, ENXIO: return .noSuchDevice(path: path)
        case EBUSY: return .busy(path: path)
        default: return .system(SystemError("open", path, errno: code))
        }
    }

    /// The name of the group that owns `path`, if it can be found.
    static func groupOwning(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, let gr = getgrgid(st.st_gid), let name = gr.pointee.gr_name else { return nil }
        return String(cString: name)
    }
}
