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
    /// Receives lines and the topic they belong to: one or more complete lines, separated by
    /// newlines, without a newline after the last (a gesture line, or the touch lines of one event).
    /// The bytes are valid only during the call: copy what you keep.
    public var onLines: ((Topics, UnsafeBufferPointer<UInt8>) -> Void)?
    /// Touch lines cost time: they are made only when someone wants them.
    public var wantsTouches = false
    private let log: Logger
    private var writer = JSONWriter(capacity: 512)

    /// The mirrors of pass-through devices (README "Pass-through"); nil until a device passes through.
    public private(set) var passthrough: Passthrough?
    /// Scenes replaced while touches were down on them (SIGHUP): each keeps its touches until they
    /// lift, so that a touch keeps the fate it had; new touches go to the current scene.
    private var retiring: [(scene: Scene, application: Application)] = []

    public init(scene: Scene, log: Logger) {
        self.scene = scene
        self.log = log
        application = Application(window: scene.window)
        wire(application, scene)
    }

    /// Takes a new scene (SIGHUP, or the built-in scene sized for the first device). The old scene's
    /// recognizers are disabled (C6): a gesture under way ends cancelled, one still deciding fails, and
    /// the touches they held back reach the views (and the mirrors) now. The touches already down stay
    /// in the old scene, moving and lifting as they would have, and leave with it; new touches follow
    /// the new scene.
    public func replace(scene newScene: Scene, at time: Double) {
        let old = application, oldScene = scene
        passthrough?.time(time)
        for r in oldScene.recognizers { r.isEnabled = false }
        if !old.activeTouches.isEmpty { retiring.append((oldScene, old)) }
        scene = newScene
        application = Application(window: newScene.window)
        wire(application, newScene)
        passthrough?.flush()
    }

    private func wire(_ application: Application, _ scene: Scene) {
        application.onWarning = { [log] in log.warning($0) }
        if log.level >= .debug { application.debugLog = { [log] in log.debug($0) } }
        // Unowned: the pipeline owns the applications and the scenes' recognizers that keep these.
        for r in scene.recognizers {
            // What kind of recognizer it is and the fixed part of its lines, decided once rather than
            // on every action.
            let fields = GestureFields(r)
            r.addTarget { [unowned self] g in report(g, fields) }
        }
        application.onEvent = { [unowned self] e in eventSent(e) }
        (scene.window as? PassthroughWindow)?.passthrough = passthrough
    }

    /// After every event: its touch lines, and the touches no view could hear for the mirrors.
    private func eventSent(_ e: Event) {
        if wantsTouches { reportTouches(e) }
        if let passthrough {
            for t in e.orderedTouches where t.view == nil && t.phase != .stationary { passthrough.heardWithoutView(t) }
        }
    }

    // MARK: Pass-through

    /// Device `device` passes through to `sink`, a mirror of `source` (`name` for logs). Touches that
    /// begin before `setExclusive(device:since:)` is called are not mirrored.
    public func addMirror(device: Int, name: String, source: DeviceDescription, sink: MirrorSink) {
        let p = passthrough ?? Passthrough(log: log)
        if passthrough == nil {
            passthrough = p
            for w in [scene.window] + retiring.map(\.scene.window) { (w as? PassthroughWindow)?.passthrough = p }
        }
        p.add(device: device, name: name, source: source, sink: sink)
    }

    /// The device stops passing through: what is down on its mirror is cancelled there at `time` (nil:
    /// the mirror is broken, nothing more is written to it).
    public func removeMirror(device: Int, at time: Double?) {
        passthrough?.remove(device: device, at: time)
    }

    // MARK: The event queue

    public func handle(_ frame: DigitizerFrame) {
        guard passthrough != nil || !retiring.isEmpty else {
            application.handle(frame)
            return
        }
        if let passthrough {
            advance(to: frame.timestamp)        // timers due before the frame, each written at its own time
            passthrough.time(frame.timestamp)
        }
        if retiring.isEmpty {
            application.handle(frame)
        } else {
            handleWithRetiringScenes(frame)
        }
        passthrough?.flush()
    }

    /// A frame while replaced scenes still have touches down: their contacts go to them, the rest to
    /// the current scene. A replaced scene whose touches have all lifted is let go.
    private func handleWithRetiringScenes(_ frame: DigitizerFrame) {
        var rest = frame.contacts
        for (_, app) in retiring {
            let mine = app.activeTouches.filter { $0.device == frame.device }.map(\.contactID)
            guard !mine.isEmpty else { continue }
            app.handle(DigitizerFrame(device: frame.device, timestamp: frame.timestamp,
                                      contacts: rest.filter { mine.contains($0.id) }))
            rest.removeAll { mine.contains($0.id) }
        }
        retiring.removeAll { $0.application.activeTouches.isEmpty }
        application.handle(DigitizerFrame(device: frame.device, timestamp: frame.timestamp, contacts: rest))
    }

    /// Lets time pass: the timers due by `time` fire, in order; with pass-through each one's writes
    /// go out at its own time.
    public func advance(to time: Double) {
        guard passthrough != nil || !retiring.isEmpty else {
            application.advance(to: time)
            return
        }
        while let d = nextDeadline, d <= time {
            passthrough?.time(d)
            advanceApplications(to: d)
            passthrough?.flush()
        }
        advanceApplications(to: time)
    }

    private func advanceApplications(to time: Double) {
        application.advance(to: time)
        for (_, app) in retiring { app.advance(to: time) }
    }

    public var nextDeadline: Double? {
        let own = application.nextDeadline
        guard !retiring.isEmpty else { return own }
        return ([own] + retiring.map { $0.application.nextDeadline }).compactMap { $0 }.min()
    }

    /// The latest time the pipeline has seen (frames and timers).
    public var currentTime: Double { application.currentTime }

    /// Fires every pending deadline (the end of a replay).
    public func finish() {
        while let d = nextDeadline { advance(to: d) }
    }

    // MARK: Lines

    /// A recognizer's class, for its type-specific fields. Only the class: a recognizer's line fields
    /// are kept by the closure its actions call, and a reference to the recognizer in them would make
    /// a cycle that no scene replacement ever frees.
    enum Kind {
        case tap, longPress, pan, edgePan, swipe, pinch, rotation, custom

        init(_ g: GestureRecognizer) {
            switch g {
            case is ScreenEdgePanGestureRecognizer: self = .edgePan
            case is PanGestureRecognizer: self = .pan
            case is TapGestureRecognizer: self = .tap
            case is LongPressGestureRecognizer: self = .longPress
            case is SwipeGestureRecognizer: self = .swipe
            case is PinchGestureRecognizer: self = .pinch
            case is RotationGestureRecognizer: self = .rotation
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

    /// The parts of a recognizer's gesture lines that do not change from one line to the next:
    /// its kind, and `,"recognizer":N,"type":T,"state":"` and `","view":V` as bytes (the view's
    /// `nameVersion` is checked on every line, and the bytes remade if it changed).
    final class GestureFields {
        let kind: Kind
        let recognizerAndType: LinePiece
        private(set) var viewNameVersion: Int?
        private(set) var view = LinePiece([])

        init(_ g: GestureRecognizer) {
            kind = Kind(g)
            var w = JSONWriter(capacity: 128)
            w.fragment(#","recognizer":"#)
            w.string(g.name ?? "")
            w.fragment(#","type":""#)
            w.fragment(kind.typeName)
            w.fragment(#"","state":""#)
            recognizerAndType = LinePiece(w.bytes)
            update(g)
        }

        deinit {
            recognizerAndType.free()
            view.free()
        }

        func update(_ g: GestureRecognizer) {
            viewNameVersion = g.viewNameVersion
            var w = JSONWriter(capacity: 128)
            w.fragment(#"","view":"#)
            if let name = g.view?.name { w.string(name) } else { w.null() }
            view.free()
            view = LinePiece(w.bytes)
        }
    }

    /// {"event":"gesture","time":T,"device":D,"recognizer":N,"type":T,"state":S,"view":V,"x":…,"y":…,"touches":N,…}
    func report(_ g: GestureRecognizer, _ fields: GestureFields) {
        guard let onLines else { return }
        // Written as fixed fragments and values (no per-key bookkeeping): this runs for every update
        // of every continuous gesture.
        writer.reset()
        writer.fragment(#"{"event":"gesture","time":"#)
        writeTime(g.currentTime)
        writer.fragment(#","device":"#)
        if let d = g.gestureTouches.first?.device { writer.int(d) } else { writer.null() }
        writer.raw(fields.recognizerAndType.bytes)
        writer.fragment(Pipeline.stateName(g))
        if g.viewNameVersion != fields.viewNameVersion { fields.update(g) }
        writer.raw(fields.view.bytes)
        let kind = fields.kind
        let p = g.location(in: nil)
        writer.fragment(#","x":"#)
        writer.number(p.x)
        writer.fragment(#","y":"#)
        writer.number(p.y)
        writer.fragment(#","touches":"#)
        writer.int(g.numberOfTouches)
        // The kind was worked out from the recognizer's class when it was wired: the casts cannot fail.
        switch kind {
        case .tap:
            writer.fragment(#","taps":"#)
            writer.int(unsafeDowncast(g, to: TapGestureRecognizer.self).numberOfTapsRequired)
        case .swipe:
            writer.fragment(#","direction":"#)
            writer.string(unsafeDowncast(g, to: SwipeGestureRecognizer.self).recognizedDirection.description)
        case .pan:
            writePan(unsafeDowncast(g, to: PanGestureRecognizer.self))
        case .edgePan:
            let e = unsafeDowncast(g, to: ScreenEdgePanGestureRecognizer.self)
            writePan(e)
            writer.fragment(#","edge":"#)
            writer.string(e.touchedEdge.description)
        case .pinch:
            let pinch = unsafeDowncast(g, to: PinchGestureRecognizer.self)
            writer.fragment(#","scale":"#)
            writer.number(pinch.scale)
            writer.fragment(#","velocity":"#)
            writer.number(pinch.velocity)
        case .rotation:
            let r = unsafeDowncast(g, to: RotationGestureRecognizer.self)
            writer.fragment(#","rotation":"#)
            writer.number(r.rotation)
            writer.fragment(#","velocity":"#)
            writer.number(r.velocity)
        case .longPress, .custom:
            break
        }
        writer.fragment("}")
        let bytes = writer.unsafeBytes                  // the callback copies what it keeps (`onLines`)
        onLines(.gestures, bytes)
    }

    private func writePan(_ pan: PanGestureRecognizer) {
        let t = pan.translation(in: nil), v = pan.velocity(in: nil)
        writer.fragment(#","translation":{"x":"#)
        writer.number(t.x)
        writer.fragment(#","y":"#)
        writer.number(t.y)
        writer.fragment(#"},"velocity":{"x":"#)
        writer.number(v.x)
        writer.fragment(#","y":"#)
        writer.number(v.y)
        writer.fragment("}")
    }

    /// {"event":"touch","time","device","id","phase","x","y","view","tapCount","majorRadius","force"}
    ///
    /// The touch lines of one event go out together, one chunk of lines. What stays the same while a
    /// touch is down (its device, id, view and tapCount, T4, T7) is written once and kept as bytes.
    func reportTouches(_ e: Event) {
        guard let onLines else { return }
        writer.reset()
        var first = true
        // A touch that changed in this event has the event's time as its timestamp (T6).
        let time = e.timestamp
        e.orderedTouches.forEach { t in       // the event keeps its touches
            let phase = t.phase
            guard phase != .stationary else { return }
            if !first { writer.newline() }
            first = false
            let parts = touchParts(for: t)
            writer.fragment(#"{"event":"touch","time":"#)
            writeTime(time)
            writer.raw(touchPartList[parts].identity)
            switch phase {
            case .began: writer.fragment(#","phase":"began","x":"#)
            case .moved: writer.fragment(#","phase":"moved","x":"#)
            case .stationary: writer.fragment(#","phase":"stationary","x":"#)
            case .ended: writer.fragment(#","phase":"ended","x":"#)
            case .cancelled: writer.fragment(#","phase":"cancelled","x":"#)
            }
            let p = t.location(in: nil)
            writer.number(p.x)
            writer.fragment(#","y":"#)
            writer.number(p.y)
            writer.raw(touchPartList[parts].viewAndTaps)
            writer.number(t.majorRadius)
            writer.fragment(#","force":"#)
            writer.number(t.force)
            writer.fragment("}")
            if phase == .ended || phase == .cancelled { touchPartList.remove(at: parts).free() }
        }
        guard !first else { return }
        let bytes = writer.unsafeBytes
        onLines(.touches, bytes)
    }

    /// The fixed parts of a touch's lines: `,"device":D,"id":N` and `,"view":V,"tapCount":T,"majorRadius":`,
    /// kept one after the other in one piece (one allocation a touch).
    private struct TouchParts {
        var identifier: Int
        /// The `nameVersion` of the view the bytes were made with (nil: no view).
        var viewNameVersion: Int?
        var pieces: LinePiece
        /// Where `viewAndTaps` starts in `pieces`.
        var split: Int

        var identity: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: pieces.bytes[..<split]) }
        var viewAndTaps: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: pieces.bytes[split...]) }

        func free() { pieces.free() }
    }
    private var touchPartList: [TouchParts] = []
    private var partsWriter = JSONWriter(capacity: 128)

    /// The position of `t`'s parts in `touchPartList`, made (or remade, if its view was renamed) as needed.
    @inline(__always)
    private func touchParts(for t: Touch) -> Int {
        let viewNameVersion = t.view?.nameVersion
        let id = t.identifier
        var i = 0
        while i < touchPartList.count {
            if touchPartList[i].identifier == id {
                if touchPartList[i].viewNameVersion == viewNameVersion { return i }
                break
            }
            i += 1
        }
        return makeTouchParts(for: t, replacing: i < touchPartList.count ? i : nil)
    }

    @inline(never)
    private func makeTouchParts(for t: Touch, replacing old: Int?) -> Int {
        if let old { touchPartList.remove(at: old).free() }
        if touchPartList.count >= 64 {                                      // touches whose end went unreported
            for p in touchPartList.prefix(32) { p.free() }
            touchPartList.removeFirst(32)
        }
        // Written with a writer kept for it, both parts one after the other: a new touch then allocates
        // one piece and nothing else here (with fingers landing on most frames, a writer, two arrays and
        // two pieces a touch were most of the daemon's allocations).
        partsWriter.reset()
        partsWriter.fragment(#","device":"#)
        partsWriter.int(t.device)
        partsWriter.fragment(#","id":"#)
        partsWriter.int(t.identifier)
        let split = partsWriter.count
        partsWriter.fragment(#","view":"#)
        if let viewName = t.view?.name { partsWriter.string(viewName) } else { partsWriter.null() }
        partsWriter.fragment(#","tapCount":"#)
        partsWriter.int(t.tapCount)
        partsWriter.fragment(#","majorRadius":"#)
        let pieces = partsWriter.withBytes { LinePiece($0) }
        touchPartList.append(TouchParts(identifier: t.identifier, viewNameVersion: t.view?.nameVersion, pieces: pieces, split: split))
        return touchPartList.count - 1
    }

    /// An event's lines all carry its time: it is formatted once.
    @inline(__always)
    private func writeTime(_ t: Double) {
        if t == lastTime {
            writer.raw(UnsafeBufferPointer(start: lastTimeBytes, count: lastTimeCount))
            return
        }
        let start = writer.count
        writer.number(t)
        let count = writer.count - start
        if count <= Pipeline.timeCapacity {
            writer.withBytes { lastTimeBytes.update(from: $0.baseAddress! + start, count: count) }
            lastTimeCount = count
            lastTime = t
        }
    }
    private var lastTime = Double.nan
    /// The last time as written: kept in fixed storage, read without reference counting.
    private static let timeCapacity = 40
    private let lastTimeBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: Pipeline.timeCapacity)
    private var lastTimeCount = 0

    deinit {
        lastTimeBytes.deallocate()
        for p in touchPartList { p.free() }
    }
}
