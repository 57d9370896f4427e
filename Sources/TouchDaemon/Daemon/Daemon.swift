import CLinux
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// The daemon: one thread, one epoll loop. Stages are named after the iOS path they mirror:
///
///     device monitor (InputDevices: udev, libevdev)        ~ IOHIDFamily
///       → frames (FrameAssembler)                           ~ BackBoard
///       → event queue (Pipeline → Application.handle)       ~ UIApplication
///       → Window.sendEvent (gesture environment, views)     ~ UIWindow
///       → socket (SocketServer, NDJSON)
///
/// plus one timer armed at `Application.nextDeadline` (long presses, taps waiting for a second tap),
/// signals through signalfd, and sd_notify. Nothing polls: an idle daemon sleeps in epoll_wait.
public final class Daemon {
    package let options: DaemonOptions
    package let log: Logger
    package let loop: EventLoop
    package let pipeline: Pipeline
    package let server: SocketServer
    package let devices: InputDevices
    package let deadline: Timer
    package let signals: SignalReceiver
    package let notifier = SystemdNotifier()
    /// The --replay recordings, read and checked at start.
    package let recordings: [(path: String, recording: Recording)]
    package var watchdog: Timer?
    public private(set) var exitStatus: Int32 = 0
    /// The actions' lifecycle (README "Actions"), owned here; whether actions run at this moment is
    /// the pipeline's (`pipeline.actions`, present while a scene has some), and coasting is its bindings'.
    ///
    ///     unused ──a scene has actions──▶ ready(devices) ──a write fails──▶ off(why)
    ///        └──── --no-actions, or no /dev/uinput ──────────────────────▶ off(why)
    package enum ActionsState {
        /// No scene has had actions yet: no devices made.
        case unused
        /// The keyboard and pointer are made (once, kept until the daemon exits); `toldNoPassthrough`:
        /// the warning that the compositor also gets the touches was given.
        case ready(ActionDevices, toldNoPassthrough: Bool)
        /// Off for good, and why (said once): --no-actions, no /dev/uinput, a failed write.
        case off(String)
    }
    package private(set) var actionsState = ActionsState.unused

    public init(options: DaemonOptions, log: Logger) throws {
        self.options = options
        self.log = log
        // A client that stops reading holds up to --client-queue bytes (1 MiB) until it is dropped.
        // glibc would raise its mmap threshold to the largest block freed and serve later queues from
        // the heap, where they fragment it: the resident size of a long-running daemon would creep up
        // with every slow client (the soak saw its floor grow by 6.5 MiB in a minute). A fixed threshold
        // keeps every block of 128 KiB or more in a mapping of its own, returned when freed.
        _ = clinux_fix_mmap_threshold(128 * 1024)
        let scene: Scene
        if let path = options.scenePath {
            scene = try Scene.load(path: path, passthrough: options.passthrough)
            scene.rotationForEveryDevice = options.rotation
            log.info("scene \(path): \(counted(scene.views.count, "view")), \(counted(scene.recognizers.count, "recognizer"))")
            for w in scene.warnings { log.warning(w) }
        } else {
            scene = Scene.builtIn(passthrough: options.passthrough, rotation: options.rotation)
            log.info("built-in \(options.passthrough ? "pass-through " : "")scene, \(Int(scene.window.bounds.width))×\(Int(scene.window.bounds.height)) pt until a touchscreen gives its size: view \"screen\" with \(scene.recognizers.map { $0.name ?? "" }.joined(separator: ", "))")
        }
        loop = try EventLoop()
        signals = try SignalReceiver([SIGTERM, SIGINT, SIGHUP])
        deadline = try Timer()
        pipeline = Pipeline(scene: scene, log: log)
        pipeline.wakeHoldoff = options.wakeHoldoff
        pipeline.backlights = SysfsBacklights(sysfs: options.sysfsRoot, log: log)
        // The control group is checked before the socket exists: a daemon that refuses to start never
        // shows clients a socket, however briefly.
        var controlGroup: (name: String, gid: UInt32)?
        if let name = options.controlGroup {
            guard let group = ControlPolicy.group(named: name) else {
                throw SocketError("control group \"\(name)\" does not exist (create it, or name another with --control-group)")
            }
            controlGroup = group
        }
        // Recordings are read, and checked against the scene, before the socket exists too.
        recordings = try options.replayPaths.map { path in
            let r = try Recording.load(path: path, descriptionPath: options.replayDescription)
            if let t = r.truncation {
                throw RecordingError(file: t.file, line: t.line, reason: "\(t.reason); touchbridgectl replay --allow-truncated plays what is whole, or ask for the whole file")
            }
            if let w = r.unfinishedWarning { log.warning(w) }
            try r.requireEvents()
            _ = try scene.replayConfig(for: r)
            return (path, r)
        }
        server = try SocketServer(path: options.socketPath ?? DaemonSocket.defaultPath(), group: options.socketGroup,
                                  loop: loop, log: log)
        server.queueLimit = options.clientQueueBytes
        server.clientsPerUID = options.clientsPerUID
        if let group = controlGroup { server.controlPolicy.group = group }
        devices = InputDevices(loop: loop, log: log, pipeline: pipeline)
        server.hello = HelloLine.encode(version: Version.string, protocolVersion: Version.protocolVersion)
        wire()
    }

