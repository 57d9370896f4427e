import CLinux
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// The device-monitor stage: finds touchscreens through udev, opens the ones the scene selects through
/// libevdev, watches them come and go, and feeds their frames to the pipeline's event queue. Beside it,
/// in files of their own: a device's pass-through grab (PassthroughGrab), the --replay recordings
/// (ReplayQueue, ReplaySource), live mapping and the built-in scene's window (LiveMapping).
public final class InputDevices {
    /// An open device and what goes with it.
    package final class OpenDevice: MappedSource {
        let device: EvdevDevice
        let info: DeviceInfo
        package let index: Int
        package var config: DeviceConfig
        /// The mirror and the grab, while the device passes through.
        let passthrough: PassthroughGrab
        /// A `set device` waits for the panel to be free of fingers (`applyPendingMapping`).
        package var mappingPending = false
        /// A pen: the finger devices it has been paired with (palm rejection).
        var pairedWith: Set<Int> = []

        init(device: EvdevDevice, info: DeviceInfo, index: Int, config: DeviceConfig, pipeline: Pipeline, log: Logger) {
            self.device = device
            self.info = info
            self.index = index
            self.config = config
            passthrough = PassthroughGrab(device: device, index: index, node: info.devnode, pipeline: pipeline, log: log)
        }

        package var node: String { info.devnode }
        package var name: String { device.description.name }
        package var description: DeviceDescription { device.description }
        package var mapping: CoordinateMapping {
            get { device.assembler.mapping }
            set { device.assembler.mapping = newValue }
        }
        package var isNeutral: Bool { device.assembler.isNeutral }
        package var udevCalibration: [Double]? { info.calibrationMatrix }
    }

    package let loop: EventLoop
    package let log: Logger
    package let pipeline: Pipeline
    private var monitor: DeviceMonitor?
    private var open: [String: OpenDevice] = [:]
    private lazy var replays = ReplayQueue(devices: self)
    private var nextIndex = 0
    /// Mirrors seen on the bus, logged once each.
    private var ignoredMirrors: Set<String> = []
    /// Pens ignored for want of an entry and of an open panel of their device: they open with the panel.
    private var waitingPens: [DeviceInfo] = []
    package var liveChanges = LiveMappingChanges()
    package var sizing = BuiltInSceneSizing()
    /// Device lines ({"event":"device",…}) for subscribers.
    public var onDeviceLine: (([UInt8]) -> Void)?
    /// Called after frames or timers changed the pipeline, so the deadline timer can be re-armed.
    public var onActivity: (() -> Void)?

    public init(loop: EventLoop, log: Logger, pipeline: Pipeline) {
        self.loop = loop
        self.log = log
        self.pipeline = pipeline
    }

    private var wantsTablets: Bool { pipeline.scene.devices.contains { $0.tablets } }

    /// A new device index: each device gets its own, for as long as the daemon runs.
    package func takeIndex() -> Int {
        defer { nextIndex += 1 }
        return nextIndex
    }

    /// Enumerates the touchscreens present and starts watching for hotplug. `replaying`: recordings
    /// play as devices too (the log then does not suggest --replay).
    public func start(replaying: Bool = false) {
        do {
            let m = try DeviceMonitor(includeTablets: wantsTablets)
            monitor = m
            try loop.add(m.fd) { [unowned self] _ in self.hotplug() }
        } catch {
            log.warning("udev is not available (\(error)): touchscreens will not be found or hotplugged")
            return
        }
        let found = InputDevices.panelsFirst(monitor!.enumerate())
        for info in found { consider(info) }
        if open.isEmpty {
            let real = found.filter { !$0.isMirror }
            let hint = replaying ? "" : "; plug one in, or replay a recording with --replay FILE"
            log.info(real.isEmpty ? "no touchscreen found\(hint); one plugged in later is picked up"
                                  : "waiting for a touchscreen the scene selects (found \(real.count), none matched its \"devices\")")
        }
    }

    /// Plays recordings as devices (`touchbridged --replay`, ReplayQueue).
    public func replay(_ recordings: [(path: String, recording: Recording)], delay: Double, loop: Bool,
                       together: Bool = false) throws {
        try replays.start(recordings, delay: delay, loop: loop, together: together)
    }

    /// Closes every device and ends every replay (on exit): what is down on them is cancelled.
    public func stop() {
        for node in open.keys.sorted() { close(node, reason: nil) }
        replays.stop()
    }

