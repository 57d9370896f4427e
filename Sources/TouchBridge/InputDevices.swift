import CLinux
import Glibc
import TouchCore
import TouchInput

/// The device-monitor stage: finds touchscreens through udev, opens the ones the scene selects through
/// libevdev, watches them come and go, and feeds their frames to the pipeline's event queue.
/// A recording given with --replay is one more device, played in real time.
public final class InputDevices {
    private let loop: EventLoop
    private let log: Logger
    private let pipeline: Pipeline
    private var monitor: DeviceMonitor?
    private var open: [String: EvdevDevice] = [:]
    private var infos: [String: DeviceInfo] = [:]
    private var replays: [ReplaySource] = []
    private var nextIndex = 0
    /// The built-in scene is resized once, for the first device.
    private var sizedDefaultScene = false
    /// Device lines ({"event":"device",…}) for subscribers.
    public var onDeviceLine: (([UInt8]) -> Void)?
    /// Called after frames or timers changed the pipeline, so the deadline timer can be re-armed.
    public var onActivity: (() -> Void)? {
        get { activityCallback?.takeUnretainedValue().call }
        set { activityCallback = callbacks.keep(newValue.map(Hook.init)) }
    }
    /// `onActivity`, called after every read without counting references (TouchCore's Callback.swift).
    private var activityCallback: Unmanaged<Hook>?
    private var callbacks = CallbackOwner()

    public init(loop: EventLoop, log: Logger, pipeline: Pipeline) {
        self.loop = loop
        self.log = log
        self.pipeline = pipeline
    }

    private var configs: [DeviceConfig] { pipeline.scene.devices }
    private var wantsTablets: Bool { configs.contains { $0.tablets } }

    /// Enumerates the touchscreens present and starts watching for hotplug.
    public func start() {
        do {
            let m = try DeviceMonitor(includeTablets: wantsTablets)
            monitor = m
            try loop.add(m.fd) { [unowned self] _ in self.hotplug() }
        } catch {
            log.warning("udev is not available (\(error)): touchscreens will not be found or hotplugged")
            return
        }
        let found = monitor!.enumerate()
        for info in found { consider(info) }
        if open.isEmpty {
            log.info(found.isEmpty ? "waiting for a touchscreen (none found; plug one in, or replay a recording with --replay FILE)"
                                   : "waiting for a touchscreen the scene selects (found \(found.count), none matched its \"devices\")")
        }
    }

    /// Closes every device (on exit, or before a reload re-opens them).
    public func stop() {
        for (node, _) in open { close(node, reason: nil) }
        for r in replays { r.stop() }
        replays = []
    }

    /// After a scene reload: the devices are opened again with the new scene's selection and mapping.
    public func reopen() {
        for (node, _) in open { close(node, reason: nil) }
        if let m = monitor { for info in m.enumerate() { consider(info) } }
    }

    /// {"event":"device","action":…} lines for the devices present, for a new "devices" subscriber.
    public func presentDeviceLines() -> [[UInt8]] {
        open.keys.sorted().compactMap { node in open[node].map { deviceLine("added", node: node, name: $0.description.name) } } +
            replays.filter(\.isPlaying).map { deviceLine("added", node: $0.node, name: $0.recording.device.name) }
    }

    private func config(for info: DeviceInfo) -> DeviceConfig? {
        if configs.isEmpty { return DeviceConfig() }
        return configs.first { $0.selector.matches(info) }
    }

    private func consider(_ info: DeviceInfo) {
        guard open[info.devnode] == nil else { return }
        guard let config = config(for: info) else {
            log.info("ignoring \(info.devnode) \"\(info.name)\": no \"devices\" entry of the scene selects it")
            return
        }
        let index = nextIndex
        do {
            let device = try EvdevDevice(path: info.devnode, deviceIndex: index, target: pipeline.scene.window.bounds,
                                         acceptTablets: config.tablets, grab: config.grab) { m in
                config.configure(&m, window: pipeline.scene.window.bounds, udevCalibration: info.calibrationMatrix)
            }
            nextIndex += 1
            if adoptDefaultScene(for: device.description) {
                config.configure(&device.assembler.mapping, window: pipeline.scene.window.bounds, udevCalibration: info.calibrationMatrix)
            }
            device.assembler.onWarning = { [log] in log.warning($0) }
            device.onDropped = { [log] in
                log.warning("\(info.devnode): events were lost (SYN_DROPPED: touchbridged fell behind); resynced to the kernel's state, vanished touches cancelled")
            }
            open[info.devnode] = device
            infos[info.devnode] = info
            let node = info.devnode
            // Read on every wakeup of the device: its references are not counted (`Unmanaged`: a
            // counted, weak or unowned one costs runtime calls each time). Both outlive the handler:
            // `close` takes it out of the loop before the device leaves `open`, and after `close`
            // `read` no longer touches the device; this object owns the devices and lives as long as
            // the loop.
            let devices = Unmanaged.passUnretained(self), reader = Unmanaged.passUnretained(device)
            try loop.add(device.fd) { _ in
                devices._withUnsafeGuaranteedRef { d in reader._withUnsafeGuaranteedRef { d.read($0, node: node) } }
            }
            let axes = device.description.positionAxes!
            log.info("touchscreen \(info.devnode) \"\(device.description.name)\" (\(device.description.vendorProduct)): "
                     + "\(device.description.touchProtocol!), x \(axes.x), y \(axes.y) → window "
                     + "\(Int(pipeline.scene.window.bounds.width))×\(Int(pipeline.scene.window.bounds.height)) pt"
                     + (device.isGrabbed ? ", grabbed" : "") + " [device \(index)]")
            onDeviceLine?(deviceLine("added", node: info.devnode, name: device.description.name))
            read(device, node: info.devnode)
        } catch {
            log.error("cannot open \(error)")
        }
    }

