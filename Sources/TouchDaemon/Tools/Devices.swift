import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    /// `devices`: each touchscreen (and pen tablet) udev knows, opened to describe it and closed again.
    package static let devices = Command("devices", "list the touchscreens: node, name, ids, protocol, ranges and resolution,\nslots, and how the scene maps each onto its window", options: [
        .option("scene", "FILE", "map through this scene's devices entries (default: the built-in scene)"),
        .flag("tablets", "also list pen tablets that are not on a screen (display pens are always listed)"),
    ]) { a in
        try a.expect(0, "nothing")
        let scene = try a["scene"].map { try Scene.load(path: $0) } ?? Scene.builtIn()
        let monitor = try DeviceMonitor(includeTablets: a.has("tablets"))
        let found = monitor.enumerate()
        if found.isEmpty {
            print(a.has("tablets") ? "no touchscreens or pen tablets found (udev lists none with ID_INPUT_TOUCHSCREEN=1 or ID_INPUT_TABLET=1)"
                                   : "no touchscreens found (udev lists none with ID_INPUT_TOUCHSCREEN=1)")
            return 0
        }
        for info in found {
            print(Terminal.oneLine("\(info.devnode)  \"\(info.name)\"  \(info.vendorProduct)"))
            if info.isMirror {
                print("    a TouchBridge pass-through mirror\(info.phys.map { " (\($0))" } ?? ""): what the compositor reads in place of its panel")
                continue
            }
            do {
                let d = try EvdevDevice(path: info.devnode, deviceIndex: 0, target: scene.window.bounds,
                                        acceptTablets: true) { m in
                    (scene.deviceConfig(for: info) ?? DeviceConfig()).configure(&m, window: scene.window.bounds, udevCalibration: info.calibrationMatrix)
                }
                let axes = d.description.positionAxes!
                if d.description.kind == .tablet {
                    let pen = PenAxes(d.description)
                    let axes = [("pressure", pen.pressure), ("tilt", pen.tiltX), ("distance", pen.distance)]
                        .map { $0.1 == nil ? "no \($0.0)" : $0.0 }.joined(separator: ", ")
                    print("    pen\(info.isDisplayPen ? " on a screen (INPUT_PROP_DIRECT): opened with the touchscreens" : " tablet"), \(axes)")
                } else {
                    print("    \(d.description.touchProtocol!), \(d.description.kind.rawValue)")
                }
                print("    x \(axes.x)  y \(axes.y)")
                let m = d.assembler.mapping
                print("    mapping: rotation \(m.rotation.rawValue)°\(m.flipX ? ", flipX" : "")\(m.flipY ? ", flipY" : ""), matrix \(m.calibration.map { "\($0)" }.joined(separator: " ")) → window \(Int(m.target.width))×\(Int(m.target.height)) pt")
                d.close()
            } catch {
                print(Terminal.oneLine("    cannot open: \(error)"))
            }
        }
        return 0
    }
}
