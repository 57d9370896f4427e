"""`touchbridgectl follow-focus` (docs/focus.md) against the compositors' own interfaces: a real sway
(headless, Tests/support/sway.py) with three foot windows for `sway` and `wlr`; for Hyprland, KWin and
GNOME, stand-ins of their socket and D-Bus interfaces speaking as their documentation shows
(Tests/support/compositor_mocks.py). The live daemon replays a three-finger swipe again and again; each
pass is heard by the recognizer of the app then focused, or by none in an app of passthroughApps. (No
/dev/uinput here: the actions and the mirror are the lab's, lab/focus.py.)"""
import signal
import subprocess

from common import *  # noqa: F401,F403
import sway as swaylib

SWIPE_LEFT = os.path.join(FIXTURES, "synthetic__panel__3fg-swipe-left.evemu")
ONE, TWO, DRAW = "org.example.one", "org.example.two", "org.example.draw"

SCENE = {"window": {"width": 1280, "height": 800},
         "devices": [{"name": "*", "passthrough": True, "passthroughApps": [DRAW]}],
         "views": [{"name": "screen", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": True, "recognizers": [
             {"name": "backInOne", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
              "apps": [ONE], "action": {"keys": "alt+Left"}},
             {"name": "tabInTwo", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
              "apps": ["org.example.tw?"], "action": {"keys": "ctrl+Page_Up"}}]}]}


class FocusFollowing:
    """The daemon replaying the swipe, a client of its gestures, touches, devices and focus, and a
    follower; `passes` reads what the next whole passes of the replay said."""

    def start_daemon(self, *extra):
        scene = self.json_file(self.tempdir(), "apps.json", SCENE)
        self.d = self.daemon("--no-devices", "--scene", scene, "--replay", SWIPE_LEFT, "--replay-loop", "--replay-delay", "0.3", *extra)
        os.chmod(self.d.dir, 0o755)
        self.c = Client(self.d.socket, ["gestures", "touches", "devices", "focus"])
        return self.d

    def told(self, app, timeout=20):
        """Waits for the focus line that says `app` (None: cleared)."""
        return self.c.until(lambda l: l["event"] == "focus" and l["app"] == app, timeout=timeout)[-1]

    def next_pass(self):
        """The recognizers that recognized a gesture in the next whole pass of the replay, and its touch
        phases."""
        self.c.until(lambda l: l["event"] == "device" and l["action"] == "added", timeout=20)
        lines = self.c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=20)
        return ({l["recognizer"] for l in lines if l["event"] == "gesture" and l["state"] in ("recognized", "ended")},
                {l["phase"] for l in lines if l["event"] == "touch"})

    def check_three_apps(self, focus):
        """Each app in turn: its own recognizer, the other's, then none (the drawing app hears every touch)."""
        for app, expected in ((ONE, {"backInOne"}), (TWO, {"tabInTwo"}), (DRAW, set())):
            focus(app)
            self.told(app)
            recognized, phases = self.next_pass()
            self.assertEqual(recognized, expected, app)
            if app == DRAW:
                self.assertEqual(phases, {"began", "moved", "ended"}, "every touch went on to its end, none claimed")
                self.assertIn("org.example.draw is focused, one of its passthroughApps", self.d.text())


