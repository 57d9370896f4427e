"""Per-app gestures on a real kernel path (docs/focus.md): a pass-through daemon on the lab's panel with
its action devices, a headless sway in the guest (Tests/support/sway.py) with three foot windows, and
`touchbridgectl follow-focus sway` as sway's user (a control peer through --control-group). The same
three-finger swipe on the panel with each window focused in turn (`swaymsg '[app_id=…] focus'`):
- the first app's action, then the second's: libinput reads their keys on the daemon's keyboard, and
  the mirror cancels the swipe's touches (TOUCH_CANCEL), as a claimed gesture's;
- none in the app of passthroughApps: no action, no key, and the mirror passes the three touches whole
  (TOUCH_DOWN, motion, TOUCH_UP, no TOUCH_CANCEL), as libinput reads them.
"""
import os
import re
import subprocess

from actions import ActionRig, keys, not_ready, stopped, watch
from common import report, tbsupport
import sway

ONE, TWO, DRAW = "org.example.one", "org.example.two", "org.example.draw"
SCENE = {
    "window": {"width": 800, "height": 480},
    "devices": [{"name": "Lab*", "passthrough": True, "passthroughApps": ["org.example.dra?"]}],
    "views": [{"name": "screen", "frame": [0, 0, 800, 480], "multipleTouchEnabled": True, "recognizers": [
        {"name": "backInOne", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
         "apps": [ONE], "action": {"keys": "alt+Left"}},
        {"name": "tabInTwo", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
         "apps": [TWO], "action": {"keys": "ctrl+Page_Up"}}]}],
}
# Three fingers 18 units a frame to the left for 14 frames (60 Hz): a quick swipe.
SWIPE = [(650, 140 + 80 * i, -18, 0, 14, 0) for i in range(3)]


def check_focus(binaries, workdir):
    name = "focus: follow-focus sway picks each app's action on the lab's panel, none in a passthroughApps app"
    if not sway.available():
        return report(name, False, "sway, foot or setpriv is not installed (lab/run.sh installs them)")
    os.chmod(workdir, 0o755)                    # sway's user reaches its runtime directory and the daemon's socket
    # Under emulation sway takes seconds to start and to draw three windows with pixman.
    desktop = sway.HeadlessSway([ONE, TWO, DRAW], base=workdir, timeout=120)
    rig = follower = None
    try:
        rig = ActionRig(binaries, workdir, scene=SCENE, extra=["--socket-group", sway.USER, "--control-group", sway.USER],
                        topics=("gestures", "touches", "devices", "actions", "focus"))
        if not rig.ready:
            return not_ready(name, rig)
        follower = subprocess.Popen(desktop.as_user([os.path.join(binaries, "touchbridgectl"), "follow-focus", "sway",
                                                     "--socket", rig.daemon.socket]),
                                    env=desktop.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        results = {}
        for app in (ONE, TWO, DRAW):
            desktop.focus(app)
            rig.client.until(lambda l: l.get("event") == "focus" and l.get("app") == app, timeout=20)
            kb = watch(rig.keyboard, workdir, "keyboard-" + app)
            mirror = tbsupport.LibinputWatcher(rig.mirror, workdir, "mirror-" + app)
            rig.client.pump(0.3)
            lines = rig.play(workdir, "swipe-" + app, SWIPE, wait=1.5)
            results[app] = ([(l["recognizer"], l["keys"]) for l in lines if l.get("event") == "action"],
                            keys(stopped(kb)), [k for k in re.findall(r"\b(TOUCH_DOWN|TOUCH_UP|TOUCH_CANCEL|TOUCH_MOTION)\b", stopped(mirror))])
        one, two, draw = results[ONE], results[TWO], results[DRAW]
        claimed = lambda kinds: kinds.count("TOUCH_CANCEL") == 3 and "TOUCH_UP" not in kinds
        ok = (one[0] == [("backInOne", "alt+Left")] and one[1] == [("KEY_LEFTALT", "pressed"), ("KEY_LEFT", "pressed"),
                                                                   ("KEY_LEFT", "released"), ("KEY_LEFTALT", "released")]
              and claimed(one[2])
              and two[0] == [("tabInTwo", "ctrl+Page_Up")] and ("KEY_PAGEUP", "pressed") in two[1] and claimed(two[2])
              and draw[0] == [] and draw[1] == [] and draw[2].count("TOUCH_DOWN") == 3 and draw[2].count("TOUCH_UP") == 3
              and "TOUCH_CANCEL" not in draw[2] and "TOUCH_MOTION" in draw[2])
        summary = lambda r: "actions {}, keys {}, mirror {} down/{} up/{} cancel/{} motion".format(
            r[0], len(r[1]), r[2].count("TOUCH_DOWN"), r[2].count("TOUCH_UP"), r[2].count("TOUCH_CANCEL"), r[2].count("TOUCH_MOTION"))
        report(name + " ({}: {}; {}: {}; {}: {})".format(ONE, summary(one), TWO, summary(two), DRAW, summary(draw)), ok,
               "" if ok else "keys: one {}, two {}, draw {}; follower said: {}".format(one[1], two[1], draw[1],
                                                                                      follower.stderr.read() if follower.poll() is not None else "(running)"))
    finally:
        if follower and follower.poll() is None:
            follower.terminate()
            follower.wait(10)
        if rig:
            rig.stop()
        desktop.stop()


CHECKS = [("focus", check_focus)]