    /// The built-in scene takes the first device's physical size (README "The built-in scene").
    /// Returns true when the window changed.
    @discardableResult
    func adoptDefaultScene(for device: DeviceDescription) -> Bool {
        guard pipeline.scene.isDefault, !sizedDefaultScene else { return false }
        sizedDefaultScene = true
        let sized = Scene.builtIn(for: device)
        guard sized.window.bounds != pipeline.scene.window.bounds else { return false }
        pipeline.replace(scene: sized, at: monotonicNow())
        for (_, d) in open { d.assembler.mapping.target = sized.window.bounds }
        return true
    }

    private func read(_ device: EvdevDevice, node: String) {
        let result = device.readFrames { pipeline.handle($0) }
        if result == .removed { close(node, reason: "removed") }
        activityCallback?._withUnsafeGuaranteedRef { $0.call() }
    }

    private func hotplug() {
        guard let m = monitor else { return }
        while let (action, info) = m.receive() {
            switch action {
            case .added: consider(info)
            case .removed: if open[info.devnode] != nil { close(info.devnode, reason: "removed") }
            }
        }
        activityCallback?._withUnsafeGuaranteedRef { $0.call() }
    }

    private func close(_ node: String, reason: String?) {
        guard let device = open.removeValue(forKey: node) else { return }
        infos[node] = nil
        loop.remove(device.fd)
        // Whatever was down on it is cancelled (C7), not ended: no touch is left stuck.
        pipeline.handle(device.assembler.cancelAll(at: monotonicNow()))
        device.close()
        if let reason {
            log.info("touchscreen \(node) \"\(device.description.name)\" \(reason)")
            onDeviceLine?(deviceLine("removed", node: node, name: device.description.name))
        }
        activityCallback?._withUnsafeGuaranteedRef { $0.call() }
    }

    // MARK: Replays

    /// Plays `recording` as a live device after `delay` seconds.
    public func replay(_ recording: Recording, path: String, delay: Double) throws {
        let info = DeviceInfo(devnode: "replay:" + path, name: recording.device.name,
                              vendor: recording.device.vendor, product: recording.device.product)
        let config = self.config(for: info) ?? DeviceConfig()
        let index = nextIndex
        nextIndex += 1
        adoptDefaultScene(for: recording.device)
        guard var mapping = CoordinateMapping(device: recording.device, target: pipeline.scene.window.bounds) else {
            throw ServerError("\(path): the recording's device has no position axes")
        }
        config.configure(&mapping, window: pipeline.scene.window.bounds, udevCalibration: nil)
        let source = try ReplaySource(recording: recording, node: info.devnode, mapping: mapping, deviceIndex: index,
                                      delay: delay, loop: loop, log: log)
        source.onFrame = { [unowned self] in self.pipeline.handle($0); self.activityCallback?._withUnsafeGuaranteedRef { $0.call() } }
        source.onStart = { [unowned self] in
            log.info("replaying \(path) as device \(index) \"\(recording.device.name)\" (\(recording.events.count) events)")
            self.onDeviceLine?(self.deviceLine("added", node: info.devnode, name: recording.device.name))
        }
        source.onEnd = { [unowned self] in
            log.info("replay of \(path) finished")
            self.onDeviceLine?(self.deviceLine("removed", node: info.devnode, name: recording.device.name))
        }
        replays.append(source)
        source.start()
    }

    func deviceLine(_ action: StaticString, node: String, name: String) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("device")
        w.key("action"); w.staticString(action)
        w.key("node"); w.string(node)
        w.key("name"); w.string(name)
        w.endObject()
        return w.bytes
    }
}

/// A recording played as a live device: its events keep their spacing and are stamped on
/// CLOCK_MONOTONIC, as the kernel would stamp them.
final class ReplaySource {
    let recording: Recording
    let node: String
    private var player: RecordingPlayer
    private let timer: Timer
    private let loop: EventLoop
    private let delay: Double
    private var offset = 0.0
    private var next = 0
    private(set) var isPlaying = false
    var onFrame: ((DigitizerFrame) -> Void)?
    var onStart: (() -> Void)?
    var onEnd: (() -> Void)?

    init(recording: Recording, node: String, mapping: CoordinateMapping, deviceIndex: Int, delay: Double,
         loop: EventLoop, log: Logger) throws {
        self.recording = recording
        self.node = node
        self.delay = delay
        self.loop = loop
        player = RecordingPlayer(device: recording.device, mapping: mapping, deviceIndex: deviceIndex) { log.warning("\(node): \($0)") }
        timer = try Timer()
    }

    func start() {
        guard let first = recording.events.first else { onStart?(); onEnd?(); return }
        offset = monotonicNow() + delay - first.time
        try? loop.add(timer.fd) { [unowned self] _ in self.fire() }
        timer.arm(at: first.time + offset)
    }

    func stop() {
        loop.remove(timer.fd)
        timer.arm(at: nil)
    }

    private func fire() {
        timer.acknowledge()
        if !isPlaying {
            isPlaying = true
            onStart?()
        }
        let now = monotonicNow()
        while next < recording.events.count {
            var e = recording.events[next]
            e.time += offset
            guard e.time <= now else { break }
            next += 1
            if let f = player.play(e) { onFrame?(f) }
        }
        if next < recording.events.count {
            timer.arm(at: recording.events[next].time + offset)
        } else {
            isPlaying = false
            stop()
            onEnd?()
        }
    }
}
