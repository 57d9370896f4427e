import CLinux
import Glibc
import TouchCore
import TouchInput

/// The device-monitor stage: finds touchscreens through udev, opens the ones the scene selects through
/// libevdev, watches them come and go, and feeds their frames to the pipeline's event queue.
/// A recording given with --replay is one more device, played in real time.
///
/// A pass-through device (README "Pass-through") also gets a mirror, a uinput copy of it that the
/// compositor reads, and is grabbed so that the compositor no longer reads the panel itself:
/// - the mirror is made first; if it cannot be (no /dev/uinput, no permission) the device is read
///   ungrabbed, as without pass-through: a failed pass-through never leaves the compositor without a
///   panel;
/// - the grab waits until no finger is on the panel (grabbing mid-touch would leave the compositor
///   with a touch that never lifts); a finger that lands as the grab is taken gives the panel back
///   until it lifts;
/// - when the device goes away or the daemon stops: what is down on the mirror is cancelled, the
///   mirror is destroyed, the device let go of, in that order. (SIGKILL: the kernel drops the grab and
///   the mirror with the daemon's descriptors.)
public final class InputDevices {
    /// An open device and what goes with it.
    private final class OpenDevice: MappedSource {
        let device: EvdevDevice
        let info: DeviceInfo
        let index: Int
        var config: DeviceConfig
        /// The pass-through mirror, while the device passes through.
        var mirror: UinputDevice?
        /// When the grab was taken (CLOCK_MONOTONIC); nil while the compositor reads the panel.
        var grabbedAt: Double?
        /// The wait for a neutral panel was logged.
        var toldWaiting = false
        /// A `set device` waits for the panel to be free of fingers (`applyPendingMapping`).
        var mappingPending = false

        init(device: EvdevDevice, info: DeviceInfo, index: Int, config: DeviceConfig) {
            self.device = device
            self.info = info
            self.index = index
            self.config = config
        }

        var node: String { info.devnode }
        var name: String { device.description.name }
        var mapping: CoordinateMapping {
            get { device.assembler.mapping }
            set { device.assembler.mapping = newValue }
        }
        var isNeutral: Bool { device.assembler.isNeutral }
        var udevCalibration: [Double]? { info.calibrationMatrix }
    }