@unittest.skipUnless(swaylib.available(), "needs sway and foot (make test installs them)")
class SwayFocusTests(TestCase, FocusFollowing):
    @classmethod
    def setUpClass(cls):
        cls.sway = swaylib.HeadlessSway([ONE, TWO, DRAW])

    @classmethod
    def tearDownClass(cls):
        cls.sway.stop()

    def follower(self, source, *extra):
        """`follow-focus SOURCE` as sway's user (a control peer through --control-group)."""
        err = open(os.path.join(self.tempdir(), "follow.err"), "w+")
        f = subprocess.Popen(self.sway.as_user([CTL, "follow-focus", source, "--socket", self.d.socket] + list(extra)),
                             env=self.sway.env, stdout=subprocess.DEVNULL, stderr=err)
        self.addCleanup(lambda: (f.poll() is None and f.kill(), f.wait(10)))
        return f, err

    def test_follow_focus_sway_follows_swaymsg_focus(self):
        self.sway.focus(TWO)
        self.start_daemon("--socket-group", swaylib.USER, "--control-group", swaylib.USER)
        f, err = self.follower("sway")
        line = self.told(TWO)
        self.assertEqual((line["title"], line["source"]), (TWO, "sway"), "the window focused at the start, from the tree")
        self.check_three_apps(self.sway.focus)
        # An empty workspace is no app; back on the first, the window focused there.
        self.sway.msg("workspace 9")
        self.told(None)
        self.sway.msg("workspace 1")
        self.told(DRAW)
        # However the follower ends, the daemon forgets its focus: never left on a stale app.
        f.kill()
        self.told(None)
        self.assertIn("focus cleared: the sway follower went away", self.d.text())

    def test_follow_focus_wlr_follows_the_activated_toplevel(self):
        self.sway.focus(DRAW)
        self.start_daemon("--socket-group", swaylib.USER, "--control-group", swaylib.USER)
        f, err = self.follower("wlr", "--verbose")
        self.assertEqual(self.told(DRAW)["source"], "wlr", "the toplevel activated at the start")
        self.check_three_apps(self.sway.focus)
        f.send_signal(signal.SIGTERM)
        self.assertEqual(f.wait(10), 0)
        self.told(None)
        err.seek(0)
        said = err.read()
        self.assertIn("following the focus of wlr", said)
        self.assertIn("focus: org.example.draw — org.example.draw", said)

    def test_auto_picks_sway_by_swaysock_and_says_so(self):
        self.start_daemon("--socket-group", swaylib.USER, "--control-group", swaylib.USER)
        f, err = self.follower("auto")
        self.told(self.focused())
        f.send_signal(signal.SIGTERM)
        f.wait(10)
        err.seek(0)
        self.assertIn("auto: sway, as SWAYSOCK is set", err.read())

    def focused(self):
        return next(a for a, n in self.sway.windows().items() if n["focused"])


class FollowFocusCommandTests(TestCase):
    def test_a_source_it_does_not_know_and_a_missing_environment_are_named(self):
        out = ctl("follow-focus", "swya")
        self.assertEqual(out.returncode, 2)
        self.assertIn('the source is one of sway, hyprland, wlr, kwin, gnome or auto, not "swya" (did you mean "sway"?)', out.stderr)
        env = {k: v for k, v in os.environ.items() if k not in ("SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE", "XDG_CURRENT_DESKTOP", "WAYLAND_DISPLAY")}
        out = subprocess.run([CTL, "follow-focus", "auto"], env=env, capture_output=True, text=True, timeout=20)
        self.assertEqual(out.returncode, 2)
        self.assertIn("no compositor is named in this environment", out.stderr)
        out = subprocess.run([CTL, "follow-focus", "sway"], env=env, capture_output=True, text=True, timeout=20)
        self.assertIn("neither SWAYSOCK nor I3SOCK is set", out.stderr)


class Hyprland:
    """A stand-in for Hyprland's two sockets in DIR: `.socket.sock` answers `j/activewindow` with the
    active window as JSON and closes, as Hyprland does; `.socket2.sock` sends `activewindow>>CLASS,TITLE`
    (and `activewindowv2>>ADDRESS`) to every connected client when `activate` is called."""

    def __init__(self, directory, app, title):
        import threading
        self.app, self.title, self.listeners, self.servers = app, title, [], []
        self.requests = []
        for name, serve in ((".socket.sock", self.answer), (".socket2.sock", self.listen)):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(os.path.join(directory, name))
            s.listen(8)
            self.servers.append(s)
            threading.Thread(target=self.accept, args=(s, serve), daemon=True).start()

    def accept(self, server, serve):
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            serve(conn)

    def answer(self, conn):
        request = conn.recv(1024).decode()
        self.requests.append(request)
        if request == "j/activewindow":
            conn.sendall(json.dumps({"address": "0x55d0", "class": self.app, "title": self.title, "initialClass": self.app}
                                    if self.app else {}).encode())
        conn.close()

    def listen(self, conn):
        self.listeners.append(conn)
        conn.sendall(b"workspace>>1\nfocusedmon>>HEADLESS-1,1\n")        # events the follower passes over

    def activate(self, app, title):
        self.app, self.title = app, title
        for c in self.listeners:
            c.sendall("activewindow>>{},{}\nactivewindowv2>>{}\n".format(app, title, "0x55d1" if app else ",").encode())

    def close(self):
        for c in self.listeners + self.servers:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()
        self.listeners = []


