import CUdev
import Glibc
import TouchSystem

/// An input device as udev knows it.
public struct DeviceInfo: Equatable, Sendable {
    /// /dev/input/eventN.
    public var devnode: String
    public var syspath: String
    /// The kernel's name for the device (the parent input device's "name" attribute).
    public var name: String
    public var vendor: UInt16
    public var product: UInt16
    /// udev properties: ID_INPUT_TOUCHSCREEN, ID_PATH, LIBINPUT_CALIBRATION_MATRIX, …
    public var properties: [String: String]
    /// The parent input device's "phys" attribute (where it is attached); nil when it has none.
    public var phys: String?
    /// The kernel's INPUT_PROP_* bits of the device (its "properties" attribute): INPUT_PROP_DIRECT, …
    public var inputProperties: UInt64

    public init(devnode: String, syspath: String = "", name: String, vendor: UInt16 = 0, product: UInt16 = 0,
                properties: [String: String] = [:], phys: String? = nil, inputProperties: UInt64 = 0) {
        self.phys = phys
        self.inputProperties = inputProperties
        self.devnode = devnode
        self.syspath = syspath
        self.name = name
        self.vendor = vendor
        self.product = product
        self.properties = properties
    }

    public var isTouchscreen: Bool { properties["ID_INPUT_TOUCHSCREEN"] == "1" }
    public var isTablet: Bool { properties["ID_INPUT_TABLET"] == "1" }
    /// A pen on a screen (ID_INPUT_TABLET with INPUT_PROP_DIRECT: Wacom AES and EMR in tablet PCs,
    /// display tablets, Surface pens): opened with the touchscreens by default (docs/pens.md).
    public var isDisplayPen: Bool { isTablet && inputProperties & (1 << UInt64(InputProperty.direct)) != 0 }

    /// The physical device the input node belongs to, for pairing a pen with the finger panel of the same
    /// screen: the USB device when the node hangs below a USB interface (a Wacom's pen and finger are
    /// two interfaces of one USB device), else the HID (or other) device right above the input device
    /// (an I2C pen and touch controller). Nil without a sysfs path.
    public var physicalParent: String? {
        let parts = syspath.split(separator: "/", omittingEmptySubsequences: false)
        // …/<device>/input/inputN/eventM: the device the input device hangs below.
        guard let input = parts.indices.last(where: { parts[$0] == "input" && $0 + 1 < parts.count && parts[$0 + 1].hasPrefix("input") }),
              input > 1 else { return nil }
        let above = parts[..<input]
        // uinput devices (and other virtual ones) all hang below /sys/devices/virtual: no physical device.
        guard above.last != "virtual" else { return nil }
        // A USB interface is "BUS-PORT[.PORT…]:CONFIG.INTERFACE" (1-1:1.0); its parent is the USB device.
        if let i = above.lastIndex(where: DeviceInfo.isUSBInterface) { return above[..<i].joined(separator: "/") }
        return above.joined(separator: "/")
    }

    static func isUSBInterface(_ name: Substring) -> Bool {
        let halves = name.split(separator: ":")
        guard halves.count == 2, let port = halves.first, let config = halves.last else { return false }
        return port.contains("-") && port.allSatisfy { $0.isNumber || $0 == "-" || $0 == "." }
            && config.contains(".") && config.allSatisfy { $0.isNumber || $0 == "." }
    }
    public var vendorProduct: String { vendorProductText(vendor, product) }

    /// A pass-through mirror (of this or another touchbridged): never opened as input. Recognized by
    /// the property udev/70-touchbridge.rules gives it, else by its phys or name.
    public var isMirror: Bool {
        properties["TOUCHBRIDGE_MIRROR"] == "1" || MirrorDescription.isMirror(name: name, phys: phys)
    }

    /// LIBINPUT_CALIBRATION_MATRIX, when the user has set one for this device.
    public var calibrationMatrix: [Double]? {
        properties["LIBINPUT_CALIBRATION_MATRIX"].flatMap(CoordinateMapping.parseMatrix)
    }
}

/// Finds touchscreens and watches them come and go, through libudev (the device-monitor stage).
///
/// `enumerate()` lists the input devices udev tagged ID_INPUT_TOUCHSCREEN=1 (and ID_INPUT_TABLET=1
/// when tablets are wanted); `fd` is a netlink socket the event loop polls, and `receive()` reads one
/// add/remove from it.
public final class DeviceMonitor {
    public enum Action: String, Sendable { case added, removed }

    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    public let includeTablets: Bool

