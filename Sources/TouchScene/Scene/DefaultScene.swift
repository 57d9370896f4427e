import TouchCore
import TouchInput
import TouchProtocol
import TouchSystem

extension Scene {
    /// Points per millimetre of UIKit's 163 ppi reference display: the built-in scene's window is the
    /// first device's physical size in these points, so the thresholds (45 pt tap movement, 10 pt pan
    /// hysteresis, 50 pt swipes) mean what they mean on an iPhone.
    public static let pointsPerMillimetre = 163.0 / 25.4

    /// The built-in scene's window when the device does not report its size (no resolution).
    public static let defaultWindowSize = Size(width: 1280, height: 800)

    /// The built-in scene: one full-window view named "screen" carrying every kind of recognizer,
    /// arranged so that each can be reached (docs/scenes.md, "The built-in scene"):
    ///
    /// | recognizer      | gesture                                   | arrangement                                   |
    /// |-----------------|-------------------------------------------|-----------------------------------------------|
    /// | tap             | one finger, one tap                       | requires doubleTap to fail (fires 0.35 s late) |
    /// | doubleTap       | one finger, two taps                      |                                               |
    /// | twoFingerTap    | two fingers, one tap                      |                                               |
    /// | longPress       | one finger held 0.5 s                     |                                               |
    /// | pan             | one or more fingers dragging              | requires the edge pans and swipes to fail     |
    /// | pinch, rotation | two fingers                               | simultaneous with each other                  |
    /// | swipeLeft/Right/Up/Down | three fingers, a quick straight move |                                           |
    /// | edgeLeft/Right/Top/Bottom | one finger from within 24 pt of an edge, moving inward |                 |
    ///
    /// With `passthrough` it is the built-in pass-through scene (`builtInJSON(size:passthrough:)`).
    ///
    /// With a `rotation` of 90 or 270 degrees (`--rotation`) the window is the panel turned: its width
    /// and height swap, so that the thresholds keep their physical size in the new orientation.
    public static func builtIn(size: Size = Scene.defaultWindowSize, passthrough: Bool = false,
                               rotation: CoordinateMapping.Rotation? = nil) -> Scene {
        let turned = rotation == .clockwise90 || rotation == .clockwise270
        let size = turned ? Size(width: size.height, height: size.width) : size
        do {
            let s = try Scene.parse(builtInJSON(size: size, passthrough: passthrough), file: "built-in scene",
                                    passthrough: passthrough)
            let scene = Scene(window: s.window, devices: s.devices, recognizers: s.recognizers, views: s.views,
                              source: "built-in default", isDefault: true, delegate: s.delegate)
            scene.passesEveryDevice = passthrough
            scene.reservedViews = s.reservedViews
            scene.rotationForEveryDevice = rotation
            return scene
        } catch {
            preconditionFailure("the built-in scene does not parse: \(error)")
        }
    }

    /// The built-in scene as a scene file (what `make install` puts in /etc/touchbridge/scene.json and
    /// `touchbridgectl scene default` prints).
    ///
    /// The pass-through version (`touchbridged --passthrough` without a scene, `touchbridgectl scene
    /// default --passthrough`) has the same recognizers, but only the system gestures claim their
    /// touches: the four edge pans and the three-finger swipes keep UIKit's defaults (C1: a touch they
    /// take is cancelled on the mirror), while the taps, the long press, the pan, the pinch and the
    /// rotation are reported on the socket and leave their touches to the apps
    /// (`cancelsTouchesInView` false), without holding back a single lift (`delaysTouchesEnded` false:
    /// a recognizer that never cancels has nothing to wait for). Nothing delays touchesBegan: a touch
    /// near an edge reaches the apps at once and is cancelled if the edge pan takes it (README
    /// "Pass-through").
    public static func builtInJSON(size: Size = Scene.defaultWindowSize, passthrough: Bool = false) -> String {
        func n(_ v: Double) -> String {
            var w = JSONWriter()
            w.number(v)
            return w.string
        }
        let entries = builtInRecognizers(passthrough: passthrough).map {
            RecognizerSchema.fileEntry($0.recognizer, requireToFail: $0.requireToFail, simultaneousWith: $0.simultaneousWith)
        }
        let text = """
        {
          "window": {"width": \(n(size.width)), "height": \(n(size.height))},
          "devices": [\(passthrough ? #"{"passthrough": true}"# : "")],
          "views": [
            {"name": "screen", "frame": [0, 0, \(n(size.width)), \(n(size.height))], "multipleTouchEnabled": true,
             "recognizers": [
               \(entries.joined(separator: ",\n       "))
             ]}
          ]
        }

        """
        // As the project writes scenes (a long entry wrapped), so that scenes/default.json is it.
        var parser = JSONParser(text)
        guard let json = try? parser.parse() else { preconditionFailure("the built-in scene's text is not JSON") }
        return SceneFileText.format(json)
    }

