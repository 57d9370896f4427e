import Glibc
import TouchProtocol
import TouchSystem

/// `touchbridgectl follow-focus SOURCE` (docs/focus.md): tells the daemon which app is focused, as the
/// compositor says it, so that recognizers with `apps`, `exceptApps` and a device's `passthroughApps`
/// follow the window in front. One process, one epoll loop: the compositor's connection (a source) and
/// the daemon's (DaemonTeller) side by side.
///
/// The daemon is never left on a stale app: the focus is sent with `whileConnected`, so the daemon
/// clears it when this process's connection closes, however it ends (SIGKILL included); and while the
/// compositor's connection is lost, the focus is cleared here and the connection retried with backoff.
package enum FollowFocus {
    /// A compositor's word on the focused window.
    protocol Source: AnyObject {
        /// The source's name, as the focus line's `source` says it ("sway", "hyprland", "wlr", "kwin", "gnome").
        var name: String { get }
        /// Connects and reports the focus (nil: no window has it) now and at each change through
        /// `report`, on `loop`; `lost` says why when the connection ends. Throws when it cannot
        /// connect now (the runner retries).
        func start(on loop: EventLoop, report: @escaping (Focus?) -> Void, lost: @escaping (String) -> Void) throws
        /// Disconnects: its descriptors leave the loop. Nothing when not started.
        func stop()
    }

    /// A title-only change of the same app is sent at most this often (seconds): a terminal that puts
    /// each command in its title, or a page counting down in its tab, changes it many times a second.
    static let titleInterval = 0.25

    /// Follows `source` until SIGTERM, SIGINT or SIGHUP: 0.
    static func run(_ source: Source, socket: String, log: Logger, verbose: Bool) throws -> Int32 {
        let teller = DaemonTeller<Focus?>(socket: socket, subject: "the focus", log: log, command: { .setFocus($0) },
                                          describe: { $0.map { "focus \($0.app)" } ?? "no focus" },
                                          carriedOut: { f in verbose ? (f.map { "focus: \($0.app)" + ($0.title.map { " — \($0)" } ?? "") } ?? "focus: none") : nil })
        let loop = try EventLoop()
        let signals = try SignalReceiver([SIGTERM, SIGINT, SIGHUP])
        let retry = try Timer(), titles = try Timer()
        var backoff = Backoff(first: 0.5, maximum: 10)
        var connected = false, everConnected = false
        /// The focus last given to the teller, and a title-only change waiting for `titles`.
        var told: Focus?? = .none, heldTitle: Focus?
        var lastTold = -Double.infinity

        func tell(_ f: Focus?) {
            var f = f
            f?.source = source.name
            f?.whileConnected = true
            heldTitle = nil
            titles.arm(at: nil)
            told = .some(f)
            lastTold = monotonicNow()
            teller.send(f)
        }
        /// The reason the connection was last lost, while the source has said nothing since: the same
        /// reason again (GNOME without the extension, every retry) is logged at debug only.
        var lastLost: String?, lostAgain = false
        func report(_ f: Focus?) {
            lastLost = nil
            lostAgain = false
            backoff.reset()
            if case .some(let before) = told, let before, let f, before.app == f.app {
                guard before.title != f.title else { return }
                // The same app with a new title: at most one every titleInterval, the latest.
                let due = lastTold + titleInterval
                if monotonicNow() >= due { return tell(f) }
                heldTitle = f
                titles.arm(at: due)
                return
            }
            if case .some(let before) = told, before == nil, f == nil { return }
            tell(f)
        }
        /// Each connection's number: a `lost` of an earlier one, or a second of the same, changes nothing.
        var generation = 0
        func connect() {
            generation += 1
            let mine = generation
            connected = true                            // before start: a `lost` may come from within it
            do {
                try source.start(on: loop, report: report, lost: { reason in
                    guard mine == generation, connected else { return }
                    connected = false
                    // Said from inside the source's own handlers (sd-bus's, the socket's): it is taken
                    // down once they have returned.
                    loop.soon {
                        source.stop()
                        lostAgain = reason == lastLost
                        log.log(lostAgain ? .debug : .warning, "\(reason); the focus is cleared until \(source.name) is back (retrying)")
                        if case .some(let before) = told, before == nil {} else { tell(nil) }
                        lastLost = reason
                        retry.arm(at: monotonicNow() + backoff.next())
                    }
                })
                log.log(lostAgain ? .debug : .info, everConnected ? "following \(source.name) again" : "following the focus of \(source.name)")
                everConnected = true
            } catch {
                connected = false
                // The first failure is said; later ones only when the wait has grown to its longest.
                if backoff.isFirst { log.warning("\(error); retrying") }
                retry.arm(at: monotonicNow() + backoff.next())
            }
        }
        try teller.watch(in: loop)
        defer { teller.stopWatching() }                // its handlers hold it
        try loop.add(retry.fd) { _ in
            retry.acknowledge()
            if !connected { connect() }
        }
        try loop.add(titles.fd) { _ in
            titles.acknowledge()
            if let f = heldTitle { tell(f) }
        }
        try loop.add(signals.fd) { _ in
            if !signals.take().isEmpty { loop.stop() }
        }
        connect()
        loop.run()
        source.stop()
        // The handlers hold the loop and the timers: let go of them (no cycle outlives this).
        for fd in [retry.fd, titles.fd, signals.fd] { loop.remove(fd) }
        // Closing the daemon's connection clears the focus there (whileConnected).
        return 0
    }

    // MARK: Choosing a source

    /// The sources by name, and how `auto` picks one from the session's environment.
    static let sourceNames = ["sway", "hyprland", "wlr", "kwin", "gnome"]

    /// `auto`: the source the session's environment names, and why (for the log); nil when none does.
    static func automatic(_ env: (String) -> String?) -> (name: String, why: String)? {
        if env("SWAYSOCK") != nil { return ("sway", "SWAYSOCK is set") }
        if env("I3SOCK") != nil { return ("sway", "I3SOCK is set (i3 speaks sway's IPC)") }
        if env("HYPRLAND_INSTANCE_SIGNATURE") != nil { return ("hyprland", "HYPRLAND_INSTANCE_SIGNATURE is set") }
        let desktops = (env("XDG_CURRENT_DESKTOP") ?? "").split(separator: ":").map { $0.uppercased() }
        if desktops.contains("KDE") { return ("kwin", "XDG_CURRENT_DESKTOP says KDE") }
        if desktops.contains("GNOME") { return ("gnome", "XDG_CURRENT_DESKTOP says GNOME") }
        if env("WAYLAND_DISPLAY") != nil { return ("wlr", "WAYLAND_DISPLAY is set and no other compositor is named") }
        return nil
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension Ctl {
    package static let followFocus = Command("follow-focus", operands: "sway|hyprland|wlr|kwin|gnome|auto",
        "tell the daemon which app is focused, as the compositor says it: sway (and i3) over its IPC,\nhyprland over its event socket, wlr through zwlr_foreign_toplevel_manager_v1 (labwc, Wayfire,\nriver, niri, sway), kwin through a KWin script, gnome through the TouchBridge GNOME Shell\nextension; auto picks by the session's environment. Recognizers with \"apps\" or \"exceptApps\"\nfollow it (docs/focus.md); the daemon forgets it when this ends", options: [
        .option("swaysock", "PATH", "sway: its IPC socket (default: $SWAYSOCK, else $I3SOCK)"),
        .flag("verbose", "log each focus told, and what is ignored (D-Bus calls and signals from\nconnections that are not the compositor)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "the source: sway, hyprland, wlr, kwin, gnome or auto")
        let verbose = a.has("verbose")
        let log = Logger(program: "touchbridgectl follow-focus", level: verbose ? .debug : .info)
        var name = a.positional[0]
        if name == "auto" {
            guard let (chosen, why) = FollowFocus.automatic(FollowFocus.environment) else {
                throw Arguments.Failure(description: "touchbridgectl follow-focus auto: no compositor is named in this environment (SWAYSOCK, I3SOCK, HYPRLAND_INSTANCE_SIGNATURE, XDG_CURRENT_DESKTOP, WAYLAND_DISPLAY): run it in the desktop session, or name the source: \(FollowFocus.sourceNames.joined(separator: ", "))")
            }
            log.info("auto: \(chosen), as \(why)")
            name = chosen
        }
        let source: FollowFocus.Source
        switch name {
        case "sway":
            guard let sock = a["swaysock"] ?? FollowFocus.environment("SWAYSOCK") ?? FollowFocus.environment("I3SOCK") else {
                throw Arguments.Failure(description: "touchbridgectl follow-focus sway: neither SWAYSOCK nor I3SOCK is set (run it in the sway session, or pass --swaysock PATH)")
            }
            source = SwayFocus(socket: sock)
        case "hyprland":
            source = try HyprlandFocus(environment: FollowFocus.environment)
        case "wlr":
            source = WlrFocus(display: FollowFocus.environment("WAYLAND_DISPLAY"))
        case "kwin":
            source = KWinFocus(log: log)
        case "gnome":
            source = GnomeFocus(log: log)
        default:
            throw Arguments.Failure(description: "touchbridgectl follow-focus: the source is one of \(FollowFocus.sourceNames.joined(separator: ", ")) or auto, not \"\(name)\"\(DidYouMean.hint(name, in: FollowFocus.sourceNames + ["auto"]))")
        }
        return try FollowFocus.run(source, socket: try DaemonSocket.path(a), log: log, verbose: verbose)
    }
}