    /// After a scene reload: the devices stay open (touches in flight keep going), and each takes its
    /// entry in the new scene: its mapping, its grab and whether it passes through. A device the new
    /// scene no longer selects is closed; one it newly selects is opened.
    public func reconfigure() {
        for node in open.keys.sorted() {
            guard let d = open[node] else { continue }
            guard let config = config(for: d.info) else {
                close(node, reason: "no longer selected by the scene")
                continue
            }
            d.config = config
            pipeline.setDeviceConfig(config, device: d.index)
            remap(d, window: pipeline.scene.window.bounds)
            if config.passthrough && !d.passthrough.isOn {
                startPassthrough(d)
            } else if !config.passthrough && d.passthrough.isOn {
                d.passthrough.stop(reason: "the scene no longer passes it through")
            }
            if !d.passthrough.isOn {
                if config.grab && !d.device.isGrabbed { try? d.device.grab() }
                if !config.grab && d.device.isGrabbed { d.device.ungrab() }
            }
        }
        if let m = monitor { for info in InputDevices.panelsFirst(m.enumerate()) { consider(info) } }
        pairPens()
    }

    /// {"event":"device","action":…} lines for the devices present, for a new "devices" subscriber.
    public func presentDeviceLines() -> [[UInt8]] {
        open.keys.sorted().compactMap { node in open[node].map { deviceLine("added", $0) } }
            + replays.playing.filter(\.isPlaying).map { deviceLine("added", $0) }
    }

    /// The open panels the compositor still reads itself (neither a pass-through grab nor `"grab": true`):
    /// a touch the daemon swallows still reaches the compositor from these. (A recording is read by
    /// nobody else; a pen is never grabbed, and is not a panel's finger.)
    package var ungrabbedPanels: [String] {
        open.keys.sorted().filter { open[$0].map { !$0.device.isGrabbed && !$0.device.assembler.isPen } ?? false }
    }

    /// Every device and playing replay, in a stable order (open devices by node, then replays).
    package var mappedSources: [MappedSource] {
        open.keys.sorted().compactMap { open[$0] } + replays.playing
    }

    package func deviceLine(_ action: StaticString, _ source: MappedSource) -> [UInt8] {
        DeviceLine.encode(action: action, device: source.index, node: source.node, name: source.name)
    }

    // MARK: Discovery and hotplug

    private func consider(_ info: DeviceInfo) {
        guard open[info.devnode] == nil else { return }
        if info.isMirror {
            if ignoredMirrors.insert(info.devnode).inserted {
                log.info("ignoring \(info.devnode) \"\(info.name)\": a pass-through mirror, not a panel")
            }
            return
        }
        guard let config = config(for: info) else {
            log.info("ignoring \(info.devnode) \"\(info.name)\": no \"devices\" entry of the scene selects it"
                     + (info.isTablet ? ", and no panel it shares a screen with is open" : ""))
            if info.isTablet && !waitingPens.contains(where: { $0.devnode == info.devnode }) { waitingPens.append(info) }
            return
        }
        let index = nextIndex
        let live = liveConfig(config, index: index, name: info.name, node: info.devnode)
        do {
            let device = try EvdevDevice(path: info.devnode, deviceIndex: index, target: pipeline.scene.window.bounds,
                                         acceptTablets: config.tablets || info.isDisplayPen,
                                         grab: config.grab && !config.passthrough) { m in
                live.configure(&m, window: pipeline.scene.window.bounds, udevCalibration: info.calibrationMatrix)
            }
            nextIndex += 1
            if adoptDefaultScene(for: device.description, index: index) {
                live.configure(&device.assembler.mapping, window: pipeline.scene.window.bounds, udevCalibration: info.calibrationMatrix)
            }
            device.assembler.onWarning = { [log] in log.warning($0) }
            device.onDropped = { [log] in
                log.warning("\(info.devnode): events were lost (SYN_DROPPED: touchbridged fell behind); resynced to the kernel's state, vanished touches cancelled")
            }
            let d = OpenDevice(device: device, info: info, index: index, config: config, pipeline: pipeline, log: log)
            open[info.devnode] = d
            pipeline.setDeviceConfig(config, device: index)
            turnDefaultScene(for: d)            // the sizing panel back under a new index: the window follows it
            // `close` takes the handler out of the loop before the device leaves `open`; this object owns
            // the devices and lives as long as the loop.
            try loop.add(device.fd) { [unowned self, unowned d] _ in self.read(d) }
            let axes = device.description.positionAxes!
            let window = "window \(Int(pipeline.scene.window.bounds.width))×\(Int(pipeline.scene.window.bounds.height)) pt"
            if device.assembler.isPen {
                log.info("pen \(info.devnode) \"\(device.description.name)\" (\(device.description.vendorProduct)): "
                         + "x \(axes.x), y \(axes.y) → \(window); never grabbed or mirrored (the compositor reads the pen itself) [device \(index)]")
            } else {
                log.info("touchscreen \(info.devnode) \"\(device.description.name)\" (\(device.description.vendorProduct)): "
                         + "\(device.description.touchProtocol!), x \(axes.x), y \(axes.y) → \(window)"
                         + (device.isGrabbed ? ", grabbed" : "") + " [device \(index)]")
            }
            onDeviceLine?(deviceLine("added", d))
            if config.passthrough { startPassthrough(d) }
            pairPens()
            // A pen that came first, without an entry of its own, waited for its panel: it may open now.
            if !info.isTablet {
                let ready = waitingPens.filter { sharesDevice($0, info) }
                waitingPens.removeAll { p in ready.contains { $0.devnode == p.devnode } }
                for pen in ready { consider(pen) }
            }
            read(d)
        } catch {
            log.error("cannot open \(error)")
        }
    }