class StandInFocusTests(TestCase):
    """Hyprland, KWin and GNOME against stand-ins that speak as their documentation shows."""

    def start_daemon(self):
        self.d = self.daemon("--no-devices")
        self.c = Client(self.d.socket, ["focus"])
        self.c.until(lambda l: l["event"] == "focus")                 # the current one first: none
        return self.d

    def told(self, app, timeout=20):
        return self.c.until(lambda l: l["event"] == "focus" and l["app"] == app, timeout=timeout)[-1]

    def follower(self, source, env, *extra):
        path = os.path.join(self.tempdir(), "follow.err")
        f = subprocess.Popen([CTL, "follow-focus", source, "--socket", self.d.socket] + list(extra), env=env,
                             stdout=subprocess.DEVNULL, stderr=open(path, "w"))
        self.addCleanup(lambda: (f.poll() is None and f.kill(), f.wait(10)))
        return f, lambda: open(path).read()

    def test_hyprland_follows_activewindow_and_its_socket_coming_back(self):
        runtime = self.tempdir()
        hypr = os.path.join(runtime, "hypr", "0a1b2c_1700000000_42")
        os.makedirs(hypr)
        mock = Hyprland(hypr, "firefox", "Mozilla Firefox")
        self.addCleanup(lambda: mock.close())
        self.start_daemon()
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime, HYPRLAND_INSTANCE_SIGNATURE="0a1b2c_1700000000_42")
        f, said = self.follower("hyprland", env)
        line = self.told("firefox")
        self.assertEqual((line["title"], line["source"]), ("Mozilla Firefox", "hyprland"), "the active window at start, j/activewindow")
        self.assertEqual(mock.requests, ["j/activewindow"])
        mock.activate("foot", "vim a,b.txt")                          # a title with a comma: split at the first
        self.assertEqual(self.told("foot")["title"], "vim a,b.txt")
        mock.activate("", "")                                         # no window: Hyprland says "activewindow>>,"
        self.told(None)
        mock.activate("org.kde.krita", "Krita")
        self.told("org.kde.krita")
        # Hyprland goes away: the focus is cleared meanwhile; back, it is followed again.
        mock.close()
        self.told(None)
        for name in (".socket.sock", ".socket2.sock"):
            os.unlink(os.path.join(hypr, name))
        again = Hyprland(hypr, "foot", "~")
        self.addCleanup(lambda: again.close())
        self.told("foot")
        self.assertIn("Hyprland closed its event socket; the focus is cleared until hyprland is back", said())
        self.assertIn("following hyprland again", said())

    @unittest.skipUnless(have_dbus() and shutil.which("node"), "needs dbus-daemon, python3-dbus, python3-gi and node")
    def test_kwin_runs_the_script_believes_only_kwin_and_unloads_it(self):
        for api in ("6", "5"):
            with self.subTest(kwin=api):
                tmp = self.tempdir()
                address = private_bus(self)
                log = os.path.join(tmp, "kwin.log")
                env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, XDG_RUNTIME_DIR=tmp)
                mock = subprocess.Popen([DEBIAN_PYTHON, os.path.join(ROOT, "Tests", "support", "mock_kwin.py"), log, api,
                                         "org.kde.konsole", "~ : bash"], env=env)
                self.addCleanup(lambda: (mock.poll() is None and mock.terminate(), mock.wait(10)))
                self.assertTrue(wait_for(lambda: os.path.exists(log) and "ready" in open(log).read(), timeout=15))
                self.start_daemon()
                f, said = self.follower("kwin", env, "--verbose")
                self.assertEqual(self.told("org.kde.konsole")["title"], "~ : bash", "the window active when the script ran")
                kwin = lambda *a: subprocess.run([DEBIAN_PYTHON, os.path.join(ROOT, "Tests", "support", "mock_kwin.py")] + list(a) ,
                                                 capture_output=True, text=True, timeout=30)
                self.assertEqual(kwin("--activate", address, "firefox", "KDE — Mozilla Firefox").returncode, 0)
                self.told("firefox")
                kwin("--retitle", address, "Planet KDE — Mozilla Firefox")
                self.assertEqual(self.told("firefox")["title"], "Planet KDE — Mozilla Firefox", "a title change of the active window")
                kwin("--activate", address, "", "")
                self.told(None)
                # Another connection calls the follower as the script does: refused, and nothing changes.
                callee = next(l.split()[1] for l in open(log) if l.startswith("callDBus "))
                forged = kwin("--forge", address, callee, "evil", "x").stdout.split()
                self.assertEqual(forged[1], "org.freedesktop.DBus.Error.AccessDenied")
                self.assertTrue(wait_for(lambda: "ignored a WindowActivated from " + forged[0] + ", which is not KWin" in said()))
                kwin("--activate", address, "org.kde.dolphin", "Home")
                self.assertEqual([l["app"] for l in self.c.until(lambda l: l.get("app") == "org.kde.dolphin")], ["org.kde.dolphin"])
                # The script is unloaded when the follower ends, and its file removed.
                f.send_signal(signal.SIGTERM)
                self.assertEqual(f.wait(10), 0)
                notes = open(log).read()
                self.assertIn("load touchbridge-follow-focus " + tmp + "/touchbridge-follow-focus-", notes)
                self.assertTrue(notes.rstrip().endswith("unload touchbridge-follow-focus"), notes)
                self.assertEqual([n for n in os.listdir(tmp) if n.endswith(".js")], [])
                self.told(None)

    @unittest.skipUnless(have_dbus(), "needs dbus-daemon, python3-dbus and python3-gi (make test installs them)")
    def test_gnome_believes_only_the_shell_and_names_a_missing_extension(self):
        tmp = self.tempdir()
        address = private_bus(self)
        log = os.path.join(tmp, "shell.log")
        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address)
        mock_path = os.path.join(ROOT, "Tests", "support", "mock_gnome_shell.py")
        shell = lambda *a: subprocess.run([DEBIAN_PYTHON, mock_path] + list(a), capture_output=True, text=True, timeout=30)
        # No extension enabled: the follower says what to do.
        bare = subprocess.Popen([DEBIAN_PYTHON, mock_path, log, "", "", "--no-extension"], env=env)
        self.assertTrue(wait_for(lambda: os.path.exists(log) and "ready" in open(log).read(), timeout=15))
        self.start_daemon()
        f, said = self.follower("gnome", env, "--verbose")
        self.assertTrue(wait_for(lambda: "gnome-extensions enable touchbridge-focus@touchbridge" in said(), timeout=15), said())
        bare.terminate()
        bare.wait(10)
        os.unlink(log)
        mock = subprocess.Popen([DEBIAN_PYTHON, mock_path, log, "org.gnome.Nautilus", "Home"], env=env)
        self.addCleanup(lambda: (mock.poll() is None and mock.terminate(), mock.wait(10)))
        self.assertEqual(self.told("org.gnome.Nautilus", timeout=30)["source"], "gnome", "the shell back with the extension: Get")
        shell("--focus", address, "org.gnome.Console", "~")
        self.told("org.gnome.Console")
        forger = shell("--forge", address, "evil", "x").stdout.strip()
        self.assertTrue(wait_for(lambda: "ignored a FocusChanged from " + forger + ", which is not GNOME Shell" in said()))
        shell("--focus", address, "", "")                         # the overview: no window
        self.told(None)
        self.assertNotIn("evil", [l.get("app") for l in self.c.lines_seen])
