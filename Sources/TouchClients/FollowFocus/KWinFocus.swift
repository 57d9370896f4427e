import CSystemd
import Glibc
import TouchProtocol
import TouchSystem

/// KWin's focus (Plasma 5 and 6, Wayland and X11), through a KWin script: KWin has no IPC that says the
/// active window, but it runs scripts given to it on the session bus (`org.kde.KWin /Scripting`,
/// `org.kde.kwin.Scripting.loadScript(path, plugin)`, then `org.kde.kwin.Script.run` on
/// `/Scripting/Script<id>`). The script, written for this connection, calls back on every window
/// activation (`workspace.windowActivated` in KWin 6, `clientActivated` in 5) and title change:
/// `org.touchbridge.FollowFocus.WindowActivated(app, title)` on this connection's unique name. Only calls
/// from the connection that owns `org.kde.KWin` are believed; anyone else's is refused. The app is the
/// window's `resourceClass` (the Wayland app id, or the X11 class), else its `desktopFileName`.
final class KWinFocus: FollowFocus.Source {
    let name = "kwin"
    static let service = "org.kde.KWin", plugin = "touchbridge-follow-focus"
    static let objectPath = "/org/touchbridge/FollowFocus", interface = "org.touchbridge.FollowFocus"
    private let log: Logger
    private var bus: DBus?, kwin: NameOwnerWatch?
    private weak var loop: EventLoop?
    private var scriptPath: String?, loaded = false

    init(log: Logger) { self.log = log }

    func start(on loop: EventLoop, report: @escaping (Focus?) -> Void, lost: @escaping (String) -> Void) throws {
        let bus = try DBus(.session)
        guard let me = bus.uniqueName else { throw DBus.Failure(description: "the session bus gave this connection no name") }
        let path = "\(FollowFocus.environment("XDG_RUNTIME_DIR") ?? "/tmp")/touchbridge-follow-focus-\(getpid()).js"
        try Files.writeText(path, Self.script(callee: me))
        scriptPath = path
        self.bus = bus
        self.loop = loop
        let kwin = try NameOwnerWatch(bus: bus, name: Self.service)
        self.kwin = kwin
        try bus.addObject(Self.objectPath) { [unowned self, unowned kwin] m in
            guard DBus.member(m) == "WindowActivated" else { return 0 }
            guard kwin.sentByOwner(m) else {
                log.debug("ignored a WindowActivated from \(NameOwnerWatch.describeSender(m)), which is not KWin (\(kwin.owner ?? "nobody owns \(Self.service)"))")
                return DBus.reply(m, error: "org.freedesktop.DBus.Error.AccessDenied", "only KWin tells touchbridgectl follow-focus the active window")
            }
            guard let (app, title) = DBus.twoStrings(of: m) else {
                return DBus.reply(m, error: "org.freedesktop.DBus.Error.InvalidArgs", "WindowActivated takes two strings: the app and the title")
            }
            report(Focus.from(app: app, title: title))
            return DBus.reply(m)
        }
        kwin.onChange = { [unowned self] owner, first in
            if owner != nil { return load(lost) }
            loaded = false
            lost(first ? "KWin (\(Self.service)) is not on the session bus" : "KWin went away")
        }
        try loop.add(bus.fd) { _ in
            if !bus.process() { lost("the session bus closed the connection") }
        }
        kwin.start()
        _ = bus.process()
    }

    /// Loads the script into KWin and runs it (a script of an earlier follower under the same plugin
    /// name, left by a crash, is unloaded first: it calls a name that is gone).
    private func load(_ lost: @escaping (String) -> Void) {
        guard let bus, let scriptPath else { return }
        let scripting = ("/Scripting", "org.kde.kwin.Scripting")
        bus.callAsync(Self.service, scripting.0, scripting.1, "unloadScript", [Self.plugin]) { [weak self] _ in
            bus.callAsync(Self.service, scripting.0, scripting.1, "loadScript", [scriptPath, Self.plugin]) { result in
                guard let self else { return }
                guard case .success(let m) = result, let id = DBus.int32(of: m), id >= 0 else {
                    if case .failure(let e) = result { return lost("KWin did not load the focus script: \(e)") }
                    return lost("KWin did not load the focus script (it answered no script id)")
                }
                self.loaded = true
                bus.callAsync(Self.service, "/Scripting/Script\(id)", "org.kde.kwin.Script", "run") { result in
                    if case .failure(let e) = result { return lost("KWin did not run the focus script: \(e)") }
                    self.log.info("KWin runs the focus script (\(scriptPath))")
                }
            }
        }
    }

    func stop() {
        if let bus {
            // The script would call a name that is gone: KWin unloads it now (a last word, waited for).
            if loaded { _ = try? bus.call(Self.service, "/Scripting", "org.kde.kwin.Scripting", "unloadScript", Self.plugin).map { sd_bus_message_unref($0) } }
            loop?.remove(bus.fd)
            bus.close()
        }
        if let scriptPath { unlink(scriptPath) }
        bus = nil
        kwin = nil
        scriptPath = nil
        loaded = false
    }

    /// The KWin script: JavaScript that KWin runs with its `workspace` and `callDBus`.
    static func script(callee: String) -> String {
        """
        // touchbridgectl follow-focus kwin: tells it the active window (loaded by it, unloaded when it ends).
        const callee = "\(callee)";
        let watched = null;
        function tell(w) {
            const app = w ? String(w.resourceClass || w.desktopFileName || "") : "";
            const title = w ? String(w.caption || "") : "";
            callDBus(callee, "\(objectPath)", "\(interface)", "WindowActivated", app, title);
        }
        function activated(w) {
            if (watched && watched.captionChanged) watched.captionChanged.disconnect(retitled);
            watched = w;
            if (w && w.captionChanged) w.captionChanged.connect(retitled);
            tell(w);
        }
        function retitled() { tell(watched); }
        if (workspace.windowActivated !== undefined) {      // KWin 6
            workspace.windowActivated.connect(activated);
            activated(workspace.activeWindow);
        } else {                                            // KWin 5
            workspace.clientActivated.connect(activated);
            activated(workspace.activeClient);
        }

        """
    }
}
