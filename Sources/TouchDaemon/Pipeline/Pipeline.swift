import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

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
    /// Recognizer lines (topic `recognizers`): every transition is reported only while someone wants
    /// them; otherwise the recognizers do not even format their reasons.
    public var wantsRecognizers = false {
        didSet {
            guard wantsRecognizers != oldValue else { return }
            for app in [application] + retiring.map(\.application) { watchTransitions(app) }
        }
    }
    /// The scene changed (a reload, a client scene, a recognizer enabled or disabled): the scene
    /// topic's line is due.
    public var onSceneChanged: (() -> Void)?
    package let log: Logger
    private var lineWriter = LineWriter()
    private var touchLines = TouchLines()

    /// The mirrors of pass-through devices (README "Pass-through"); nil until a device passes through.
    public private(set) var passthrough: Passthrough?
    /// Scenes replaced while touches were down on them (SIGHUP): each keeps its touches until they
    /// lift, so that a touch keeps the fate it had; new touches go to the current scene.
    private var retiring: [(scene: Scene, application: Application)] = []

    /// Client scenes (protocol 2), in push order: their views are the window's front-most.
    public internal(set) var clientScenes: [ClientScene] = []
    /// Client scenes taken away while touches were down: their recognizers are disabled, but the
    /// touches that began on them keep their views (T4) and the recognizers stay alive until those lift.
    package var removedClientScenes: [ClientScene] = []
    /// What `set recognizers` decided, by recognizer name, in order: kept across a reload of the scene
    /// file, so that a reloaded scene does not bring back what a lock screen turned off.
    package var enabledOverrides: [String: Bool] = [:]
    /// The focused app and the one the recognizers' scopes follow (Pipeline+Focus).
    var focusState = FocusState()

    /// The scenes' actions at work (README "Actions"); nil: actions are off (the scene has none,
    /// `--no-actions`, no /dev/uinput, or a write failed).
    public private(set) var actions: Actions?
    /// Each device's scene entry (its region and pointerArea), for where an action's pointer lands.
    private(set) var deviceConfigs: [Int: DeviceConfig] = [:]
    /// The display's power and the sequences that only wake it (docs/screen-aware.md).
    package var displayGate = DisplayGate()
    /// The backlight's dimming and the display's state (Pipeline+Display).
    package var displayPower = DisplayPower()
    /// Where backlights are set: the kernel's in the daemon, a virtual one in replays; nil: none (a
    /// slider's value is only told).
    package var backlights: BacklightControl?
    /// Someone wants `activity` lines; the devices with fingers down (the frames' own view, before any
    /// gate: a touch that only wakes the display is activity too).
    public var wantsActivity = false
    private var touchingDevices: Set<Int> = []
    /// Pens and the fingers they make palms of (PR1–PR4).
    private var palms = PalmRejection()
    /// Each pen's barrel buttons as last told.
    private var pencilButtons: [Int: PencilButtons] = [:]

    public init(scene: Scene, log: Logger) {
        self.scene = scene
        self.log = log
        application = Application(window: scene.window)
        wire(application, scene)
        applyScopes(scene.scopes)
        applyPassthroughApps()
        displayPower.config = scene.display
    }

    /// Takes a new scene (SIGHUP, or the built-in scene sized for the first device). The old scene's
    /// recognizers are disabled (C6): a gesture under way ends cancelled, one still deciding fails, and
    /// the touches they held back reach the views (and the mirrors) now. The touches already down stay
    /// in the old scene, moving and lifting as they would have, and leave with it; new touches follow
    /// the new scene.
    public func replace(scene newScene: Scene, at time: Double) {
        let old = application, oldScene = scene
        passthrough?.time(time)
        actions?.clock(time)
        for r in oldScene.recognizers { r.isEnabled = false }
        // The client scenes go with the old window, and are built again on the new one.
        let clients = clientScenes
        for c in clients { for r in c.recognizers { r.isEnabled = false } }
        if !old.activeTouches.isEmpty { retiring.append((oldScene, old)) }
        // The old scene's actions end with it (a coast stops); the new scene's start.
        actions?.unbindAll()
        scene = newScene
        application = Application(window: newScene.window)
        wire(application, newScene)
        clientScenes = []
        for c in clients {
            if let again = c.rebuilt() { attach(again, at: nil) }
        }
        applyOverrides(to: newScene.recognizers)
        applyScopes(newScene.scopes)
        applyPassthroughApps()
        applyFocusWhenIdle()
        // A scene without "display" gives the backlight back before letting it go.
        if newScene.display == nil && oldScene.display != nil && displayPower.state != .on { setDisplay(on: true, at: time) }
        displayPower.config = newScene.display
        flushWrites()                           // fingers the old scene had on the touchpad lift
        onSceneChanged?()
    }

    private func wire(_ application: Application, _ scene: Scene) {
        application.onWarning = { [log] in log.warning($0) }
        if log.level >= .debug { application.debugLog = { [log] in log.debug($0) } }
        for r in scene.recognizers { wire(r) }
        if let actions { for (r, a) in scene.actions { actions.bind(r, a) } }
        application.onEvent = { [unowned self] e in eventSent(e) }
        (scene.window as? PassthroughWindow)?.passthrough = passthrough
        watchTransitions(application)
    }

    /// Reports `r`'s actions as gesture lines.
    package func wire(_ r: GestureRecognizer) {
        // What kind of recognizer it is and the fixed part of its lines, decided once rather than on
        // every action. Unowned: the pipeline owns the recognizers that keep this.
        let fields = GestureLine.Fields(r)
        r.addTarget { [unowned self] g in report(g, fields) }
    }

    private func watchTransitions(_ app: Application) {
        app.onTransition = wantsRecognizers ? { [unowned self] t in reportTransition(t) } : nil
    }

    // MARK: Actions

    /// Actions start: the scene's and the client scenes' are bound, and their lines go to the
    /// `actions` topic. A failed write ends them (`actions` becomes nil) and is told to `onFailure`.
    public func startActions(_ a: Actions, onFailure: @escaping (Error) -> Void) {
        actions = a
        a.onLine = { [unowned self] bytes in onLines?(.actions, bytes) }
        a.area = { [unowned self] device in
            let window = scene.window.bounds
            let config = device.flatMap { deviceConfigs[$0] }
            return (config?.region ?? window, config?.pointerArea)
        }
        a.brightness = { [unowned self] target in backlights?.brightness(backlightName(target)) }
        a.setBrightness = { [unowned self] target, v in backlights?.set(backlightName(target), v, off: false) }
        a.onFailure = { [unowned self] error in
            actions = nil
            onFailure(error)
        }
        for (r, action) in scene.actions { a.bind(r, action) }
        for c in clientScenes { for (r, action) in c.actions { a.bind(r, action) } }
    }

    /// Actions end (SIGTERM, the last scene with actions gone): coasting stops, nothing more is written.
    public func stopActions() {
        actions?.stopCoasting()
        actions?.unbindAll()                    // fingers on the touchpad lift…
        actions?.flush()                        // …before the devices go
        actions = nil
    }

    /// Device `device` maps through `config` (nil: it went away, and a coast it drove stops).
    public func setDeviceConfig(_ config: DeviceConfig?, device: Int) {
        deviceConfigs[device] = config
        if let config {
            palms.setEnabled(config.palmRejection, device: device)
        } else {
            actions?.stopCoasting(device: device)
            displayGate.forget(device: device)
            displayPower.forget(device: device, at: currentTime)
            palms.forget(device: device)
            pencilButtons[device] = nil
        }
        displayGate.readsDPMS = deviceConfigs.values.contains { $0.dpms != nil }
        if applyPassthroughApps() { onSceneChanged?() }
    }

    /// An activity line (ActivityLine) when a device's first finger lands or its last lifts.
    private func noteActivity(_ frame: DigitizerFrame) {
        let touching = !frame.contacts.isEmpty
        guard touching != touchingDevices.contains(frame.device), let onLines else { return }
        if touching { touchingDevices.insert(frame.device) } else { touchingDevices.remove(frame.device) }
        ActivityLine.encode(time: frame.timestamp, device: frame.device, touching: touching).withUnsafeBufferPointer { onLines(.activity, $0) }
    }

    // MARK: The display (docs/screen-aware.md)

    /// Seconds after `display on` in which a new touch sequence is still swallowed (`--wake-holdoff`).
    public var wakeHoldoff: Double {
        get { displayGate.holdoff }
        set { displayGate.holdoff = newValue }
    }

    /// Whether the gate swallows `frame`; a sequence that wakes the display is told on `devices`.
    private func swallowed(_ frame: DigitizerFrame) -> Bool {
        let underWay = application.activeTouches.contains { $0.device == frame.device }
            || retiring.contains { $0.application.activeTouches.contains { $0.device == frame.device } }
        let verdict = displayGate.admit(frame, underWay: underWay) {
            guard let path = deviceConfigs[frame.device]?.dpms else { return false }
            return DisplayGate.dpmsSaysOff(path)
        }
        switch verdict {
        case .pass: return false
        case .swallow: return true
        case .wake(let p):
            if let onLines {
                WakeLine.encode(time: frame.timestamp, device: frame.device, at: p).withUnsafeBufferPointer { onLines(.devices, $0) }
            }
            return true
        }
    }

    /// After every event: its touch lines, and the touches no view could hear for the mirrors.
    private func eventSent(_ e: Event) {
        if let actions, actions.isCoasting, e.orderedTouches.contains(where: { $0.phase == .began }) { actions.touchBegan() }
        if wantsTouches { reportTouches(e) }
        if let passthrough {
            for t in e.orderedTouches where t.view == nil && t.phase != .stationary { passthrough.heardWithoutView(t) }
        }
    }

    // MARK: Pass-through

    /// Device `device` passes through to `sink`, a mirror of `source` (`name` for logs). Touches that
    /// begin before `grabbedSince()` (nil: not yet) are the compositor's and are not mirrored; a
    /// recording, which nobody else reads, passes through from the start.
    public func addMirror(device: Int, name: String, source: DeviceDescription, sink: MirrorSink,
                          grabbedSince: @escaping () -> Double? = { -.infinity }) {
        let p = passthrough ?? Passthrough(log: log)
        if passthrough == nil {
            passthrough = p
            for w in [scene.window] + retiring.map(\.scene.window) { (w as? PassthroughWindow)?.passthrough = p }
        }
        p.add(device: device, name: name, source: source, sink: sink, grabbedSince: grabbedSince)
    }

    /// The device stops passing through: what is down on its mirror is cancelled there at `time` (nil:
    /// the mirror is broken, nothing more is written to it).
    public func removeMirror(device: Int, at time: Double?) {
        passthrough?.remove(device: device, at: time)
    }

    // MARK: Pens (docs/pens.md)

    /// `pen` shares a screen with the finger device `finger`: while it is in range, and for the
    /// hold-off after, fingers on `finger` are palms (PalmRejection, PR1–PR4).
    public func pairPen(_ pen: Int, withFingers finger: Int) {
        palms.pair(pen: pen, finger: finger)
    }

    /// Seconds after a pen leaves in which a finger landing is still a palm (`--palm-holdoff`).
    public var palmHoldoff: Double {
        get { palms.holdoff }
        set { palms.holdoff = newValue }
    }

    /// `{"event":"pencil","time":T,"device":D,"button":1|2,"state":"pressed"|"released","x":X,"y":Y}` on
    /// the gestures topic for each barrel button that changed, and the scene's `pencilButtons` action
    /// on a press.
    private func notePencilButtons(_ frame: DigitizerFrame) {
        let before = pencilButtons[frame.device] ?? []
        guard frame.pencilButtons != before else { return }
        pencilButtons[frame.device] = frame.pencilButtons.isEmpty ? nil : frame.pencilButtons
        let at = frame.hover?.location ?? frame.contacts.first { $0.type == .pencil && !$0.isCancelled }?.location
        let p = scene.window.convertFromScreen(at ?? .zero)
        for (n, button) in [(1, PencilButtons.primary), (2, PencilButtons.secondary)]
        where frame.pencilButtons.contains(button) != before.contains(button) {
            let pressed = frame.pencilButtons.contains(button)
            if let onLines {
                PencilLine.encode(time: frame.timestamp, device: frame.device, button: n, pressed: pressed, at: p)
                    .withUnsafeBufferPointer { onLines(.gestures, $0) }
            }
            if pressed, let action = scene.pencilButtonActions[n], let actions {
                actions.pencilButton(n, action, at: p, device: frame.device, time: frame.timestamp)
            }
        }
        if actions?.hasPending == true { actions?.flush() }
    }

    // MARK: The event queue

    /// Takes a device's frame: a pen's barrel buttons are told, palms are left out (PR1–PR4), and the
    /// rest goes on to the application.
    public func handle(_ frame: DigitizerFrame) {
        if !frame.pencilButtons.isEmpty || pencilButtons[frame.device] != nil { notePencilButtons(frame) }
        if palms.isIdle {
            deliver(frame)
        } else if palms.isPen(frame.device) {
            for cancel in palms.penFrame(frame) { deliver(cancel) }
            deliver(frame)
        } else if palms.guards(frame.device) {
            deliver(palms.fingerFrame(frame))
        } else {
            deliver(frame)
        }
    }

    private func deliver(_ frame: DigitizerFrame) {
        if focusState.told != focusState.applied { applyFocusWhenIdle() }
        if wantsActivity { noteActivity(frame) }
        let swallow = displayGate.isActive && swallowed(frame)
        if displayPower.watchesFrames { notePower(frame) }
        if swallow { return }
        guard passthrough != nil || !retiring.isEmpty || actions != nil else {
            application.handle(frame)
            if !removedClientScenes.isEmpty { releaseRemovedClientScenes() }
            return
        }
        defer { if !removedClientScenes.isEmpty { releaseRemovedClientScenes() } }
        // Timers due before the frame (coasting ticks among them), each written at its own time.
        if passthrough != nil || actions?.nextDeadline != nil { advance(to: frame.timestamp) }
        passthrough?.time(frame.timestamp)
        if retiring.isEmpty {
            application.handle(frame)
        } else {
            handleWithRetiringScenes(frame)
        }
        if let actions, actions.isFollowing { actions.follow(at: frame.timestamp) }
        // The mirrors first: an app has lost a touch a recognizer claimed before its action arrives (AC7).
        passthrough?.flush()
        actions?.flush()
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
        // The rest, with the pencil's hover and buttons, is the current scene's.
        var current = frame
        current.contacts = rest
        application.handle(current)
    }

    /// What a command or a scene change made goes out: the mirrors' cancels, then the actions'
    /// (the fingers a disabled recognizer had on the touchpad lift).
    func flushWrites() {
        passthrough?.flush()
        if actions?.hasPending == true { actions?.flush() }
    }

    /// Lets time pass: the timers due by `time` fire, in order; with pass-through each one's writes
    /// go out at its own time.
    public func advance(to time: Double) {
        guard passthrough != nil || !retiring.isEmpty || actions != nil || displayPower.nextDeadline != nil else {
            application.advance(to: time)
            return
        }
        while let d = nextDeadline, d <= time {
            passthrough?.time(d)
            advanceApplications(to: d)
            advanceDisplay(to: d)
            actions?.advance(to: d)
            passthrough?.flush()
            actions?.flush()
        }
        advanceApplications(to: time)
        if actions?.hasPending == true { actions?.flush() }
    }

    private func advanceApplications(to time: Double) {
        application.advance(to: time)
        for (_, app) in retiring { app.advance(to: time) }
    }

    public var nextDeadline: Double? {
        var next = application.nextDeadline
        func earliest(_ d: Double?) { if let d, next == nil || d < next! { next = d } }
        for (_, app) in retiring { earliest(app.nextDeadline) }
        earliest(actions?.nextDeadline)
        earliest(displayPower.nextDeadline)
        return next
    }

    /// The latest time the pipeline has seen (frames and timers).
    public var currentTime: Double { application.currentTime }

    /// Fires every pending deadline (the end of a replay).
    public func finish() {
        while let d = nextDeadline { advance(to: d) }
    }

    // MARK: Lines (Protocol/Lines)

    /// A recognizer's action: its gesture line.
    package func report(_ g: GestureRecognizer, _ fields: GestureLine.Fields) {
        guard let onLines else { return }
        lineWriter.json.reset()
        GestureLine.write(g, fields, into: &lineWriter)
        onLines(.gestures, lineWriter.json.unsafeBytes)       // the callback copies what it keeps
    }

    /// A recognizer's state change: its recognizer line.
    package func reportTransition(_ t: RecognizerTransition) {
        guard let onLines else { return }
        let line = RecognizerLine.encode(t)
        line.withUnsafeBufferPointer { onLines(.recognizers, $0) }
    }

    /// The scene topic's line: the scene and the client scenes as they are now.
    public func sceneLine() -> [UInt8] {
        SceneLine.encode(scene, clients: clientScenes, passthroughDevices: application.devicesWithoutRecognizers.sorted())
    }

    /// Every recognizer's current state, one recognizer line each (`cause` "subscribed"), for a new
    /// `recognizers` subscriber.
    public func recognizerStateLines() -> [[UInt8]] {
        recognizers.map { RecognizerLine.current($0, time: currentTime) }
    }

    /// The touch lines of an event, one chunk.
    package func reportTouches(_ e: Event) {
        guard let onLines else { return }
        lineWriter.json.reset()
        guard touchLines.write(e, into: &lineWriter) else { return }
        onLines(.touches, lineWriter.json.unsafeBytes)
    }

    deinit {
        lineWriter.free()
        touchLines.free()
    }
}