    public init(includeTablets: Bool = false) throws {
        guard let udev = udev_new() else { throw SystemError("udev_new", "udev", errno: errno) }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev)
            throw SystemError("udev_monitor_new_from_netlink", "udev", errno: errno)
        }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        let rc = udev_monitor_enable_receiving(monitor)
        guard rc >= 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw SystemError("udev_monitor_enable_receiving", "udev", errno: -rc)
        }
        self.udev = udev
        self.monitor = monitor
        self.includeTablets = includeTablets
        // Non-blocking: the event loop only reads when poll says so.
        FileDescriptor(rawValue: udev_monitor_get_fd(monitor)).setNonBlocking()
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// The netlink socket to poll for hotplug.
    public var fd: FileDescriptor { FileDescriptor(rawValue: udev_monitor_get_fd(monitor)) }

    /// Every input device udev knows with a /dev/input/event node, touch devices or not.
    public func allInputDevices() -> [DeviceInfo] {
        guard let e = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(e) }
        udev_enumerate_add_match_subsystem(e, "input")
        udev_enumerate_scan_devices(e)
        var result: [DeviceInfo] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let current = entry {
            if let path = udev_list_entry_get_name(current),
               let dev = udev_device_new_from_syspath(udev, path) {
                if let info = DeviceMonitor.info(dev) { result.append(info) }
                udev_device_unref(dev)
            }
            entry = udev_list_entry_get_next(current)
        }
        return result.sorted { $0.devnode.localizedStandardLess($1.devnode) }
    }

    /// What udev knows of one event node, by its name ("event5"); nil when there is no such node.
    public static func info(eventNode sysname: String) -> DeviceInfo? {
        guard let udev = udev_new() else { return nil }
        defer { udev_unref(udev) }
        guard let dev = udev_device_new_from_subsystem_sysname(udev, "input", sysname) else { return nil }
        defer { udev_device_unref(dev) }
        return info(dev)
    }

    /// The touchscreens (and tablets, when asked) present now.
    public func enumerate() -> [DeviceInfo] {
        allInputDevices().filter(wanted)
    }

    /// Touchscreens, display pens, and other pen tablets when asked.
    public func wanted(_ info: DeviceInfo) -> Bool {
        info.isTouchscreen || info.isDisplayPen || (includeTablets && info.isTablet)
    }

    /// Reads one hotplug event, or nil when none is pending or it is not about a wanted event node.
    /// A removal is reported for any event node (udev's properties are gone by then).
    public func receive() -> (Action, DeviceInfo)? {
        guard let dev = udev_monitor_receive_device(monitor) else { return nil }
        defer { udev_device_unref(dev) }
        guard let actionC = udev_device_get_action(dev), let info = DeviceMonitor.info(dev) else { return nil }
        switch String(cString: actionC) {
        case "add": return wanted(info) ? (.added, info) : nil
        case "remove": return (.removed, info)
        default: return nil
        }
    }

    static func info(_ dev: OpaquePointer) -> DeviceInfo? {
        guard let nodeC = udev_device_get_devnode(dev) else { return nil }
        let node = String(cString: nodeC)
        guard node.hasPrefix("/dev/input/event") else { return nil }
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(dev)
        while let current = entry {
            if let k = udev_list_entry_get_name(current) {
                properties[String(cString: k)] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        var name = "", vendor: UInt16 = 0, product: UInt16 = 0, phys: String?, inputProperties: UInt64 = 0
        if let parent = udev_device_get_parent_with_subsystem_devtype(dev, "input", nil) {
            // "properties": the INPUT_PROP_* bits in hexadecimal (the kernel prints one bitmap word).
            inputProperties = udev_device_get_sysattr_value(parent, "properties").flatMap {
                UInt64(String(cString: $0).split(separator: " ").last ?? "", radix: 16)
            } ?? 0
            name = udev_device_get_sysattr_value(parent, "name").map { String(cString: $0) } ?? ""
            phys = udev_device_get_sysattr_value(parent, "phys").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            vendor = udev_device_get_sysattr_value(parent, "id/vendor").flatMap { UInt16(String(cString: $0), radix: 16) } ?? 0
            product = udev_device_get_sysattr_value(parent, "id/product").flatMap { UInt16(String(cString: $0), radix: 16) } ?? 0
        }
        if name.isEmpty, let n = properties["NAME"] { name = n.unquoted() }
        let syspath = udev_device_get_syspath(dev).map { String(cString: $0) } ?? ""
        return DeviceInfo(devnode: node, syspath: syspath, name: name, vendor: vendor, product: product,
                          properties: properties, phys: phys, inputProperties: inputProperties)
    }
}

extension String {
    /// "event2" < "event10".
    func localizedStandardLess(_ other: String) -> Bool {
        let a = self.split(whereSeparator: { $0.isNumber == false }).last.flatMap { Int($0) }
        let b = other.split(whereSeparator: { $0.isNumber == false }).last.flatMap { Int($0) }
        if let a, let b, self.filter({ !$0.isNumber }) == other.filter({ !$0.isNumber }) { return a < b }
        return self < other
    }
}