    private func wire() {
        // The daemon owns the pipeline, the devices and the loop that hold these, and outlives them.
        pipeline.onLines = { [server] topic, lines in server.broadcast(lines, topic: topic) }
        server.onTopicsChanged = { [unowned self] topics in
            self.pipeline.wantsTouches = topics.contains(.touches)
            self.pipeline.wantsRecognizers = topics.contains(.recognizers)
            self.pipeline.wantsActivity = topics.contains(.activity)
            self.wantsScene = topics.contains(.scene)
        }
        server.onSubscribe = { [unowned self] topics in
            (topics.contains(.devices) ? self.devices.presentDeviceLines() + self.pipeline.displayStateLines(time: monotonicNow()) : [])
                + (topics.contains(.scene) ? [self.pipeline.sceneLine()] : [])
                + (topics.contains(.recognizers) ? self.pipeline.recognizerStateLines() : [])
                + (topics.contains(.focus) ? [FocusLine.encode(self.focus?.focus, time: monotonicNow())] : [])
        }
        server.onControl = { [unowned self] request in self.control(request) }
        server.onDisconnect = { [unowned self] connection in
            self.pipeline.removeClientScenes(of: connection, at: monotonicNow())
            if let f = self.focus, f.focus.whileConnected, f.connection == connection {
                // A follower went: its focus goes with it, never left on a stale app.
                self.log.info("focus cleared: \(f.focus.source.map { "the \($0) follower" } ?? "the connection that set it") went away")
                self.changeFocus(nil, connection: connection)
            }
            self.rearm()
        }
        pipeline.onSceneChanged = { [unowned self] in
            self.sceneChanged = true
            if !self.inControl { self.sendScene() }
        }
        devices.onDeviceLine = { [unowned self] line in
            if self.inControl { self.heldLines.append((line, .devices)) } else { self.server.broadcast(line, topic: .devices) }
        }
        server.onControlAnswered = { [unowned self] in
            // The answer is out: the lines the command caused go now, then any a peer's going caused
            // while it was answered (a follower that closed before its ok: its focus cleared after it
            // was set, in that order).
            self.inControl = false
            for (line, topic) in self.heldLines { self.server.broadcast(line, topic: topic) }
            self.heldLines = []
            if self.sceneChanged { self.sendScene() }
        }
        devices.onActivity = { [unowned self] in self.rearm() }
        loop.afterHandlers = { [server] in server.flushQueued() }
        try? loop.add(signals.fd) { [unowned self] _ in self.handleSignals() }
        try? loop.add(deadline.fd) { [unowned self] _ in self.timerFired() }
    }

    /// Someone is subscribed to the scene topic.
    private var wantsScene = false
    /// A control command is being carried out: what it changes is told after its answer.
    private var inControl = false
    private var heldLines: [([UInt8], Topics)] = []
    private var sceneChanged = false

    /// The focused app as last set, and the connection that set it (docs/focus.md).
    private var focus: (focus: Focus, connection: Int)?

