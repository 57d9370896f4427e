import CWlrToplevel
import TouchProtocol
import TouchSystem

/// The focus of a wlroots compositor (labwc, Wayfire, river, niri, sway itself), through the wlr
/// foreign toplevel protocol: the compositor lists every toplevel window with its app id, title and
/// states, and the one with the `activated` state has the focus (a compositor with several seats may
/// activate several: the last one told wins). `ext-foreign-toplevel-list-v1` has no states, so it cannot
/// say which window is focused. Under Xwayland the app id is the X11 class, as the compositor says it.
final class WlrFocus: FollowFocus.Source {
    let name = "wlr"
    private let display: String?
    private var connection: OpaquePointer?
    private weak var loop: EventLoop?
    private var fd: FileDescriptor?
    /// Every toplevel as of its last `done`, by its protocol id, and when it was last told activated (a
    /// count of `done`s): with several activated, the latest has the focus.
    private var toplevels: [UInt32: (focus: Focus?, activatedAt: Int?)] = [:]
    private var dones = 0

    init(display: String?) { self.display = display }

    func start(on loop: EventLoop, report: @escaping (Focus?) -> Void, lost: @escaping (String) -> Void) throws {
        toplevels = [:]
        var error: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let c = tb_wlr_connect(display, { context, id, app, title, activated in
            Unmanaged<WlrFocus>.fromOpaque(context!).takeUnretainedValue()
                .done(id, app: app.map { String(cString: $0) } ?? "", title: title.map { String(cString: $0) } ?? "", activated: activated != 0)
        }, { context, id in
            Unmanaged<WlrFocus>.fromOpaque(context!).takeUnretainedValue().closed(id)
        }, context, &error) else {
            let what = display.map { "the Wayland display \($0)" } ?? "the Wayland display (WAYLAND_DISPLAY is not set)"
            switch Int(error) {
            case Int(TB_WLR_NO_MANAGER.rawValue):
                throw SocketError("\(what) offers no zwlr_foreign_toplevel_manager_v1: the compositor does not say which window is focused this way (GNOME: gnome; KDE: kwin; Hyprland: hyprland)")
            case Int(TB_WLR_NO_DISPLAY.rawValue):
                throw SocketError("cannot connect to \(what): \(Errno.current) (run it in the Wayland session)")
            default:
                throw SocketError("\(what): the connection failed")
            }
        }
        connection = c
        self.loop = loop
        let fd = FileDescriptor(rawValue: tb_wlr_fd(c))
        self.fd = fd
        // One report a batch of events: a focus moving says "deactivated" of one window and "activated"
        // of another, in either order, and no moment between them has no focus.
        try loop.add(fd) { [unowned self] _ in
            guard let connection, tb_wlr_dispatch(connection) == 0 else { return lost("the Wayland compositor closed the connection or stopped listing its windows") }
            report(focus)
        }
        // The toplevels open now were told during the connect.
        report(focus)
    }

    /// The activated toplevel's focus (the latest activated, if several are); nil when none is.
    var focus: Focus? {
        toplevels.values.filter { $0.activatedAt != nil }.max { $0.activatedAt! < $1.activatedAt! }?.focus ?? nil
    }

    func stop() {
        if let fd { loop?.remove(fd) }
        fd = nil
        if let connection { tb_wlr_disconnect(connection) }
        connection = nil
        toplevels = [:]
    }

    deinit { stop() }

    private func done(_ id: UInt32, app: String, title: String, activated: Bool) {
        dones += 1
        let before = toplevels[id]?.activatedAt
        toplevels[id] = (Focus.from(app: app, title: title), activated ? (before ?? dones) : nil)
    }

    private func closed(_ id: UInt32) {
        toplevels[id] = nil
    }
}
