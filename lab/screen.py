"""The hardware lab's screen-aware checks (docs/screen-aware.md): the lab's panel passed through, with
libinput reading the mirror. Each check is its own PASS line:
- with `set display off`, a tap and a two-finger drag give no mirror event and no gesture, one `wake`
  line each; after `set display on` and the hold-off, a tap passes as usual;
- the kiosk scene never has more than one touch down on the mirror (two-, five- and ten-finger
  recordings), and its operator gesture (five fingers held 3 s) fires.
"""
import json
import os
import re
import subprocess
import time

from common import ROOT, Client, report
from passthrough import HZ, MirrorReader, Rig, Watcher, gesture


def ctl(binaries, socket, *args):
    return subprocess.run([os.path.join(binaries, "touchbridgectl")] + list(args) + ["--socket", socket],
                          capture_output=True, text=True, timeout=30)


def check_display(binaries, workdir):
    scene = os.path.join(workdir, "display.json")
    with open(scene, "w") as f:
        json.dump({"window": {"width": 800, "height": 480}, "devices": [{"name": "Lab*", "passthrough": True}],
                   "views": [{"name": "screen", "frame": [0, 0, 800, 480], "multipleTouchEnabled": True,
                              "recognizers": [{"name": "tap", "type": "tap", "cancelsTouchesInView": False},
                                              {"name": "drag", "type": "pan", "minimumNumberOfTouches": 2}]}]}, f)
    rig = Rig(binaries, workdir, ["--scene", scene, "--wake-holdoff", "0.5"])
    try:
        if not (rig.mirror and rig.wait_grabbed()):
            return report("display: mirror and grab", False, rig.daemon.text()[-1200:])
        client = Client(rig.daemon.socket, topics=("gestures", "devices"))
        seen = Watcher(rig.mirror, workdir, "mirror")
        raw = MirrorReader(rig.mirror)
        client.pump(0.3)
        off = ctl(binaries, rig.daemon.socket, "set", "display", "off")
        start = len(client.lines_seen)
        rig.panel.play(gesture(workdir, "tap-dark", [(300, 200, 0, 0, 5, 0)], hz=HZ))
        rig.panel.play(gesture(workdir, "drag-dark", [(300, 100, 0, 6, 30, 0), (420, 100, 0, 6, 30, 0)], hz=HZ))
        client.pump(1.0)
        dark = client.lines_seen[start:]
        frames = raw.stop()
        wakes = [l for l in dark if l.get("event") == "wake"]
        gestures = [l for l in dark if l.get("event") == "gesture"]
        ok = off.returncode == 0 and not frames and not gestures and len(wakes) == 2 and not seen.kinds()
        report("display: with set display off, a tap and a two-finger drag give no mirror event and no gesture, one wake line each "
               "({} wake lines, {} mirror frames)".format(len(wakes), len(frames)), ok,
               "" if ok else "set display: {} {}; gestures {}; libinput {}".format(off.returncode, off.stderr.strip(), gestures, seen.kinds()))
        on = ctl(binaries, rig.daemon.socket, "set", "display", "on")
        early = len(client.lines_seen)
        mark = len(seen.text())
        rig.panel.play(gesture(workdir, "tap-early", [(300, 200, 0, 0, 5, 0)], hz=HZ))   # within the hold-off
        client.pump(0.8)
        swallowed = not [l for l in client.lines_seen[early:] if l.get("event") in ("gesture", "wake")] and not seen.kinds(mark)
        later = len(client.lines_seen)
        rig.panel.play(gesture(workdir, "tap-lit", [(300, 200, 0, 0, 5, 0)], hz=HZ))
        client.pump(1.0)
        taps = [l for l in client.lines_seen[later:] if l.get("event") == "gesture" and l["recognizer"] == "tap"]
        kinds = seen.kinds(mark)
        seen.stop()
        ok = on.returncode == 0 and swallowed and len(taps) == 1 and kinds == ["TOUCH_DOWN", "TOUCH_UP"]
        report("display: after set display on, a tap within the hold-off is swallowed and one after it passes as usual "
               "(libinput on the mirror: {})".format(kinds), ok, "" if ok else "swallowed {}; taps {}".format(swallowed, taps))
    finally:
        rig.stop()


def check_kiosk(binaries, workdir):
    with open(os.path.join(ROOT, "scenes", "kiosk.json")) as f:
        scene = json.load(f)
    scene["window"] = {"width": 800, "height": 480}
    scene["views"][0]["frame"] = [0, 0, 800, 480]
    scene["devices"] = [{"name": "Lab*", "passthrough": True}]
    path = os.path.join(workdir, "kiosk.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    rig = Rig(binaries, workdir, ["--scene", path])
    try:
        if not (rig.mirror and rig.wait_grabbed()):
            return report("kiosk: mirror and grab", False, rig.daemon.text()[-1200:])
        client = Client(rig.daemon.socket, topics=("gestures",))
        client.pump(0.3)
        most, fired, details = 0, {}, []
        for fingers in (2, 5, 10):
            raw = MirrorReader(rig.mirror)
            start = len(client.lines_seen)
            # Fingers land three frames apart and are held 3.5 s, drifting a pixel a frame.
            spec = [(80 + 70 * i, 200, 0, 1 if f % 2 else 0, 60 * 4 - 3 * i, 3 * i) for i, f in enumerate(range(fingers))]
            spec = [(x, y, dx, 0, n, s) for (x, y, dx, _, n, s) in spec]
            rig.panel.play(gesture(workdir, "kiosk-{}".format(fingers), spec, hz=HZ))
            client.pump(1.0)
            down, slot, peak = set(), 0, 0
            for _, ev in raw.stop():
                for (ty, code, value) in ev:
                    if ty == 3 and code == 0x2f:
                        slot = value
                    elif ty == 3 and code == 0x39:
                        (down.add if value >= 0 else down.discard)(slot)
                peak = max(peak, len(down))
            most = max(most, peak)
            fired[fingers] = [l["state"] for l in client.lines_seen[start:] if l.get("event") == "gesture" and l["recognizer"] == "operator"]
            details.append("{} fingers: at most {} down on the mirror".format(fingers, peak))
        ok = most <= 1 and fired[5][:1] == ["began"] and not fired[2]
        report("kiosk: the mirror never has more than one touch down ({}), and five fingers held fire the operator gesture".format(
            "; ".join(details)), ok, "" if ok else "operator: {}".format(fired))
    finally:
        rig.stop()


CHECKS = [
    ("screen display", check_display),
    ("screen kiosk", check_kiosk),
]