    /// A new focus (nil: none known): the pipeline follows it from its next touch sequence (FO2), and
    /// the focus topic is told (after a command's answer).
    private func changeFocus(_ new: Focus?, connection: Int) {
        focus = new.map { ($0, connection) }
        pipeline.setFocus(app: new?.app)
        let line = FocusLine.encode(new, time: monotonicNow())
        if inControl { heldLines.append((line, .focus)) } else { server.broadcast(line, topic: .focus) }
    }

    /// The scene topic's line, to those subscribed, once per change.
    private func sendScene() {
        sceneChanged = false
        if wantsScene { server.broadcast(pipeline.sceneLine(), topic: .scene) }
    }

    /// A control command of a permitted peer (protocol 2): carried out whole, or refused whole.
    private func control(_ request: SocketServer.ControlRequest) -> Result<String?, ClientCommand.Refusal> {
        let now = monotonicNow()
        // Lines the command causes wait for its answer (onControlAnswered ends the hold): a subscriber
        // hears of a change after the command's peer has its ok.
        inControl = true
        var warning: String?
        do throws(ClientCommand.Refusal) {
            switch request.command {
            case .setRecognizers(let patterns, let enabled):
                try pipeline.setEnabled(patterns: patterns, enabled: enabled, at: now)
            case .setDevice(let target, let change):
                try devices.setMapping(target, change)
            case .scene(let name, let views):
                try pipeline.setClientScene(connection: request.connection, name: name, views: views, at: now)
                startActionsIfWanted()
            case .setBrightness(let f):
                try pipeline.setBrightness(f, at: now)
                log.info("display: brightness \(f) (set brightness)")
            case .setDisplay(let on):
                pipeline.setDisplay(on: on, at: now)
                log.info("display \(on ? "on" : "off")" + (on ? " (touches that begin in the next \(options.wakeHoldoff) s are swallowed)" : ": a touch only wakes it"))
                if !on, !devices.ungrabbedPanels.isEmpty {
                    warning = "\(devices.ungrabbedPanels.joined(separator: ", ")) not grabbed (pass it through, or \"grab\": true in its devices entry): the compositor still sees the touch that wakes the display"
                    log.warning("set display off: \(warning!)")
                }
            case .setFocus(let f):
                if f?.app != focus?.focus.app {
                    log.info(f.map { "focus: \($0.app)" + ($0.source.map { " (\($0))" } ?? "") } ?? "focus cleared")
                }
                changeFocus(f, connection: request.connection)
            case .subscribe:
                break
            }
        } catch {
            return .failure(error)
        }
        rearm()
        return .success(warning)
    }

