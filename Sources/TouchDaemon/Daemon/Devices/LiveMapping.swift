import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// Live mapping changes (protocol 2 `set device`), oldest first: a device takes, in order, every
/// change whose target selects it, so that the later change wins part by part. A change drops the parts
/// it overrides from the earlier changes its target covers, so the list stays as short as the distinct
/// targets in use.
package struct LiveMappingChanges {
    private var changes: [(target: ClientCommand.DeviceTarget, change: ClientCommand.MappingChange)] = []

    /// `config` with every change that selects the device made to it, in order.
    package func applied(to config: DeviceConfig, index: Int, name: String, node: String) -> DeviceConfig {
        var c = config
        for (target, change) in changes where target.selects(index: index, name: name, node: node) {
            c = change.applied(to: c)
        }
        return c
    }

    package mutating func add(_ change: ClientCommand.MappingChange, for target: ClientCommand.DeviceTarget) {
        changes = changes.compactMap { earlier in
            guard earlier.target.isCovered(by: target) else { return earlier }
            let left = earlier.change.without(change)
            return left == ClientCommand.MappingChange() ? nil : (earlier.target, left)
        }
        changes.append((target, change))
    }
}

/// The built-in scene's window is the first device's panel, as it is turned (docs/scenes.md, "The built-in
/// scene"): which device that is.
package struct BuiltInSceneSizing {
    /// The window took a device's size (once, for the first device).
    package var sized = false
    /// The device the window took its size from: turning it between landscape and portrait turns the
    /// window. The same panel coming back (unplugged and plugged in again, under a new index) takes
    /// its place.
    package var device: (index: Int, description: DeviceDescription)?
}

extension InputDevices {
    /// A device's scene entry with the live changes made to it.
    package func liveConfig(_ config: DeviceConfig, index: Int, name: String, node: String) -> DeviceConfig {
        liveChanges.applied(to: config, index: index, name: name, node: node)
    }

    private func liveConfig(_ source: MappedSource) -> DeviceConfig {
        liveConfig(source.config, index: source.index, name: source.name, node: source.node)
    }

    /// Changes how a device (or every device, those that come later included; or the devices whose
    /// name matches a pattern) maps onto the window. It takes effect from the next touch sequence that
    /// begins on the device: at once when no finger is on it, else when the last one lifts, never
    /// mid-touch. Devices subscribers then get a `"changed"` line with the new mapping.
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
        liveChanges.add(change, for: target)
        for source in sources where affected(source) {
            source.mappingPending = true
            applyPendingMapping(source)
        }
    }

    /// The source's scene entry, with the live changes, applied to its mapping onto `window`.
    package func remap(_ source: MappedSource, window: Rect) {
        var m = source.mapping
        liveConfig(source).configure(&m, window: window, udevCalibration: source.udevCalibration)
        source.mapping = m
    }

    /// A pending `set device` takes effect once the source has no finger down.
    package func applyPendingMapping(_ source: MappedSource) {
        guard source.isNeutral else { return }
        source.mappingPending = false
        turnDefaultScene(for: source)
        remap(source, window: pipeline.scene.window.bounds)
        let m = source.mapping
        log.info("device \(source.index) \(source.node) \"\(source.name)\": mapping now rotation \(m.rotation.rawValue)°"
                 + (m.flipX ? ", flipX" : "") + (m.flipY ? ", flipY" : "") + ", matrix \(m.calibration.map { "\($0)" }.joined(separator: " "))")
        onDeviceLine?(DeviceLine.changed(index: source.index, node: source.node, name: source.name, mapping: m))
    }

    // MARK: The built-in scene's window

    /// The built-in scene takes the first device's physical size. Returns true when the window changed.
    @discardableResult
    package func adoptDefaultScene(for device: DeviceDescription, index: Int) -> Bool {
        guard pipeline.scene.isDefault else { return false }
        if let sizer = sizing.device, sizer.index != index, sizer.description == device,
           !mappedSources.contains(where: { $0.index == sizer.index }) {
            sizing.device = (index, device)             // the same panel back: it turns the window again
            return false
        }
        guard !sizing.sized else { return false }
        sizing.sized = true
        sizing.device = (index, device)
        let sized = Scene.builtIn(for: device, passthrough: pipeline.scene.passesEveryDevice,
                                  rotation: pipeline.scene.rotationForEveryDevice)
        guard sized.window.bounds != pipeline.scene.window.bounds else { return false }
        pipeline.replace(scene: sized, at: monotonicNow())
        for source in mappedSources { source.mapping.target = sized.window.bounds }
        return true
    }

    /// When the device the built-in window was sized for turns between landscape and portrait, the
    /// window's sides swap, so that the thresholds keep their physical size; the other devices follow
    /// the new window.
    package func turnDefaultScene(for source: MappedSource) {
        guard pipeline.scene.isDefault, let sizer = sizing.device, sizer.index == source.index else { return }
        let rotation = liveConfig(source).rotation
        let turned = rotation == .clockwise90 || rotation == .clockwise270
        let size = Scene.physicalSize(of: sizer.description) ?? Scene.defaultWindowSize
        let window = turned ? Size(width: size.height, height: size.width) : size
        guard window != pipeline.scene.window.bounds.size else { return }
        let scene = Scene.builtIn(size: window, passthrough: pipeline.scene.passesEveryDevice)
        scene.rotationForEveryDevice = pipeline.scene.rotationForEveryDevice
        pipeline.replace(scene: scene, at: monotonicNow())
        log.info("built-in scene turned with device \(source.index): window \(Int(window.width))×\(Int(window.height)) pt")
        for s in mappedSources { remap(s, window: scene.window.bounds) }
    }
}