    /// A scene file's entry for the recognizer `g` (its name, type and the properties that differ from
    /// its type's defaults), for programs that write scenes: the benchmarks, a kiosk's generator.
    public static func fileEntry(for g: GestureRecognizer, requireToFail: [String] = [], simultaneousWith: [String] = [],
                                 simultaneousWithEveryone: Bool = false) -> String {
        RecognizerSchema.fileEntry(g, requireToFail: requireToFail, simultaneousWith: simultaneousWith,
                                   simultaneousWithEveryone: simultaneousWithEveryone)
    }

    /// The built-in scene's recognizers, set up in Swift (the scene file's keys for them are
    /// RecognizerSchema's), with the names each requires to fail and is simultaneous with.
    package static func builtInRecognizers(passthrough: Bool) -> [(recognizer: GestureRecognizer, requireToFail: [String], simultaneousWith: [String])] {
        /// The apps' own gestures, in the pass-through scene: reported, not claimed (C1), and never
        /// holding back a lift (C3): a recognizer that never cancels has nothing to wait for.
        func apps<R: GestureRecognizer>(_ r: R, _ name: String, _ set: (R) -> Void = { _ in }) -> R {
            r.name = name
            set(r)
            if passthrough {
                r.cancelsTouchesInView = false
                r.delaysTouchesEnded = false
            }
            return r
        }
        let edges: [(String, RectEdge)] = [("Left", .left), ("Right", .right), ("Top", .top), ("Bottom", .bottom)]
        let swipes: [(String, SwipeGestureRecognizer.Direction)] = [("Left", .left), ("Right", .right), ("Up", .up), ("Down", .down)]
        var all: [(recognizer: GestureRecognizer, requireToFail: [String], simultaneousWith: [String])] = [
            (apps(TapGestureRecognizer(), "doubleTap") { $0.numberOfTapsRequired = 2 }, [], []),
            (apps(TapGestureRecognizer(), "tap"), ["doubleTap"], []),
            (apps(TapGestureRecognizer(), "twoFingerTap") { $0.numberOfTouchesRequired = 2 }, [], []),
            (apps(LongPressGestureRecognizer(), "longPress"), [], []),
        ]
        for (name, edge) in edges {
            let e = ScreenEdgePanGestureRecognizer()
            e.name = "edge" + name
            e.edges = edge
            all.append((e, [], []))
        }
        for (name, direction) in swipes {
            let sw = SwipeGestureRecognizer()
            sw.name = "swipe" + name
            sw.direction = direction
            sw.numberOfTouchesRequired = 3
            all.append((sw, [], []))
        }
        let systemGestures = edges.map { "edge" + $0.0 } + swipes.map { "swipe" + $0.0 }
        all.append((apps(PanGestureRecognizer(), "pan"), systemGestures, []))
        all.append((apps(PinchGestureRecognizer(), "pinch"), [], ["rotation"]))
        all.append((apps(RotationGestureRecognizer(), "rotation"), [], ["pinch"]))
        return all
    }

    /// The built-in scene sized for a device: its physical size in points when the kernel reports a
    /// plausible one (each side between `plausibleMillimetres`), else `defaultWindowSize`. A panel's
    /// driver may report a resolution that does not fit its range (a wrong unit, a copied value): a
    /// window of 0 × 0 pt, or of ten metres, would make every gesture's thresholds meaningless.
    public static func builtIn(for device: DeviceDescription, passthrough: Bool = false,
                               rotation: CoordinateMapping.Rotation? = nil) -> Scene {
        builtIn(size: physicalSize(of: device) ?? defaultWindowSize, passthrough: passthrough, rotation: rotation)
    }

    /// The panel sides a physical size is believed for, in millimetres: a watch to a wall display.
    public static let plausibleMillimetres = 20.0...3000.0

    /// The device's size in points from its axes' ranges and resolutions; nil when it reports none or
    /// one outside `plausibleMillimetres`.
    public static func physicalSize(of device: DeviceDescription) -> Size? {
        guard let axes = device.positionAxes, axes.x.resolution > 0, axes.y.resolution > 0 else { return nil }
        let w = axes.x.span / Double(axes.x.resolution), h = axes.y.span / Double(axes.y.resolution)
        guard plausibleMillimetres.contains(w), plausibleMillimetres.contains(h) else { return nil }
        return Size(width: (w * pointsPerMillimetre).rounded(), height: (h * pointsPerMillimetre).rounded())
    }
}
