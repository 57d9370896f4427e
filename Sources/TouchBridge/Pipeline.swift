import TouchCore
import TouchInput

/// What a client can subscribe to.
public struct Topics: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let gestures = Topics(rawValue: 1)
    public static let touches = Topics(rawValue: 2)
    public static let devices = Topics(rawValue: 4)
}

/// The touch pipeline of the iOS path, minus the kernel: frames enter the event queue
/// (`Application.handle`), become touches and events, go through `Window.sendEvent` and the gesture
/// environment, and the recognizers' actions come out as NDJSON lines (the socket protocol).
/// The daemon and `touchbridgectl replay` share it, so both print the same lines.
public final class Pipeline {
    public private(set) var scene: Scene
    public private(set) var application: Application
    /// Receives each line (without the newline) and the topic it belongs to.
    public var onLine: ((Topics, [UInt8]) -> Void)?
    /// Touch lines cost time: they are made only when someone wants them.
    public var wantsTouches = false
    private let log: Logger
    private var writer = JSONWriter(capacity: 512)

    public init(scene: Scene, log: Logger) {
        self.scene = scene
        self.log = log
        application = Application(window: scene.window)
        wire()
    }

    /// Takes a new scene (SIGHUP). Touches in flight are cancelled in the old one (C7).
    public func replace(scene newScene: Scene, at time: Double) {
        application.cancelTouches(at: time)
        scene = newScene
        application = Application(window: newScene.window)
        wire()
    }

    private func wire() {
        application.onWarning = { [log] in log.warning($0) }
        if log.level >= .debug { application.debugLog = { [log] in log.debug($0) } }
        for r in scene.recognizers {
            r.addTarget { [unowned self] g in self.report(g) }
        }
        application.onEvent = { [unowned self] e in if self.wantsTouches { self.reportTouches(e) } }
    }

    // MARK: The event queue

    public func handle(_ frame: DigitizerFrame) { application.handle(frame) }
    public func advance(to time: Double) { application.advance(to: time) }
    public var nextDeadline: Double? { application.nextDeadline }

    /// Fires every pending deadline (the end of a replay).
    public func finish() {
        while let d = application.nextDeadline { application.advance(to: d) }
    }

    // MARK: Lines

    /// {"event":"gesture","time":T,"device":D,"recognizer":N,"type":T,"state":S,"view":V,"x":…,"y":…,"touches":N,…}
    func report(_ g: GestureRecognizer) {
        guard let onLine else { return }
        var w = writer
        w.reset()
        w.beginObject()
        w.key("event"); w.staticString("gesture")
        w.key("time"); w.number(g.currentTime)
        w.key("device"); if let d = g.gestureTouches.first?.device { w.int(d) } else { w.null() }
        w.key("recognizer"); w.string(g.name ?? "")
        w.key("type"); w.string(Scene.typeName(g))
        w.key("state")
        if g.isDiscrete { w.staticString("recognized") } else { w.string(g.state.description) }
        w.key("view"); if let v = g.view?.name { w.string(v) } else { w.null() }
        let p = g.location(in: nil)
        w.key("x"); w.number(p.x)
        w.key("y"); w.number(p.y)
        w.key("touches"); w.int(g.numberOfTouches)
        switch g {
        case let t as TapGestureRecognizer:
            w.key("taps"); w.int(t.numberOfTapsRequired)
        case let s as SwipeGestureRecognizer:
            w.key("direction"); w.string(s.recognizedDirection.description)
        case let pan as PanGestureRecognizer:
            let t = pan.translation(in: nil), v = pan.velocity(in: nil)
            w.key("translation"); w.beginObject(); w.key("x"); w.number(t.x); w.key("y"); w.number(t.y); w.endObject()
            w.key("velocity"); w.beginObject(); w.key("x"); w.number(v.x); w.key("y"); w.number(v.y); w.endObject()
            if let e = pan as? ScreenEdgePanGestureRecognizer { w.key("edge"); w.string(e.touchedEdge.description) }
        case let pinch as PinchGestureRecognizer:
            w.key("scale"); w.number(pinch.scale)
            w.key("velocity"); w.number(pinch.velocity)
        case let r as RotationGestureRecognizer:
            w.key("rotation"); w.number(r.rotation)
            w.key("velocity"); w.number(r.velocity)
        default:
            break
        }
        w.endObject()
        writer = w
        onLine(.gestures, w.bytes)
    }

    /// {"event":"touch","time","device","id","phase","x","y","view","tapCount","majorRadius","force"}
    func reportTouches(_ e: Event) {
        guard let onLine else { return }
        for t in e.orderedTouches where t.phase != .stationary {
            var w = writer
            w.reset()
            w.beginObject()
            w.key("event"); w.staticString("touch")
            w.key("time"); w.number(t.timestamp)
            w.key("device"); w.int(t.device)
            w.key("id"); w.int(t.identifier)
            w.key("phase"); w.string(t.phase.description)
            let p = t.location(in: nil)
            w.key("x"); w.number(p.x)
            w.key("y"); w.number(p.y)
            w.key("view"); if let v = t.view?.name { w.string(v) } else { w.null() }
            w.key("tapCount"); w.int(t.tapCount)
            w.key("majorRadius"); w.number(t.majorRadius)
            w.key("force"); w.number(t.force)
            w.endObject()
            writer = w
            onLine(.touches, w.bytes)
        }
    }
}