    private func read(_ d: OpenDevice) {
        let result = d.passthrough.read()
        if result == .removed { close(d.node, reason: "removed") } else if d.mappingPending { applyPendingMapping(d) }
        onActivity?()
    }

    private func hotplug() {
        guard let m = monitor else { return }
        while let (action, info) = m.receive() {
            switch action {
            case .added: consider(info)
            case .removed:
                ignoredMirrors.remove(info.devnode)
                waitingPens.removeAll { $0.devnode == info.devnode }
                if open[info.devnode] != nil { close(info.devnode, reason: "removed") }
            }
        }
        onActivity?()
    }

    private func close(_ node: String, reason: String?) {
        guard let d = open.removeValue(forKey: node) else { return }
        loop.remove(d.device.fd)
        // Whatever was down on it is cancelled (C7), not ended: no touch is left stuck, on the socket
        // or on the mirror. Then the mirror goes, then the grab.
        pipeline.handle(d.device.assembler.cancelAll(at: monotonicNow()))
        pipeline.setDeviceConfig(nil, device: d.index)          // a coast it drove stops
        d.passthrough.stop(reason: nil)
        d.device.close()
        if let reason {
            log.info("touchscreen \(node) \"\(d.name)\" \(reason)")
            onDeviceLine?(deviceLine("removed", d))
        }
        onActivity?()
    }

    // MARK: Pens (docs/pens.md)

    /// Touchscreens before pens: a pen without an entry of its own takes its panel's (`config(for:)`).
    package static func panelsFirst(_ devices: [DeviceInfo]) -> [DeviceInfo] {
        devices.filter { !$0.isTablet } + devices.filter(\.isTablet)
    }

    /// A device's configuration: its scene entry; for a pen (never grabbed, never mirrored, whatever
    /// the entry says) without an entry of its own, the entry of an open panel it shares a screen with
    /// (its region and turn; not its calibration, which is the panel's axes').
    private func config(for info: DeviceInfo) -> DeviceConfig? {
        guard info.isTablet else { return pipeline.scene.deviceConfig(for: info) }
        var config: DeviceConfig
        if let own = pipeline.scene.deviceConfig(for: info) {
            config = own
        } else if let panel = open.values.sorted(by: { $0.index < $1.index }).first(where: { !$0.info.isTablet && sharesDevice(info, $0.info) }) {
            config = DeviceConfig()
            config.region = panel.config.region
            config.rotation = panel.config.rotation
            config.flipX = panel.config.flipX
            config.flipY = panel.config.flipY
            config.palmRejection = panel.config.palmRejection
            config.pointerArea = panel.config.pointerArea
        } else {
            return nil
        }
        config.grab = false
        config.passthrough = false
        return config
    }

    /// The same physical device: one libinput device group (LIBINPUT_DEVICE_GROUP), or one parent in
    /// sysfs (the USB device of a Wacom's pen and finger interfaces, the HID device of an I2C controller).
    private func sharesDevice(_ a: DeviceInfo, _ b: DeviceInfo) -> Bool {
        if let g = a.properties["LIBINPUT_DEVICE_GROUP"], g == b.properties["LIBINPUT_DEVICE_GROUP"] { return true }
        if let p = a.physicalParent, p == b.physicalParent { return true }
        return false
    }

    /// Pairs every open pen with the finger panels of its screen (palm rejection): those of the same
    /// physical device when there are any, else those whose entries put them on the same region of the
    /// window (the whole window when neither names one).
    private func pairPens() {
        let devices = open.values.sorted { $0.index < $1.index }
        let panels = devices.filter { !$0.device.assembler.isPen }
        for pen in devices where pen.device.assembler.isPen {
            var mates = panels.filter { sharesDevice(pen.info, $0.info) }
            if mates.isEmpty {
                let window = pipeline.scene.window.bounds
                mates = panels.filter { ($0.config.region ?? window) == (pen.config.region ?? window) }
            }
            for panel in mates where !pen.pairedWith.contains(panel.index) {
                pen.pairedWith.insert(panel.index)
                pipeline.pairPen(pen.index, withFingers: panel.index)
                log.info("pen \(pen.node) shares a screen with touchscreen \(panel.node): its fingers are palms while the pen is near"
                         + (pen.config.palmRejection && panel.config.palmRejection ? "" : " (palm rejection is off in the scene)"))
            }
        }
    }

    /// Starts the device's pass-through; a failed write to any mirror reaches the grab of its device.
    private func startPassthrough(_ d: OpenDevice) {
        d.passthrough.start()
        pipeline.passthrough?.onFailure = { [unowned self] index in
            self.open.values.first { $0.index == index }?.passthrough.mirrorFailed()
        }
    }
}
