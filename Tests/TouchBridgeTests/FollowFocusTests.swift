import Testing
@testable import TouchClients
import TouchProtocol
import TouchSystem

/// follow-focus's readings of what compositors say (docs/focus.md), without a compositor: the real
/// ones are in Tests/integration/test_follow_focus.py.
@Suite("follow-focus: what each compositor's words mean")
struct FollowFocusTests {
    @Test("Hyprland: activewindow>>CLASS,TITLE splits at the first comma; an empty class is no window; other events are not focus")
    func hyprland() {
        #expect(HyprlandFocus.activeWindow("activewindow>>foot,vim a,b.txt") == .some(Focus(app: "foot", title: "vim a,b.txt")))
        #expect(HyprlandFocus.activeWindow("activewindow>>,") == .some(nil))
        #expect(HyprlandFocus.activeWindow("activewindow>>firefox") == .some(Focus(app: "firefox")))
        #expect(HyprlandFocus.activeWindow("activewindowv2>>55d0a1") == nil)
        #expect(HyprlandFocus.activeWindow("workspace>>2") == nil)
    }

    /// A tree as sway's GET_TREE answers (parsed in each test: a parsed global would be reported by
    /// LeakSanitizer, whose scan does not count a lazily made global's value as reachable).
    static let treeText = """
    {"id": 1, "type": "root", "focused": false, "nodes": [
      {"id": 2, "type": "output", "focused": false, "nodes": [
        {"id": 3, "type": "workspace", "name": "1", "focused": false, "nodes": [
          {"id": 4, "type": "con", "app_id": "foot", "name": "~", "focused": false, "nodes": []}],
         "floating_nodes": [
          {"id": 5, "type": "floating_con", "app_id": null, "name": "GIMP", "focused": true,
           "window_properties": {"class": "Gimp-2.10", "instance": "gimp-2.10"}, "nodes": []}]}]}]}
    """

    @Test("sway: the focused node of the tree, floating ones too; an Xwayland window by its class; a workspace is no app")
    func sway() throws {
        let node = try #require(SwayFocus.focusedNode(try JSONParser.parse(Self.treeText)))
        #expect(node["id"]?.intValue == 5)
        #expect(SwayFocus.focus(node) == Focus(app: "Gimp-2.10", title: "GIMP"))
        let workspace = try JSONParser.parse(#"{"id": 3, "type": "workspace", "name": "2", "focused": true, "nodes": []}"#)
        #expect(SwayFocus.focus(workspace) == nil)
    }

    @Test("auto: sway, i3, Hyprland, KDE, GNOME, then any Wayland display, in that order; none without a session")
    func automatic() {
        func pick(_ env: [String: String]) -> String? { FollowFocus.automatic { env[$0] }?.name }
        #expect(pick(["SWAYSOCK": "/run/user/1000/sway-ipc.sock", "WAYLAND_DISPLAY": "wayland-1"]) == "sway")
        #expect(pick(["I3SOCK": "/run/user/1000/i3/ipc"]) == "sway")
        #expect(pick(["HYPRLAND_INSTANCE_SIGNATURE": "abc", "XDG_CURRENT_DESKTOP": "Hyprland"]) == "hyprland")
        #expect(pick(["XDG_CURRENT_DESKTOP": "KDE", "WAYLAND_DISPLAY": "wayland-0"]) == "kwin")
        #expect(pick(["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]) == "gnome")
        #expect(pick(["XDG_CURRENT_DESKTOP": "labwc:wlroots", "WAYLAND_DISPLAY": "wayland-0"]) == "wlr")
        #expect(pick([:]) == nil)
    }

    @Test("A compositor's words are cut to the daemon's bounds at a character's end; an empty app id is no focus")
    func bounds() throws {
        let title = String(repeating: "é", count: 600)            // 1200 bytes, 2 a character
        let f = try #require(Focus.from(app: "org.example.app", title: title))
        #expect(f.title?.utf8.count == 1024 && f.title?.count == 512)
        #expect(Focus.from(app: String(repeating: "a", count: 300), title: nil)?.app.utf8.count == 256)
        #expect(Focus.from(app: "", title: "x") == nil && Focus.from(app: nil, title: nil) == nil)
        #expect(Focus.clipped("a€b", 3) == "a")                   // € is 3 bytes: not cut in its middle
    }

    @Test("The KWin script calls this connection back, and follows both KWin 6's and KWin 5's workspace")
    func kwinScript() {
        let s = KWinFocus.script(callee: ":1.42")
        #expect(s.contains(#"const callee = ":1.42";"#))
        #expect(s.contains(#"callDBus(callee, "/org/touchbridge/FollowFocus", "org.touchbridge.FollowFocus", "WindowActivated", app, title)"#))
        #expect(s.contains("workspace.windowActivated.connect") && s.contains("workspace.clientActivated.connect"))
    }
}
