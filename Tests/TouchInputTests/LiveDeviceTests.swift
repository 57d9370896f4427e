import Glibc
import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

@Suite("Live devices without a device: errors, selection, discovery")
struct LiveDeviceTests {
    @Test("Opening a path that does not exist says so and points at `touchbridgectl devices`")
    func noSuchDevice() {
        #expect(throws: DeviceError.noSuchDevice(path: "/dev/input/event999")) {
            _ = try EvdevDevice(path: "/dev/input/event999", deviceIndex: 0, target: Rect(x: 0, y: 0, width: 10, height: 10))
        }
        #expect(DeviceError.noSuchDevice(path: "/dev/input/event9").description
                == "/dev/input/event9: no such device (it was unplugged, or the path is wrong: see `touchbridgectl devices`)")
    }

    @Test("Something that is not an evdev node is refused with the system's reason")
    func notEvdev() {
        do {
            _ = try EvdevDevice(path: "/dev/null", deviceIndex: 0, target: Rect(x: 0, y: 0, width: 10, height: 10))
            Issue.record("/dev/null opened as an evdev device")
        } catch let e as DeviceError {
            #expect(e.description.hasPrefix("/dev/null"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("Permission denied names the group that owns the node and the remedy")
    func permission() {
        let path = "/tmp/touchbridge-perm-test-\(getpid())"
        let fd = creat(path, 0o600)
        close(fd)
        defer { unlink(path) }
        let e = DeviceError.opening(path, errno: EACCES)
        guard case .permissionDenied(_, let group) = e else { Issue.record("\(e)"); return }
        var st = stat()
        stat(path, &st)
        #expect(group == String(cString: getgrgid(st.st_gid)!.pointee.gr_name))
        #expect(DeviceError.permissionDenied(path: "/dev/input/event4", group: "input").description.hasPrefix(
            "/dev/input/event4: permission denied (add the user to group \"input\""))
        #expect(DeviceError.opening("/x", errno: EBUSY) == .busy(path: "/x"))
    }

    @Test("Each way a device can be wrong has its message")
    func messages() {
        #expect(DeviceError.notATouchscreen(path: "/dev/input/event3", name: "SynPS/2 Synaptics TouchPad", kind: .touchpad).description
                == "/dev/input/event3: \"SynPS/2 Synaptics TouchPad\" is a touchpad, not a touchscreen (select a touchscreen, or allow tablets with \"tablets\": true)")
        #expect(DeviceError.noPositionAxes(path: "/dev/input/event1", name: "Power Button").description
                == "/dev/input/event1: \"Power Button\" has no ABS_MT_POSITION_X and no ABS_X axis: it is not a touch device")
        #expect(DeviceError.busy(path: "/dev/input/event5").description.contains("grabbed it exclusively"))
    }

    @Test("Selectors match by name (with wildcards), vendor:product, devnode and udev property")
    func selectors() {
        let info = DeviceInfo(devnode: "/dev/input/event5", name: "Wacom ISDv4 E6 Finger", vendor: 0x056a, product: 0x00e6,
                              properties: ["ID_INPUT_TOUCHSCREEN": "1", "ID_PATH": "pci-0000:00:14.0-usb-0:7:1.0"])
        #expect(DeviceSelector(name: "Wacom ISDv4 E6 Finger").matches(info))
        #expect(DeviceSelector(name: "Wacom*Finger").matches(info))
        #expect(!DeviceSelector(name: "Wacom*Pen").matches(info))
        #expect(DeviceSelector(vendorProduct: DeviceSelector.parseVendorProduct("056a:00e6")).matches(info))
        #expect(!DeviceSelector(vendorProduct: (0x056a, 0x00e7)).matches(info))
        #expect(DeviceSelector(devnode: "/dev/input/event5").matches(info))
        #expect(DeviceSelector(property: DeviceSelector.parseProperty("ID_PATH=pci-0000:00:14.0-usb-0:7:1.0")).matches(info))
        #expect(!DeviceSelector(name: "Wacom*", devnode: "/dev/input/event6").matches(info))
        #expect(DeviceSelector().matches(info))
        let vp = DeviceSelector.parseVendorProduct("56a:e6")
        #expect(vp?.0 == 0x56a && vp?.1 == 0xe6)
        #expect(DeviceSelector.parseVendorProduct("zz:00") == nil && DeviceSelector.parseVendorProduct("056a") == nil)
        #expect(DeviceSelector.parseProperty("=x") == nil)
    }

    @Test("A LIBINPUT_CALIBRATION_MATRIX udev property carries over")
    func udevCalibration() {
        let info = DeviceInfo(devnode: "/dev/input/event5", name: "x", properties: ["LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0"])
        #expect(info.calibrationMatrix == [0, -1, 1, 1, 0, 0])
        #expect(DeviceInfo(devnode: "/dev/input/event5", name: "x", properties: ["LIBINPUT_CALIBRATION_MATRIX": "bogus"]).calibrationMatrix == nil)
    }

    @Test("udev discovery lists only event nodes, touchscreens among them when asked")
    func discovery() throws {
        let monitor = try DeviceMonitor()
        #expect(monitor.fd.rawValue >= 0)
        let all = monitor.allInputDevices()
        #expect(all.allSatisfy { $0.devnode.hasPrefix("/dev/input/event") })
        #expect(monitor.enumerate().allSatisfy { $0.isTouchscreen })
    }
}
