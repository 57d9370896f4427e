import CEvdev
import Glibc
import TouchCore
import TouchSystem

/// A live evdev device read through libevdev: the kernel end of the pipeline (IOHIDFamily on iOS).
///
/// Opened non-blocking with CLOCK_MONOTONIC timestamps; `readFrames` reads what is waiting, handles
/// SYN_DROPPED with libevdev's sync (LIBEVDEV_READ_FLAG_FORCE_SYNC, LIBEVDEV_READ_FLAG_SYNC) and
/// resyncs the frame assembler to the state libevdev reads back, and reports removal (ENODEV). Events
/// go through the same `FrameAssembler` as recordings.
public final class EvdevDevice {
    public let path: String
    public let description: DeviceDescription
    public let fd: FileDescriptor
    public var assembler: FrameAssembler
    public private(set) var isGrabbed = false
    /// Called when the kernel reported SYN_DROPPED (this reader fell behind), after the resync.
    public var onDropped: (() -> Void)?
    private var dev: OpaquePointer?

    /// What a read found.
    public enum ReadResult: Equatable {
        /// Everything available was read (EAGAIN).
        case drained
        /// The device is gone (ENODEV); its touches were cancelled in the frames returned.
        case removed
    }

    /// Opens `path`. `acceptTablets` also admits pen tablets; `grab` takes the device exclusively
    /// (EVIOCGRAB), so the desktop does not see the touches too.
    public init(path: String, deviceIndex: Int, target: Rect, acceptTablets: Bool = false,
                grab: Bool = false, configure: (inout CoordinateMapping) -> Void = { _ in }) throws {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError.opening(path, errno: errno) }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else {
            Glibc.close(fd)
            throw DeviceError.opening(path, errno: -rc)
        }
        let description = EvdevDevice.describe(dev)
        guard description.positionAxes != nil else {
            libevdev_free(dev); Glibc.close(fd)
            throw DeviceError.noPositionAxes(path: path, name: description.name)
        }
        let kind = description.kind
        guard kind == .touchscreen || (acceptTablets && kind == .tablet) else {
            libevdev_free(dev); Glibc.close(fd)
            throw DeviceError.notATouchscreen(path: path, name: description.name, kind: kind)
        }
        _ = libevdev_set_clock_id(dev, CLOCK_MONOTONIC)
        if grab {
            let g = libevdev_grab(dev, LIBEVDEV_GRAB)
            if g != 0 {
                libevdev_free(dev); Glibc.close(fd)
                throw g == -EBUSY ? DeviceError.busy(path: path) : DeviceError.system(SystemError("EVIOCGRAB", path, errno: -g))
            }
            isGrabbed = true
        }
        var mapping = CoordinateMapping(device: description, target: target)!
        configure(&mapping)
        self.path = path
        self.fd = FileDescriptor(rawValue: fd)
        self.dev = dev
        self.description = description
        self.assembler = FrameAssembler(device: description, mapping: mapping, deviceIndex: deviceIndex)
        // Fingers already down are not touches of ours, but the assembler must know of them
        // (`FrameAssembler.isNeutral`): libevdev has just read the device's state.
        assembler.seed(from: kernelState())
    }

    deinit { close() }

    /// Takes the device exclusively (EVIOCGRAB): from now on no other reader, the compositor included,
    /// gets its events.
    public func grab() throws {
        guard let dev, !isGrabbed else { return }
        let g = libevdev_grab(dev, LIBEVDEV_GRAB)
        guard g == 0 else {
            throw g == -EBUSY ? DeviceError.busy(path: path) : DeviceError.system(SystemError("EVIOCGRAB", path, errno: -g))
        }
        isGrabbed = true
    }

    /// Gives the device back to every reader.
    public func ungrab() {
        guard let dev, isGrabbed else { return }
        _ = libevdev_grab(dev, LIBEVDEV_UNGRAB)
        isGrabbed = false
    }

    /// Closes the device (releasing a grab).
    public func close() {
        guard let dev else { return }
        if isGrabbed { _ = libevdev_grab(dev, LIBEVDEV_UNGRAB) }
        libevdev_free(dev)
        fd.close()
        self.dev = nil
        isGrabbed = false
    }

    /// Reads every available event; `frame` gets each frame in order. After SYN_DROPPED the assembler
    /// resyncs to the device's state as libevdev reads it back.
    ///
    /// Events are read straight from the device node, as many as are waiting in one read(2): a read
    /// that returns fewer than asked for has emptied the kernel's buffer, so a wakeup costs one
    /// read. (libevdev_next_event reads once per event in non-blocking mode.) libevdev does what it
    /// is good at: describing the device, grabbing it, and reading its state back after a drop.
    @discardableResult
    public func readFrames(_ frame: (DigitizerFrame) -> Void) -> ReadResult {
        guard dev != nil else { return .removed }
        let size = MemoryLayout<input_event>.stride
        while true {
            let n: Int
            switch readBuffer.withUnsafeMutableBytes({ fd.read(into: $0) }) {
            case .success(nil): return .drained
            case .success(let count?): n = count
            case .failure:
                // ENODEV (unplugged) or a read error: the device is gone for us.
                return removed(at: lastTime, frame)
            }
            let count = n / size
            var i = 0
            while i < count {
                let ev = readBuffer[i]
                i += 1
                if ev.type == UInt16(EV_SYN) && ev.code == UInt16(SYN_DROPPED) {
                    // The kernel's buffer overflowed. What else was read came before libevdev reads the
                    // state back, which includes it: it is dropped with the rest of the broken frame.
                    if let end = recoverFromDrop(at: EvdevDevice.event(ev).time, frame) { return end }
                    break
                }
                // The time is worked out for SYN events only: the assembler reads no other's, and
                // floating point is dear under emulation.
                let e = ev.type == UInt16(EV_SYN) ? EvdevDevice.event(ev)
                    : InputEvent(time: 0, type: ev.type, code: ev.code, value: ev.value)
                if let f = assembler.feed(e) { frame(f) }
            }
            if count < readBuffer.count { return .drained }     // a short read: nothing more was waiting
        }
    }

    /// What one read(2) may take: enough for several frames of a ten-finger panel.
    private var readBuffer = [input_event](repeating: input_event(), count: 256)

    /// After SYN_DROPPED: libevdev's sync (LIBEVDEV_READ_FLAG_FORCE_SYNC, then the sync events
    /// drained) discards what is pending and reads keys, axes and slots back with ioctls; the assembler
    /// resyncs to that state, so contacts that vanished meanwhile are cancelled. Events libevdev read
    /// after its snapshot are then taken from it (another drop among them is handled the same way),
    /// until it has nothing left and reading goes back to the device node. Returns nil then, or
    /// `.removed` when the device went away.
    private func recoverFromDrop(at time: Double, _ frame: (DigitizerFrame) -> Void) -> ReadResult? {
        guard let dev else { return .removed }
        let normal = UInt32(LIBEVDEV_READ_FLAG_NORMAL.rawValue)
        let sync = UInt32(LIBEVDEV_READ_FLAG_SYNC.rawValue)
        let syncStatus = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)
        var ev = input_event()
        var dropTime = time
        var rc = libevdev_next_event(dev, UInt32(LIBEVDEV_READ_FLAG_FORCE_SYNC.rawValue), &ev)
        while true {
            if rc == syncStatus {
                _ = assembler.feed(InputEvent(time: dropTime, type: EventType.syn, code: SynCode.dropped, value: 0))
                var s = libevdev_next_event(dev, sync, &ev)
                while s == syncStatus { s = libevdev_next_event(dev, sync, &ev) }
                frame(assembler.resync(to: kernelState(), at: dropTime))
                onDropped?()
                if s == -ENODEV { return removed(at: dropTime, frame) }
            } else if rc == Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue) {
                if let f = assembler.feed(EvdevDevice.event(ev)) { frame(f) }
            } else if rc == -EAGAIN {
                return nil
            } else if rc != -EINTR {
                return removed(at: lastTime, frame)
            }
            rc = libevdev_next_event(dev, normal, &ev)
            if rc == syncStatus { dropTime = EvdevDevice.event(ev).time }
        }
    }

    private var lastTime: Double { MonotonicClock.seconds() }

    private func removed(at time: Double, _ frame: (DigitizerFrame) -> Void) -> ReadResult {
        frame(assembler.cancelAll(at: time))
        return .removed
    }

    /// The kernel's state as libevdev knows it (EVIOCGABS, EVIOCGKEY, EVIOCGMTSLOTS).
    func kernelState() -> KernelState {
        guard let dev else { return KernelState(slotCount: 0) }
        var state = KernelState(device: description)
        let slots = max(0, Int(libevdev_get_num_slots(dev)))
        for slot in 0..<min(slots, state.slots.count) {
            for code in AbsCode.slotAxes where description.has(type: EventType.abs, code: code) {
                state.slots[slot][KernelState.slotIndex(code)] = libevdev_get_slot_value(dev, UInt32(slot), UInt32(code))
            }
        }
        state.currentSlot = Int(libevdev_get_current_slot(dev))
        for code in description.codes[EventType.abs] ?? [] where !AbsCode.slotAxes.contains(code) {
            state.abs[code] = libevdev_get_event_value(dev, UInt32(EventType.abs), UInt32(code))
        }
        for code in description.codes[EventType.key] ?? []
        where libevdev_get_event_value(dev, UInt32(EventType.key), UInt32(code)) != 0 {
            state.keys.insert(code)
        }
        return state
    }

    static func event(_ ev: input_event) -> InputEvent {
        InputEvent(time: Double(ev.time.tv_sec) + Double(ev.time.tv_usec) / 1e6,
                   type: ev.type, code: ev.code, value: ev.value)
    }

    /// What libevdev says about the device.
    static func describe(_ dev: OpaquePointer) -> DeviceDescription {
        var d = DeviceDescription(name: libevdev_get_name(dev).map { String(cString: $0) } ?? "")
        d.bustype = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev))
        d.vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev))
        d.product = UInt16(truncatingIfNeeded: libevdev_get_id_product(dev))
        d.version = UInt16(truncatingIfNeeded: libevdev_get_id_version(dev))
        for p in 0..<32 where libevdev_has_property(dev, UInt32(p)) != 0 { d.properties.insert(p) }
        for code in UInt16(0x100)...KeyCode.max where libevdev_has_event_code(dev, UInt32(EventType.key), UInt32(code)) != 0 {
            d.codes[EventType.key, default: []].insert(code)
        }
        for code in UInt16(0)...AbsCode.max where libevdev_has_event_code(dev, UInt32(EventType.abs), UInt32(code)) != 0 {
            if let a = libevdev_get_abs_info(dev, UInt32(code)) {
                d.addAbs(code, AbsInfo(value: a.pointee.value, minimum: a.pointee.minimum, maximum: a.pointee.maximum,
                                       fuzz: a.pointee.fuzz, flat: a.pointee.flat, resolution: a.pointee.resolution))
            }
        }
        return d
    }
}