    private let loop: EventLoop
    private let log: Logger
    private let pipeline: Pipeline
    private var monitor: DeviceMonitor?
    private var open: [String: OpenDevice] = [:]
    private var replays: [ReplaySource] = []
    private var nextIndex = 0
    /// The built-in scene is resized once, for the first device.
    private var sizedDefaultScene = false
    /// The device the built-in scene took its size from: turning it by 90° turns the window too.
    private var sizingDevice: (index: Int, description: DeviceDescription)?
    /// Mirrors seen on the bus, logged once each.
    private var ignoredMirrors: Set<String> = []
    /// Live mapping changes (protocol 2 `set device`), oldest first: a device takes, in order, every
    /// change whose target selects it, so that the later change wins. A change drops the parts it
    /// overrides from the earlier changes its target covers, so the list stays as short as the
    /// distinct targets in use.
    private var liveChanges: [(target: ClientCommand.DeviceTarget, change: ClientCommand.MappingChange)] = []
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
        let found = monitor!.enumerate()
        for info in found { consider(info) }
        if open.isEmpty {
            let real = found.filter { !$0.isMirror }
            let hint = replaying ? "" : "; plug one in, or replay a recording with --replay FILE"
            log.info(real.isEmpty ? "no touchscreen found\(hint); one plugged in later is picked up"
                                  : "waiting for a touchscreen the scene selects (found \(real.count), none matched its \"devices\")")
        }
    }

    /// Closes every device and ends every replay (on exit): what is down on them is cancelled.
    public func stop() {
        for node in open.keys.sorted() { close(node, reason: nil) }
        replayLoop = false
        replayQueue = []
        for r in replays { r.finish() }
        replays = []
    }

    /// After a scene reload: the devices stay open (touches in flight keep going), and each takes its
    /// entry in the new scene: its mapping, its grab and whether it passes through. A device the new
    /// scene no longer selects is closed; one it newly selects is opened.
    public func reconfigure() {
        for node in open.keys.sorted() {
            guard let d = open[node] else { continue }
            guard let config = pipeline.scene.deviceConfig(for: d.info) else {
                close(node, reason: "no longer selected by the scene")
                continue
            }
            d.config = config
            remap(d, window: pipeline.scene.window.bounds)
            if config.passthrough && d.mirror == nil {
                startPassthrough(d)
            } else if !config.passthrough && d.mirror != nil {
                stopPassthrough(d, reason: "the scene no longer passes it through")
            }
            if d.mirror == nil {
                if config.grab && !d.device.isGrabbed { try? d.device.grab() }
                if !config.grab && d.device.isGrabbed { d.device.ungrab() }
            }
        }
        if let m = monitor { for info in m.enumerate() { consider(info) } }
    }

    /// {"event":"device","action":…} lines for the devices present, for a new "devices" subscriber.
    public func presentDeviceLines() -> [[UInt8]] {
        open.keys.sorted().compactMap { node in open[node].map { deviceLine("added", $0) } } +
            replays.filter(\.isPlaying).map { deviceLine("added", $0) }
    }

    private func consider(_ info: DeviceInfo) {
        guard open[info.devnode] == nil else { return }
        if info.isMirror {
            if ignoredMirrors.insert(info.devnode).inserted {
                log.info("ignoring \(info.devnode) \"\(info.name)\": a pass-through mirror, not a panel")
            }
            return
        }
        guard let config = pipeline.scene.deviceConfig(for: info) else {
            log.info("ignoring \(info.devnode) \"\(info.name)\": no \"devices\" entry of the scene selects it")
            return
        }
        let index = nextIndex
        let mapped = mapping(config, index: index, name: info.name, node: info.devnode)
        do {
            let device = try EvdevDevice(path: info.devnode, deviceIndex: index, target: pipeline.scene.window.bounds,
                                         acceptTablets: config.tablets, grab: config.grab && !config.passthrough) { m in
                mapped.configure(&m, window: pipeline.scene.window.bounds, udevCalibration: info.calibrationMatrix)
            }
            nextIndex += 1
            if adoptDefaultScene(for: device.description, index: index) {
                mapped.configure(&device.assembler.mapping, window: pipeline.scene.window.bounds, udevCalibration: info.calibrationMatrix)
            }
            device.assembler.onWarning = { [log] in log.warning($0) }
            device.onDropped = { [log] in
                log.warning("\(info.devnode): events were lost (SYN_DROPPED: touchbridged fell behind); resynced to the kernel's state, vanished touches cancelled")
            }
            let d = OpenDevice(device: device, info: info, index: index, config: config)
            open[info.devnode] = d
            turnDefaultScene(for: d)            // the sizing panel back under a new index: the window follows it
            // `close` takes the handler out of the loop before the device leaves `open`; this object owns
            // the devices and lives as long as the loop.
            try loop.add(device.fd) { [unowned self, unowned d] _ in self.read(d) }
            let axes = device.description.positionAxes!
            log.info("touchscreen \(info.devnode) \"\(device.description.name)\" (\(device.description.vendorProduct)): "
                     + "\(device.description.touchProtocol!), x \(axes.x), y \(axes.y) → window "
                     + "\(Int(pipeline.scene.window.bounds.width))×\(Int(pipeline.scene.window.bounds.height)) pt"
                     + (device.isGrabbed ? ", grabbed" : "") + " [device \(index)]")
            onDeviceLine?(deviceLine("added", d))
            if config.passthrough { startPassthrough(d) }
            read(d)
        } catch {
            log.error("cannot open \(error)")
        }
    }

    /// The built-in scene takes the first device's physical size (README "The built-in scene").
    /// Returns true when the window changed. The same panel coming back (unplugged and plugged in
    /// again, under a new index) is the sizing device again, so that turning it turns the window.
    @discardableResult
    func adoptDefaultScene(for device: DeviceDescription, index: Int) -> Bool {
        guard pipeline.scene.isDefault else { return false }
        if let sizing = sizingDevice, sizing.index != index, sizing.description == device,
           !mappedSources.contains(where: { $0.index == sizing.index }) {
            sizingDevice = (index, device)
            return false
        }
        guard !sizedDefaultScene else { return false }
        sizedDefaultScene = true
        sizingDevice = (index, device)
        let sized = Scene.builtIn(for: device, passthrough: pipeline.scene.passesEveryDevice,
                                  rotation: pipeline.scene.rotationForEveryDevice)
        guard sized.window.bounds != pipeline.scene.window.bounds else { return false }
        pipeline.replace(scene: sized, at: monotonicNow())
        for (_, d) in open { d.device.assembler.mapping.target = sized.window.bounds }
        return true
    }

    private func read(_ d: OpenDevice) {
        let result: EvdevDevice.ReadResult
        if d.mirror == nil {
            result = d.device.readFrames { pipeline.handle($0) }
        } else {
            // A frame stamped before the grab with a finger in it: that finger landed between the look
            // at a neutral panel and the grab, and the compositor has had its touch-down.
            var landedAtGrab = false
            result = d.device.readFrames { f in
                if let g = d.grabbedAt, f.timestamp <= g, !f.contacts.isEmpty { landedAtGrab = true }
                pipeline.handle(f)
            }
            if landedAtGrab && d.grabbedAt != nil {
                release(d)
                log.info("pass-through: a finger landed on \(d.node) as it was grabbed; the compositor keeps the panel until it lifts")
            }
            if result != .removed { grabIfNeutral(d) }
        }
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
        let now = monotonicNow()
        pipeline.handle(d.device.assembler.cancelAll(at: now))
        if d.mirror != nil { stopPassthrough(d, reason: nil) }
        d.device.close()
        if let reason {
            log.info("touchscreen \(node) \"\(d.name)\" \(reason)")
            onDeviceLine?(deviceLine("removed", d))
        }
        onActivity?()
    }

    // MARK: Pass-through

    /// Makes the device's mirror, then grabs the device once no finger is on it.
    private func startPassthrough(_ d: OpenDevice) {
        guard d.device.description.kind == .touchscreen else {
            log.warning("pass-through: \(d.node) \"\(d.name)\" is a \(d.device.description.kind.rawValue); only touchscreens pass through: reading it ungrabbed")
            return
        }
        guard pipeline.scene.allowsPassthrough else { return }
        let description = MirrorDescription.of(d.device.description)
        do {
            let mirror = try UinputDevice(description: description, phys: MirrorDescription.phys(forSourceNode: d.node))
            d.mirror = mirror
            if d.device.isGrabbed { d.device.ungrab() }      // grabbed for "grab": taken again below, when neutral
            pipeline.addMirror(device: d.index, name: d.name, source: d.device.description, sink: mirror)
            pipeline.passthrough?.onFailure = { [unowned self] index in self.mirrorFailed(index) }
            log.info("pass-through: \(d.node) \"\(d.name)\" → mirror \(mirror.devnode ?? "(node unknown)") \"\(description.name)\"")
            grabIfNeutral(d)
        } catch {
            log.error("pass-through for \(d.node) \"\(d.name)\" is off: \(error); reading it ungrabbed, the compositor keeps the panel")
        }
    }

    /// Cancels what is down on the mirror, destroys it and gives the device back to the compositor.
    private func stopPassthrough(_ d: OpenDevice, reason: String?) {
        guard let mirror = d.mirror else { return }
        pipeline.removeMirror(device: d.index, at: monotonicNow())
        mirror.destroy()
        d.mirror = nil
        release(d)
        if let reason { log.info("pass-through: \(d.node) \"\(d.name)\": \(reason); mirror removed, the compositor reads the panel again") }
    }

    /// Writing to a mirror failed: it is dropped and the panel given back.
    private func mirrorFailed(_ index: Int) {
        guard let d = open.values.first(where: { $0.index == index }), let mirror = d.mirror else { return }
        pipeline.removeMirror(device: index, at: nil)
        mirror.destroy()
        d.mirror = nil
        release(d)
    }

    /// Takes the grab when the panel is neutral (no finger down, ours or the compositor's).
    private func grabIfNeutral(_ d: OpenDevice) {
        guard d.mirror != nil, d.grabbedAt == nil else { return }
        guard d.device.assembler.isNeutral else {
            if !d.toldWaiting {
                d.toldWaiting = true
                log.info("pass-through: a finger is on \(d.node) \"\(d.name)\"; the grab waits until it lifts (the compositor keeps that touch)")
            }
            return
        }
        do {
            try d.device.grab()
        } catch {
            log.error("pass-through: cannot grab \(d.node): \(error); the compositor keeps the panel")
            return
        }
        let now = monotonicNow()
        d.grabbedAt = now
        d.toldWaiting = false
        pipeline.passthrough?.setExclusive(device: d.index, since: now)
        log.info("pass-through: grabbed \(d.node) \"\(d.name)\"; the compositor reads the mirror")
    }

    /// The compositor reads the panel again (the grab is released).
    private func release(_ d: OpenDevice) {
        d.grabbedAt = nil
        pipeline.passthrough?.setExclusive(device: d.index, since: nil)
        d.device.ungrab()
    }

    // MARK: Replays

    /// Plays `recordings` as live devices, one after another, each a device of its own, the first after
    /// `delay` seconds; with `loop`, again and again. The end of a recording is its device going away:
    /// once the pending timers have run, touches still down are cancelled.
    /// Each recording keeps its device index on every pass of a loop: it is one device that comes
    /// and goes, so clients (and `set --device N`) can follow it.
    public func replay(_ recordings: [(path: String, recording: Recording)], delay: Double, loop: Bool) throws {
        for (path, r) in recordings where r.device.positionAxes == nil {
            throw ServerError("\(path): the recording's device has no position axes")
        }
        // The scene must select each recording as it would the device (`touchbridgectl replay` alike).
        for (_, r) in recordings { _ = try pipeline.scene.replayConfig(for: r) }
        replayQueue = recordings.map { (path: $0.path, recording: $0.recording, index: takeIndex()) }
        replayLoop = loop
        startReplay(0, delay: delay)
    }

    private var replayQueue: [(path: String, recording: Recording, index: Int)] = []
    private var replayLoop = false

    private func takeIndex() -> Int {
        defer { nextIndex += 1 }
        return nextIndex
    }

    private func startReplay(_ position: Int, delay: Double) {
        let (path, recording, index) = replayQueue[position]
        let info = DeviceInfo(devnode: "replay:" + path, name: recording.device.name,
                              vendor: recording.device.vendor, product: recording.device.product)
        let config: DeviceConfig
        do {
            config = try pipeline.scene.replayConfig(for: recording)     // a reloaded scene may no longer take it
        } catch {
            log.error("cannot replay: \(error)")
            return finishedReplay(position)
        }
        adoptDefaultScene(for: recording.device, index: index)
        var mapping = CoordinateMapping(device: recording.device, target: pipeline.scene.window.bounds)!
        self.mapping(config, index: index, name: info.name, node: info.devnode)
            .configure(&mapping, window: pipeline.scene.window.bounds, udevCalibration: nil)
        let source: ReplaySource
        do {
            source = try ReplaySource(recording: recording, node: info.devnode, mapping: mapping, deviceIndex: index,
                                      config: config, delay: delay, loop: self.loop, log: log)
        } catch {
            log.error("cannot replay \(path): \(error)")
            return finishedReplay(position)
        }
        var mirror: UinputDevice?
        source.onFrame = { [unowned self, unowned source] in
            self.pipeline.handle($0)
            if source.mappingPending { self.applyPendingMapping(source) }
            self.onActivity?()
        }
        source.onStart = { [unowned self] in
            log.info("replaying \(path) as device \(index) \"\(recording.device.name)\" (\(recording.events.count) events)")
            self.onDeviceLine?(self.deviceLine("added", source))
            // A replay that passes through gets a mirror too (nothing to grab): a demo of what the
            // compositor would get.
            if config.passthrough && self.pipeline.scene.allowsPassthrough {
                do {
                    let m = try UinputDevice(description: MirrorDescription.of(recording.device),
                                             phys: MirrorDescription.phys(forSourceNode: "replay"))
                    mirror = m
                    self.pipeline.addMirror(device: index, name: recording.device.name, source: recording.device, sink: m)
                    self.pipeline.passthrough?.setExclusive(device: index, since: -Double.infinity)
                    log.info("pass-through: replay \(path) → mirror \(m.devnode ?? "(node unknown)")")
                } catch {
                    log.error("pass-through for the replay of \(path) is off: \(error)")
                }
            }
        }
        source.endsWhen = { [unowned self] in self.pipeline.nextDeadline == nil }
        source.onEnd = { [unowned self, unowned source] cancel in
            cancel.map { self.pipeline.handle(DigitizerFrame(device: $0.device, timestamp: self.pipeline.currentTime, contacts: $0.contacts)) }
            if let m = mirror {
                self.pipeline.removeMirror(device: index, at: self.pipeline.currentTime)
                m.destroy()
            }
            log.info("replay of \(path) finished")
            self.onDeviceLine?(self.deviceLine("removed", source))
            self.replays.removeAll { $0 === source }
            self.finishedReplay(position, played: true)
            self.onActivity?()
        }
        replays.append(source)
        turnDefaultScene(for: source)
        source.start()
    }

    /// The next recording of the queue, after the one at `position` ended (`played`) or could not
    /// start. A loop goes round again only if a recording of the last pass played.
    private func finishedReplay(_ position: Int, played: Bool = false) {
        if played { replayPassPlayed = true }
        let next = position + 1
        if next < replayQueue.count { return startReplay(next, delay: 0.2) }
        guard replayLoop else { return }
        guard replayPassPlayed else {
            log.warning("--replay-loop: no recording of the queue could play; the loop ends")
            return
        }
        replayPassPlayed = false
        startReplay(0, delay: 0.2)
    }

    /// A recording of the loop's current pass played.
    private var replayPassPlayed = false

    private func deviceLine(_ action: StaticString, _ source: MappedSource) -> [UInt8] {
        DeviceLine.encode(action: action, device: source.index, node: source.node, name: source.name)
    }

    // MARK: Live mapping (protocol 2 `set device`)

    /// A device's scene entry with the live changes made to it, in the order they were made.
    private func mapping(_ config: DeviceConfig, index: Int, name: String, node: String) -> DeviceConfig {
        var c = config
        for (target, change) in liveChanges where target.selects(index: index, name: name, node: node) {
            c = change.applied(to: c)
        }
        return c
    }

    private func mapping(_ source: MappedSource) -> DeviceConfig {
        mapping(source.config, index: source.index, name: source.name, node: source.node)
    }

    /// Changes how a device (or every device, those that come later included) maps onto the window.
    /// It takes effect from the next touch sequence that begins on the device: at once when no finger
    /// is on it, else when the last one lifts, never mid-touch. Devices subscribers then get a
    /// `"changed"` line with the new mapping.
    public func setMapping(_ target: ClientCommand.DeviceTarget, _ change: ClientCommand.MappingChange) throws(ClientCommand.Refusal) {
        let sources = mappedSources
        func affected(_ s: MappedSource) -> Bool { target.selects(index: s.index, name: s.name, node: s.node) }
        if target != .all && !sources.contains(where: affected) {
            let present = sources.map { "\($0.index) \"\($0.name)\" (\($0.node))" }
            let what: String
            switch target {
            case .index(let i): what = "there is no device \(i)"
            case .name(let p): what = "no device's name or node matches \"\(p)\""
            case .all: what = ""
            }
            throw ClientCommand.Refusal(message: "set.device: \(what); "
                + (present.isEmpty ? "no device is present (\"*\" sets every device, those that come later included)"
                                   : "the devices are \(present.joined(separator: ", ")), or \"*\" for every device"))
        }
        // The parts this change sets are no longer the earlier changes' business where it covers them.
        liveChanges = liveChanges.compactMap { earlier in
            guard earlier.target.isCovered(by: target) else { return earlier }
            let left = earlier.change.without(change)
            return left == ClientCommand.MappingChange() ? nil : (earlier.target, left)
        }
        liveChanges.append((target, change))
        for source in sources where affected(source) {
            source.mappingPending = true
            applyPendingMapping(source)
        }
    }

    /// Every device and playing replay, in a stable order (open devices by node, then replays).
    private var mappedSources: [MappedSource] {
        open.keys.sorted().compactMap { open[$0] } + replays
    }

    /// The source's scene entry, with the live changes, applied to its mapping onto `window`.
    private func remap(_ source: MappedSource, window: Rect) {
        var m = source.mapping
        mapping(source).configure(&m, window: window, udevCalibration: source.udevCalibration)
        source.mapping = m
    }

    /// A pending `set device` takes effect once the source has no finger down.
    private func applyPendingMapping(_ source: MappedSource) {
        guard source.isNeutral else { return }
        source.mappingPending = false
        turnDefaultScene(for: source)
        remap(source, window: pipeline.scene.window.bounds)
        mappingChanged(index: source.index, node: source.node, name: source.name, source.mapping)
    }

    /// The built-in scene's window is the panel as it is turned (README "The built-in scene"): when the
    /// device it was sized for turns between landscape and portrait, the window's sides swap, so that
    /// the thresholds keep their physical size. The other devices follow the new window.
    private func turnDefaultScene(for source: MappedSource) {
        guard pipeline.scene.isDefault, let sizing = sizingDevice, sizing.index == source.index else { return }
        let rotation = mapping(source).rotation
        let turned = rotation == .clockwise90 || rotation == .clockwise270
        let size = Scene.physicalSize(of: sizing.description) ?? Scene.defaultWindowSize
        let window = turned ? Size(width: size.height, height: size.width) : size
        guard window != pipeline.scene.window.bounds.size else { return }
        let scene = Scene.builtIn(size: window, passthrough: pipeline.scene.passesEveryDevice)
        scene.rotationForEveryDevice = pipeline.scene.rotationForEveryDevice
        pipeline.replace(scene: scene, at: monotonicNow())
        log.info("built-in scene turned with device \(source.index): window \(Int(window.width))×\(Int(window.height)) pt")
        for source in mappedSources { remap(source, window: scene.window.bounds) }
    }

    private func mappingChanged(index: Int, node: String, name: String, _ m: CoordinateMapping) {
        log.info("device \(index) \(node) \"\(name)\": mapping now rotation \(m.rotation.rawValue)°"
                 + (m.flipX ? ", flipX" : "") + (m.flipY ? ", flipY" : "") + ", matrix \(m.calibration.map { "\($0)" }.joined(separator: " "))")
        onDeviceLine?(DeviceLine.changed(index: index, node: node, name: name, mapping: m))
    }
}

