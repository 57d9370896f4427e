import CEvdev
import Glibc
import TouchSystem

/// Where a pass-through mirror's frames go: a uinput device the compositor reads (`UinputDevice`), or
/// a recording of what it would have been sent (`EvemuWriter`, `touchbridgectl replay --mirror`).
public protocol MirrorSink: AnyObject {
    /// One write: every frame one source frame or timer produced, each ended by SYN_REPORT, in the
    /// kernel's layout (`struct input_event`), stamped with the time of that frame or timer.
    func write(_ events: UnsafeBufferPointer<input_event>) throws
}

/// A virtual input device made through /dev/uinput (with libevdev's uinput half): the kernel end of a
/// pass-through mirror, and of the action devices (ActionDeviceDescription). The kernel stamps its events as they are written and removes the device when
/// this process's descriptor closes, whatever ends the process (SIGKILL included): the compositor is
/// never left with a mirror no one drives.
public final class UinputDevice: MirrorSink {
    public let description: DeviceDescription
    /// /dev/input/eventN of the new device, when the kernel says (UI_GET_SYSNAME).
    public let devnode: String?
    private var uinput: OpaquePointer?
    private let fd: FileDescriptor

    public static let path = "/dev/uinput"

    /// Creates the device. Fails with the remedy when /dev/uinput is missing or not writable.
    public init(description: DeviceDescription, phys: String) throws {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(UinputDevice.path, O_RDWR | O_NONBLOCK) } catch { throw UinputError.opening(errno: error.errno.rawValue) }
        guard let dev = libevdev_new() else {
            fd.close()
            throw UinputError.creating(name: description.name, errno: ENOMEM)
        }
        defer { libevdev_free(dev) }
        libevdev_set_name(dev, description.name)
        guard cevdev_uinput_set_phys(fd.rawValue, phys) == 0 else {
            let e = errno
            fd.close()
            throw UinputError.creating(name: description.name, errno: e)
        }
        libevdev_set_id_bustype(dev, Int32(description.bustype))
        libevdev_set_id_vendor(dev, Int32(description.vendor))
        libevdev_set_id_product(dev, Int32(description.product))
        libevdev_set_id_version(dev, Int32(description.version))
        for p in description.properties.sorted() { _ = libevdev_enable_property(dev, UInt32(p)) }
        for code in (description.codes[EventType.key] ?? []).sorted() {
            _ = libevdev_enable_event_code(dev, UInt32(EventType.key), UInt32(code), nil)
        }
        for code in (description.codes[EventType.rel] ?? []).sorted() {
            _ = libevdev_enable_event_code(dev, UInt32(EventType.rel), UInt32(code), nil)
        }
        for code in (description.codes[EventType.abs] ?? []).sorted() {
            guard let a = description.absInfo[code] else { continue }
            var info = input_absinfo(value: a.value, minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz,
                                     flat: a.flat, resolution: a.resolution)
            _ = libevdev_enable_event_code(dev, UInt32(EventType.abs), UInt32(code), &info)
        }
        var made: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, fd.rawValue, &made)
        guard rc == 0, let made else {
            fd.close()
            throw UinputError.creating(name: description.name, errno: -rc)
        }
        self.description = description
        self.fd = fd
        uinput = made
        devnode = libevdev_uinput_get_devnode(made).map { String(cString: $0) }
    }

    deinit { destroy() }

    /// Removes the device (UI_DEV_DESTROY). Touches still down on it should have been cancelled first.
    public func destroy() {
        guard let u = uinput else { return }
        libevdev_uinput_destroy(u)
        fd.close()
        uinput = nil
    }

    /// One write(2); the kernel ignores the events' times and stamps them itself.
    public func write(_ events: UnsafeBufferPointer<input_event>) throws {
        guard uinput != nil, !events.isEmpty else { return }
        let bytes = UnsafeRawBufferPointer(events)
        switch fd.write(bytes) {
        case .success(let n?) where n == bytes.count: return
        case .failure(let e): throw UinputError.writing(name: description.name, errno: e.rawValue)
        default: throw UinputError.writing(name: description.name, errno: EIO)   // the kernel takes whole events or none
        }
    }
}

/// Why a mirror could not be made or written, with the remedy.
public enum UinputError: Error, CustomStringConvertible, Equatable {
    case opening(errno: Int32)
    case creating(name: String, errno: Int32)
    case writing(name: String, errno: Int32)

    public var description: String {
        switch self {
        case .opening(let e) where e == ENOENT || e == ENODEV || e == ENXIO:
            return "\(UinputDevice.path) does not exist: load the uinput module (sudo modprobe uinput; `make install` "
                + "adds /etc/modules-load.d/touchbridge.conf, which loads it at boot)"
        case .opening(let e) where e == EACCES || e == EPERM:
            return "\(UinputDevice.path): permission denied (it belongs to group \"uinput\" with the udev rule `make install` "
                + "adds; the systemd service is in that group; run by hand, run as root or join the group: sudo usermod -aG uinput $USER)"
        case .opening(let e):
            return SystemError("open", UinputDevice.path, errno: e).description
        case .creating(let name, let e):
            return "\(UinputDevice.path): cannot create \"\(name)\": \(Errno(e))"
        case .writing(let name, let e):
            return "\"\(name)\": write failed: \(Errno(e))"
        }
    }
}