    /// Actions start when a scene or a client scene has some (README "Actions"): the action devices
    /// are made then, once. Without /dev/uinput, or with --no-actions, the log says so once and the
    /// gestures are served all the same.
    package func startActionsIfWanted() {
        let wanted = pipeline.scene.actions.count + pipeline.scene.pencilButtonActions.count
            + pipeline.clientScenes.reduce(0) { $0 + $1.actions.count }
        guard wanted > 0, pipeline.actions == nil else { return }
        switch actionsState {
        case .off(let why):
            // Without the devices, sliders still slide (they need none); not with --no-actions.
            let sliders = (pipeline.scene.actions.map(\.action) + pipeline.clientScenes.flatMap { $0.actions.map(\.action) })
                .contains { !$0.needsDevices }
            if why != "--no-actions" && sliders {
                pipeline.startActions(Actions(devices: nil, deviceless: true, log: log)) { _ in }
            }
            return
        case .unused:
            if options.noActions {
                log.info("--no-actions: the scene's \(wanted) action\(wanted == 1 ? "" : "s") are not performed")
                actionsState = .off("--no-actions")
                return
            }
            do {
                let made = try ActionDevices.create()
                let nodes = [made.keyboard, made.pointer].compactMap { ($0 as? UinputDevice)?.devnode }.joined(separator: ", ")
                log.info("actions: \"\(ActionDeviceDescription.keyboardName)\" and \"\(ActionDeviceDescription.pointerName)\" (\(nodes)); "
                         + "keys in the keyboard layout \(pipeline.scene.keyboardLayout)")
                actionsState = .ready(made, toldNoPassthrough: false)
            } catch {
                actionsState = .off("\(error)")
                log.warning("actions are off: \(error); gestures are still served on the socket, and sliders still set their values")
                startActionsIfWanted()
                return
            }
            startActionsIfWanted()
        case .ready(let devices, let told):
            pipeline.startActions(Actions(devices: devices, log: log)) { [unowned self] error in
                actionsState = .off("\(error)")
                log.error("actions: \(error); actions are off until the daemon restarts (gestures are still served)")
            }
            // Without pass-through the apps see the touches that fire an action as well (a long press
            // is a right click and a left press; a scrolling pan also drags).
            let passes = pipeline.scene.passesEveryDevice || pipeline.scene.devices.contains { $0.passthrough }
            if !passes && !told {
                actionsState = .ready(devices, toldNoPassthrough: true)
                log.warning("actions without pass-through: the compositor also gets the touches that fire them (a long press that right-clicks also presses; a pan that scrolls also drags); pass the panel through (--passthrough, or \"passthrough\": true in its devices entry)")
            }
        }
    }


    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        pipeline.startDisplayClock(at: monotonicNow())
        rearm()                                         // the dimming's first timer
        startActionsIfWanted()
        if !options.noDevices { devices.start(replaying: !recordings.isEmpty) }
        if !recordings.isEmpty {
            do {
                try devices.replay(recordings, delay: options.replayDelay, loop: options.replayLoop,
                                   together: options.replayTogether)
            } catch {
                log.error("cannot replay: \(error)")
                server.shutdown()
                return 1
            }
        }
        if let interval = notifier.watchdogInterval, let t = try? Timer() {
            watchdog = t
            t.arm(at: monotonicNow() + interval / 2, interval: interval / 2)
            try? loop.add(t.fd) { [unowned self, unowned t] _ in t.acknowledge(); self.notifier.notify("WATCHDOG=1") }
        }
        notifier.notify("READY=1\nSTATUS=serving gestures on \(server.path ?? "the activated socket")")
        loop.run()
        notifier.notify("STOPPING=1")
        pipeline.stopActions()                          // a coast stops; nothing more is written
        devices.stop()
        if case .ready(let made, _) = actionsState { made.destroy() }
        server.shutdown()
        log.info("stopped")
        return exitStatus
    }

    /// Arms the deadline timer at the application's next deadline (or disarms it). Every read of a
    /// device asks; the timer is only set again when the answer changed.
    package func rearm() {
        let next = pipeline.nextDeadline
        if let armed = armedDeadline, armed == next { return }
        deadline.arm(at: next)
        armedDeadline = .some(next)
    }

    /// What the deadline timer was last set to (.some(nil): disarmed); nil: unknown.
    private var armedDeadline: Double??

    private func timerFired() {
        deadline.acknowledge()
        armedDeadline = nil                 // it went off: no longer armed
        // Advance exactly to the deadlines that are due, not to "now": a frame stamped between the
        // deadline and now may still be waiting to be read, and time must not pass it.
        let now = monotonicNow()
        while let d = pipeline.nextDeadline, d <= now { pipeline.advance(to: d) }
        rearm()
    }

    private func handleSignals() {
        for s in signals.take() {
            switch s {
            case SIGTERM, SIGINT:
                log.info("signal \(s == SIGTERM ? "SIGTERM" : "SIGINT"): exiting")
                loop.stop()
            case SIGHUP:
                reload()
            default:
                break
            }
        }
    }

    /// SIGHUP: re-reads the scene file; an invalid one is reported and the old scene stays.
    package func reload() {
        guard let path = options.scenePath else {
            log.info("SIGHUP: the built-in scene has nothing to reload")
            return
        }
        notifier.notify("RELOADING=1")
        do {
            let scene = try Scene.load(path: path, passthrough: options.passthrough)
            scene.rotationForEveryDevice = options.rotation
            for w in scene.warnings { log.warning(w) }
            pipeline.replace(scene: scene, at: monotonicNow())
            if !options.noDevices { devices.reconfigure() }
            startActionsIfWanted()
            log.info("SIGHUP: reloaded \(path): \(counted(scene.views.count, "view")), \(counted(scene.recognizers.count, "recognizer"))")
        } catch {
            for line in errorLines(error) { log.error("SIGHUP: keeping the old scene: \(line)") }
        }
        notifier.notify("READY=1")
        rearm()
    }
}
