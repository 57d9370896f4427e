import TouchProtocol
import TouchSystem

/// GNOME Shell's focus, through the TouchBridge GNOME Shell extension (share/touchbridge/gnome-shell/,
/// which the user enables: Mutter says the focused window to nobody outside the shell). The extension
/// exports `/org/touchbridge/Focus` (`org.touchbridge.Focus`) on the shell's own session-bus connection:
/// `Get() → (app, title)`, and the signal `FocusChanged(app, title)` on every `notify::focus-window`
/// and title change ("" for no window: the overview, the lock screen). Only signals from the
/// connection that owns `org.gnome.Shell` are believed.
final class GnomeFocus: FollowFocus.Source {
    let name = "gnome"
    static let service = "org.gnome.Shell", objectPath = "/org/touchbridge/Focus", interface = "org.touchbridge.Focus"
    static let uuid = "touchbridge-focus@touchbridge"
    private let log: Logger
    private var bus: DBus?, shell: NameOwnerWatch?
    private weak var loop: EventLoop?

    init(log: Logger) { self.log = log }

    func start(on loop: EventLoop, report: @escaping (Focus?) -> Void, lost: @escaping (String) -> Void) throws {
        let bus = try DBus(.session)
        let shell = try NameOwnerWatch(bus: bus, name: Self.service)
        self.bus = bus
        self.shell = shell
        self.loop = loop
        try bus.match("type='signal',path='\(Self.objectPath)',interface='\(Self.interface)',member='FocusChanged'") { [unowned self, unowned shell] m in
            guard shell.sentByOwner(m) else {
                return log.debug("ignored a FocusChanged from \(NameOwnerWatch.describeSender(m)), which is not GNOME Shell (\(shell.owner ?? "nobody owns \(Self.service)"))")
            }
            guard let (app, title) = DBus.twoStrings(of: m) else { return }
            report(Focus.from(app: app, title: title))
        }
        shell.onChange = { owner, first in
            guard owner != nil else { return lost(first ? "GNOME Shell (\(Self.service)) is not on the session bus" : "GNOME Shell went away") }
            // The focus now; an extension that is not enabled has no such object.
            bus.callAsync(Self.service, Self.objectPath, Self.interface, "Get") { result in
                switch result {
                case .success(let m):
                    guard let (app, title) = DBus.twoStrings(of: m) else { return lost("the TouchBridge GNOME Shell extension answered Get with something other than two strings") }
                    report(Focus.from(app: app, title: title))
                case .failure(let e):
                    lost("GNOME Shell has no TouchBridge focus extension enabled (\(e)): install it from /usr/share/touchbridge/gnome-shell/ and run gnome-extensions enable \(Self.uuid), see docs/focus.md")
                }
            }
        }
        try loop.add(bus.fd) { _ in
            if !bus.process() { lost("the session bus closed the connection") }
        }
        shell.start()
        _ = bus.process()
    }

    func stop() {
        if let bus {
            loop?.remove(bus.fd)
            bus.close()
        }
        bus = nil
        shell = nil
    }
}
