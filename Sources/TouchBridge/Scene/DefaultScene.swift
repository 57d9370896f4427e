import TouchCore
import TouchInput

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
        let edges = ["Left", "Right", "Top", "Bottom"]
        let swipes = ["Left", "Right", "Up", "Down"]
        // The apps' own gestures, reported but not claimed, in the pass-through scene.
        let shared = passthrough ? #", "cancelsTouchesInView": false, "delaysTouchesEnded": false"# : ""
        var recognizers = [
            #"{"name": "doubleTap", "type": "tap", "numberOfTapsRequired": 2\#(shared)}"#,
            #"{"name": "tap", "type": "tap", "requireToFail": ["doubleTap"]\#(shared)}"#,
            #"{"name": "twoFingerTap", "type": "tap", "numberOfTouchesRequired": 2\#(shared)}"#,
            #"{"name": "longPress", "type": "longPress"\#(shared)}"#,
        ]
        for e in edges {
            recognizers.append(#"{"name": "edge\#(e)", "type": "screenEdgePan", "edges": ["\#(e.lowercased())"]}"#)
        }
        for d in swipes {
            recognizers.append(#"{"name": "swipe\#(d)", "type": "swipe", "direction": ["\#(d.lowercased())"], "numberOfTouchesRequired": 3}"#)
        }
        let waits = (edges.map { "\"edge\($0)\"" } + swipes.map { "\"swipe\($0)\"" }).joined(separator: ", ")
        recognizers.append(#"{"name": "pan", "type": "pan", "requireToFail": [\#(waits)]\#(shared)}"#)
        recognizers.append(#"{"name": "pinch", "type": "pinch", "simultaneousWith": ["rotation"]\#(shared)}"#)
        recognizers.append(#"{"name": "rotation", "type": "rotation", "simultaneousWith": ["pinch"]\#(shared)}"#)
        return """
        {
          "window": {"width": \(n(size.width)), "height": \(n(size.height))},
          "devices": [\(passthrough ? #"{"passthrough": true}"# : "")],
          "views": [
            {"name": "screen", "frame": [0, 0, \(n(size.width)), \(n(size.height))], "multipleTouchEnabled": true,
             "recognizers": [
               \(recognizers.joined(separator: ",\n       "))
             ]}
          ]
        }

        """
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
