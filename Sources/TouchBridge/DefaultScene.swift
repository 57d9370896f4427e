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
        let window = Window(frame: Rect(x: 0, y: 0, width: size.width, height: size.height))
        window.name = "window"
        let screen = View(frame: window.bounds)
        screen.name = "screen"
        screen.isMultipleTouchEnabled = true
        window.addSubview(screen)
        let delegate = SceneDelegate()
        var all: [GestureRecognizer] = []
        func add<R: GestureRecognizer>(_ r: R, _ name: String, _ configure: (R) -> Void = { _ in }) -> R {
            r.name = name
            configure(r)
            r.delegate = delegate
            screen.addGestureRecognizer(r)
            all.append(r)
            return r
        }
        let doubleTap = add(TapGestureRecognizer(), "doubleTap") { $0.numberOfTapsRequired = 2 }
        let tap = add(TapGestureRecognizer(), "tap")
        tap.require(toFail: doubleTap)
        _ = add(TapGestureRecognizer(), "twoFingerTap") { $0.numberOfTouchesRequired = 2 }
        _ = add(LongPressGestureRecognizer(), "longPress")
        var waitFor: [GestureRecognizer] = []
        for (name, edge) in [("edgeLeft", RectEdge.left), ("edgeRight", .right), ("edgeTop", .top), ("edgeBottom", .bottom)] {
            waitFor.append(add(ScreenEdgePanGestureRecognizer(), name) { $0.edges = edge })
        }
        for (name, dir) in [("swipeLeft", SwipeGestureRecognizer.Direction.left), ("swipeRight", .right),
                            ("swipeUp", .up), ("swipeDown", .down)] {
            waitFor.append(add(SwipeGestureRecognizer(), name) { $0.direction = dir; $0.numberOfTouchesRequired = 3 })
        }
        let pan = add(PanGestureRecognizer(), "pan")
        for r in waitFor { pan.require(toFail: r) }
        let pinch = add(PinchGestureRecognizer(), "pinch")
        let rotation = add(RotationGestureRecognizer(), "rotation")
        delegate.allow(pinch, rotation)
        return Scene(window: window, devices: [], recognizers: all, views: [screen], source: "built-in default",
                     isDefault: true, delegate: delegate)
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