/// A device whose mapping onto the window a `set device` may change (an open device or a replay).
/// The mapping is only changed while `isNeutral` (no finger down), so no touch sequence changes
/// coordinates halfway.
private protocol MappedSource: AnyObject {
    var index: Int { get }
    var config: DeviceConfig { get }
    var node: String { get }
    var name: String { get }
    var mapping: CoordinateMapping { get set }
    var isNeutral: Bool { get }
    var mappingPending: Bool { get set }
    /// udev's LIBINPUT_CALIBRATION_MATRIX for the device, which a scene entry without its own replaces.
    var udevCalibration: [Double]? { get }
}

/// A recording played as a live device: its events keep their spacing and are stamped on
/// CLOCK_MONOTONIC, as the kernel would stamp them.
final class ReplaySource: MappedSource {
    let recording: Recording
    let node: String
    private var player: RecordingPlayer
    private let timer: Timer
    private let loop: EventLoop
    private let delay: Double
    private var offset = 0.0
    private var next = 0
    private(set) var isPlaying = false
    /// The device index its frames carry.
    let index: Int
    /// The scene's entry for it (live changes apart).
    let config: DeviceConfig
    /// A `set device` waits for the recording's fingers to lift.
    var mappingPending = false
    var onFrame: ((DigitizerFrame) -> Void)?
    var onStart: (() -> Void)?
    /// Asked after the last event, and again after each pending timer: whether the replay may end now
    /// (the pipeline has no timer left to run).
    var endsWhen: (() -> Bool)?
    /// The replay ended; with the frame that cancels what is still down (nil when nothing is).
    var onEnd: ((DigitizerFrame?) -> Void)?

