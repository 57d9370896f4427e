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
    /// arranged so that each can be reached (README "The built-in scene"):
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
    public static func builtIn(size: Size = Scene.defaultWindowSize) -> Scene {
        do {
            let s = try Scene.parse(builtInJSON(size: size), file: "built-in scene")
            return Scene(window: s.window, devices: s.devices, recognizers: s.recognizers, views: s.views,
                         source: "built-in default", isDefault: true, delegate: s.delegate)
        } catch {
            preconditionFailure("the built-in scene does not parse: \(error)")
        }
    }

    /// The built-in scene as a scene file (what `make install` puts in /etc/touchbridge/scene.json and
    /// `touchbridgectl scene default` prints).
    public static func builtInJSON(size: Size = Scene.defaultWindowSize) -> String {
        func n(_ v: Double) -> String {
            var w = JSONWriter()
            w.number(v)
            return w.string
        }
        let edges = ["Left", "Right", "Top", "Bottom"]
        let swipes = ["Left", "Right", "Up", "Down"]
        var recognizers = [
            #"{"name": "doubleTap", "type": "tap", "numberOfTapsRequired": 2}"#,
            #"{"name": "tap", "type": "tap", "requireToFail": ["doubleTap"]}"#,
            #"{"name": "twoFingerTap", "type": "tap", "numberOfTouchesRequired": 2}"#,
            #"{"name": "longPress", "type": "longPress"}"#,
        ]
        for e in edges {
            recognizers.append(#"{"name": "edge\#(e)", "type": "screenEdgePan", "edges": ["\#(e.lowercased())"]}"#)
        }
        for d in swipes {
            recognizers.append(#"{"name": "swipe\#(d)", "type": "swipe", "direction": ["\#(d.lowercased())"], "numberOfTouchesRequired": 3}"#)
        }
        let waits = (edges.map { "\"edge\($0)\"" } + swipes.map { "\"swipe\($0)\"" }).joined(separator: ", ")
        recognizers.append(#"{"name": "pan", "type": "pan", "requireToFail": [\#(waits)]}"#)
        recognizers.append(#"{"name": "pinch", "type": "pinch", "simultaneousWith": ["rotation"]}"#)
        recognizers.append(#"{"name": "rotation", "type": "rotation", "simultaneousWith": ["pinch"]}"#)
        return """
        {
          "window": {"width": \(n(size.width)), "height": \(n(size.height))},
          "devices": [],
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
    /// resolution, else `defaultWindowSize`.
    public static func builtIn(for device: DeviceDescription) -> Scene {
        guard let axes = device.positionAxes, axes.x.resolution > 0, axes.y.resolution > 0 else { return builtIn() }
        let w = axes.x.span / Double(axes.x.resolution) * pointsPerMillimetre
        let h = axes.y.span / Double(axes.y.resolution) * pointsPerMillimetre
        return builtIn(size: Size(width: w.rounded(), height: h.rounded()))
    }
}
