"""A headless sway with foot windows of chosen app ids, for the focus tests (Tests/integration/
test_follow_focus.py) and the lab (lab/focus.py): Debian's sway on wlroots' headless backend with the
pixman renderer (no GPU, no input device), started in about a second. sway refuses to run as root, so it
runs, with its windows, as a user of its own, made when missing. Standard library only."""
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

USER = "touchbridge-sway"


def available():
    """Whether sway, swaymsg and foot are installed (make test installs them)."""
    return all(shutil.which(t) for t in ("sway", "swaymsg", "foot", "setpriv", "useradd"))


def ensure_user():
    """The user sway runs as (a system user with a group of its own); its passwd entry."""
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)
        return pwd.getpwnam(USER)


class HeadlessSway:
    """sway as USER in a runtime directory of its own (`runtime`), and a foot window for each of `apps`
    (its app id and title both the app's name). `socket` is sway's IPC socket, `display` its Wayland
    display's name."""

    def __init__(self, apps, timeout=30, base=None):
        """`base`: where its runtime directory goes (default: the system's temporary directory);
        `timeout`: seconds for sway and its windows to start, and for one swaymsg answer."""
        self.timeout = timeout
        self.user = ensure_user()
        self.runtime = tempfile.mkdtemp(prefix="tb-sway-", dir=base)
        os.chown(self.runtime, self.user.pw_uid, self.user.pw_gid)
        os.chmod(self.runtime, 0o700)
        config = os.path.join(self.runtime, "config")
        with open(config, "w") as f:
            f.write("output HEADLESS-1 resolution 1280x800\n")
        os.chown(config, self.user.pw_uid, self.user.pw_gid)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.runtime, "XDG_RUNTIME_DIR": self.runtime,
                    "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"}
        self.log_path = os.path.join(self.runtime, "sway.log")
        self.clients = []
        self.proc = subprocess.Popen(self.as_user(["sway", "-c", config]), env=self.env, stdout=open(self.log_path, "w"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        end = time.monotonic() + timeout
        self.socket = None
        while self.socket is None or not os.path.exists(os.path.join(self.runtime, "wayland-1")):
            if self.proc.poll() is not None or time.monotonic() > end:
                raise RuntimeError("sway did not start:\n" + self.log())
            sockets = [n for n in os.listdir(self.runtime) if n.startswith("sway-ipc.")]
            self.socket = os.path.join(self.runtime, sockets[0]) if sockets else None
            time.sleep(0.05)
        self.display = "wayland-1"
        self.env.update(SWAYSOCK=self.socket, WAYLAND_DISPLAY=self.display)
        for app in apps:
            self.clients.append(subprocess.Popen(self.as_user(["foot", "--app-id=" + app, "--title=" + app, "sleep", "100000"]),
                                                 env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                 start_new_session=True))
        while set(apps) - set(self.windows()):
            if time.monotonic() > end:
                raise RuntimeError("the foot windows did not appear: {}\n{}".format(self.windows(), self.log()))
            time.sleep(0.05)

    def as_user(self, command):
        """`command` run as sway's user (setpriv, with its groups)."""
        return ["setpriv", "--reuid", str(self.user.pw_uid), "--regid", str(self.user.pw_gid), "--init-groups"] + list(command)

    def log(self):
        with open(self.log_path) as f:
            return f.read()[-2000:]

    def msg(self, *args):
        """swaymsg ARGS (as root, which may use the socket); its parsed answer. swaymsg waits 3 s for an
        answer; a sway busy starting windows under emulation (the lab) can take longer: asked again
        until the helper's own timeout."""
        end = time.monotonic() + self.timeout
        while True:
            out = subprocess.run(["swaymsg", "-s", self.socket, "--raw"] + list(args), capture_output=True, text=True, timeout=60)
            if out.returncode == 0:
                return json.loads(out.stdout)
            if "Unable to receive IPC response" not in out.stderr or time.monotonic() > end:
                raise RuntimeError("swaymsg {}: {}{}".format(" ".join(args), out.stdout, out.stderr))

    def windows(self):
        """{app id: window node} of the windows in the tree."""
        found = {}

        def walk(n):
            if n.get("app_id"):
                found[n["app_id"]] = n
            for c in n.get("nodes", []) + n.get("floating_nodes", []):
                walk(c)
        walk(self.msg("-t", "get_tree"))
        return found

    def focus(self, app):
        """Focuses the window of `app` (`swaymsg '[app_id=APP] focus'`)."""
        self.msg("[app_id=%s] focus" % app)

    def stop(self):
        for p in self.clients + [self.proc]:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in self.clients + [self.proc]:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)
        shutil.rmtree(self.runtime, ignore_errors=True)