    init(recording: Recording, node: String, mapping: CoordinateMapping, deviceIndex: Int, config: DeviceConfig,
         delay: Double, loop: EventLoop, log: Logger) throws {
        self.recording = recording
        self.node = node
        index = deviceIndex
        self.config = config
        self.delay = delay
        self.loop = loop
        player = RecordingPlayer(device: recording.device, mapping: mapping, deviceIndex: deviceIndex) { log.warning("\(node): \($0)") }
        timer = try Timer()
    }

    func start() {
        offset = monotonicNow() + delay - (recording.events.first?.time ?? 0)
        try? loop.add(timer.fd) { [unowned self] _ in self.fire() }
        timer.arm(at: (recording.events.first?.time ?? 0) + offset)
    }

    /// How the recording maps onto the window; changed only between touch sequences (`isNeutral`).
    var mapping: CoordinateMapping {
        get { player.assembler.mapping }
        set { player.mapping = newValue }
    }

    /// No finger of the recording is down.
    var isNeutral: Bool { player.assembler.isNeutral }
    var name: String { recording.device.name }
    /// A recording has no udev properties.
    var udevCalibration: [Double]? { nil }

    func stop() {
        loop.remove(timer.fd)
        timer.arm(at: nil)
    }

    /// Ends the replay now, as if the device went away (the daemon stops).
    func finish() {
        guard isPlaying else { return stop() }
        isPlaying = false
        stop()
        let cancel = player.cancelAll(at: monotonicNow())
        onEnd?(cancel.contacts.isEmpty ? nil : cancel)
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
        } else if endsWhen?() ?? true {
            isPlaying = false
            stop()
            let cancel = player.cancelAll(at: now)
            onEnd?(cancel.contacts.isEmpty ? nil : cancel)
        } else {
            timer.arm(at: now + 0.05)           // the pipeline's timers run first (the daemon's deadline timer)
        }
    }
}
