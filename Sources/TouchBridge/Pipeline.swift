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
            // What kind of recognizer it is, decided once rather than on every action.
            let kind = Kind(r)
            let name = r.name ?? ""
            r.addTarget { [unowned self] g in self.report(g, kind, name) }
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

    /// A recognizer's class, for its type-specific fields.
    enum Kind {
        case tap(TapGestureRecognizer), longPress, pan(PanGestureRecognizer), edgePan(ScreenEdgePanGestureRecognizer)
        case swipe(SwipeGestureRecognizer), pinch(PinchGestureRecognizer), rotation(RotationGestureRecognizer), custom

        init(_ g: GestureRecognizer) {
            switch g {
            case let e as ScreenEdgePanGestureRecognizer: self = .edgePan(e)
            case let p as PanGestureRecognizer: self = .pan(p)
            case let t as TapGestureRecognizer: self = .tap(t)
            case is LongPressGestureRecognizer: self = .longPress
            case let s as SwipeGestureRecognizer: self = .swipe(s)
            case let p as PinchGestureRecognizer: self = .pinch(p)
            case let r as RotationGestureRecognizer: self = .rotation(r)
            default: self = .custom
            }
        }

        var typeName: StaticString {
            switch self {
            case .tap: "tap"
            case .longPress: "longPress"
            case .pan: "pan"
            case .edgePan: "screenEdgePan"
            case .swipe: "swipe"
            case .pinch: "pinch"
            case .rotation: "rotation"
            case .custom: "custom"
            }
        }
    }

    static func stateName(_ g: GestureRecognizer) -> StaticString {
        if g.isDiscrete { return "recognized" }
        switch g.state {
        case .possible: return "possible"
        case .began: return "began"
        case .changed: return "changed"
        case .ended: return "ended"
        case .cancelled: return "cancelled"
        case .failed: return "failed"
        }
    }

    /// {"event":"gesture","time":T,"device":D,"recognizer":N,"type":T,"state":S,"view":V,"x":…,"y":…,"touches":N,…}
    func report(_ g: GestureRecognizer, _ kind: Kind, _ name: String) {
        guard let onLine else { return }
        writer.reset()
        writer.beginObject()
        writer.key("event"); writer.staticString("gesture")
        writer.key("time"); writer.number(g.currentTime)
        writer.key("device"); if let d = g.gestureTouches.first?.device { writer.int(d) } else { writer.null() }
        writer.key("recognizer"); writer.string(name)
        writer.key("type"); writer.staticString(kind.typeName)
        writer.key("state"); writer.staticString(Pipeline.stateName(g))
        writer.key("view"); if let v = g.view?.name { writer.string(v) } else { writer.null() }
        let p = g.location(in: nil)
        writer.key("x"); writer.number(p.x)
        writer.key("y"); writer.number(p.y)
        writer.key("touches"); writer.int(g.numberOfTouches)
        switch kind {
        case .tap(let t):
            writer.key("taps"); writer.int(t.numberOfTapsRequired)
        case .swipe(let s):
            writer.key("direction"); writer.string(s.recognizedDirection.description)
        case .pan(let pan):
            writePan(pan)
        case .edgePan(let e):
            writePan(e)
            writer.key("edge"); writer.string(e.touchedEdge.description)
        case .pinch(let pinch):
            writer.key("scale"); writer.number(pinch.scale)
            writer.key("velocity"); writer.number(pinch.velocity)
        case .rotation(let r):
            writer.key("rotation"); writer.number(r.rotation)
            writer.key("velocity"); writer.number(r.velocity)
        case .longPress, .custom:
            break
        }
        writer.endObject()
        onLine(.gestures, writer.bytes)
    }

    private func writePan(_ pan: PanGestureRecognizer) {
        let t = pan.translation(in: nil), v = pan.velocity(in: nil)
        writer.key("translation"); writer.beginObject(); writer.key("x"); writer.number(t.x); writer.key("y"); writer.number(t.y); writer.endObject()
        writer.key("velocity"); writer.beginObject(); writer.key("x"); writer.number(v.x); writer.key("y"); writer.number(v.y); writer.endObject()
    }

    /// {"event":"touch","time","device","id","phase","x","y","view","tapCount","majorRadius","force"}
    func reportTouches(_ e: Event) {
        guard let onLine else { return }
        for t in e.orderedTouches where t.phase != .stationary {
            writer.reset()
            writer.beginObject()
            writer.key("event"); writer.staticString("touch")
            writer.key("time"); writer.number(t.timestamp)
            writer.key("device"); writer.int(t.device)
            writer.key("id"); writer.int(t.identifier)
            writer.key("phase")
            switch t.phase {
            case .began: writer.staticString("began")
            case .moved: writer.staticString("moved")
            case .stationary: writer.staticString("stationary")
            case .ended: writer.staticString("ended")
            case .cancelled: writer.staticString("cancelled")
            }
            let p = t.location(in: nil)
            writer.key("x"); writer.number(p.x)
            writer.key("y"); writer.number(p.y)
            writer.key("view"); if let v = t.view?.name { writer.string(v) } else { writer.null() }
            writer.key("tapCount"); writer.int(t.tapCount)
            writer.key("majorRadius"); writer.number(t.majorRadius)
            writer.key("force"); writer.number(t.force)
            writer.endObject()
            onLine(.touches, writer.bytes)
        }
    }
}
