#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (scripts/fuzz.sh): scenes that use every key, client lines, and the
fixtures' events in the `frames` target's encoding (Sources/TouchBridgeFuzzing/Fuzz.swift: a byte for
the panel, then six bytes an event: kind, code, a 16-bit value, a time step in milliseconds, padding).

usage: fuzz_seeds.py scenes|client-lines|frames|websocket DIR
"""
import json
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "Tests", "Fixtures")


def scenes(out):
    views = [
        {"name": "list", "frame": [0, 0, 800, 400], "multipleTouchEnabled": True, "bounds": [0, 20, 800, 400],
         "recognizers": [{"name": "scroll", "type": "pan", "cancelsTouchesInView": False, "requireToFail": ["back"],
                          "minimumNumberOfTouches": 1, "maximumNumberOfTouches": 2,
                          "action": {"scroll": {"pointsPerNotch": 40, "natural": False, "deceleration": "fast"}}},
                         {"name": "back", "type": "screenEdgePan", "edges": ["left", "top"], "delaysTouchesBegan": True,
                          "action": {"keys": ["alt+Left", "KEY_BACK"], "on": "ended"}}],
         "subviews": [{"name": "close", "frame": [760, 16, 24, 24], "touchInsets": [-10, -10, -10, -10],
                       "exclusiveTouch": True, "recognizers": [{"name": "closeTap", "type": "tap", "delaysTouchesEnded": False}]}]},
        {"name": "photo", "frame": [0, 400, 800, 80], "transform": [0.7, 0.7, -0.7, 0.7, 10, -5], "alpha": 0.5,
         "passthrough": False,
         "recognizers": [{"name": "zoom", "type": "pinch", "simultaneousWith": ["turn"], "action": {"zoom": {"step": 1.2}}},
                         {"name": "turn", "type": "rotation", "simultaneousWith": "*"},
                         {"name": "open", "type": "tap", "numberOfTapsRequired": 2, "numberOfTouchesRequired": 2},
                         {"name": "hold", "type": "longPress", "minimumPressDuration": 0.2, "allowableMovement": 5,
                          "numberOfTapsRequired": 1, "numberOfTouchesRequired": 1, "enabled": True,
                          "action": {"click": "right", "count": 2}},
                         {"name": "flick", "type": "swipe", "direction": ["left", "up"], "numberOfTouchesRequired": 1},
                         {"name": "desk", "type": "pan", "minimumNumberOfTouches": 3, "maximumNumberOfTouches": 4,
                          "action": {"touchpad": {"scale": 0.03, "fingers": 3}}},
                         {"name": "swipe3", "type": "swipe", "numberOfTouchesRequired": 3, "action": {"touchpad": {}}},
                         {"name": "light", "type": "screenEdgePan", "edges": ["right"],
                          "action": {"value": {"from": 0.2, "to": 1, "along": "y", "target": "backlight:intel_backlight"}}},
                         {"name": "volume", "type": "pan", "minimumNumberOfTouches": 2, "action": {"value": {"from": 1.5, "to": 0, "along": "x"}}},
                         {"name": "draw", "type": "stroke", "shapes": ["circle", "Z"], "orientation": "sensitive", "minimumScore": 0.8,
                          "action": [{"keys": "super+l", "on": "circle"}, {"click": "left", "on": "Z"}]},
                         {"name": "mine", "type": "stroke", "touches": 2, "minimumLength": 30,
                          "templates": {"hook": [[[0, 0], [0, 10], [5, 12]], [[1, 1], [1, 9], [6, 13]]]}}]},
        {"name": "hidden", "frame": [10, 10, 10, 10], "hidden": True, "userInteractionEnabled": False},
    ]
    devices = [{"name": "Atmel*", "rotation": 90, "flipX": True, "region": [0, 0, 400, 480], "passthrough": True,
                "passthroughApps": ["krita", "com.github.*"]},
               {"vendorProduct": "056a:00e6", "calibration": [1, 0, 0, 0, 1, 0], "grab": True, "tablets": True,
                "flipY": True, "property": "ID_PATH=x", "devnode": "/dev/input/event4", "pointerArea": [0, 0, 0.5, 1]}]
    all_keys = {"window": {"width": 800, "height": 480}, "keyboard": {"layout": "de", "variant": "", "options": ""},
                "display": {"dimAfter": 30, "dimTo": 0.2, "offAfter": 90, "backlight": "intel_backlight"},
                "devices": devices, "views": views}
    for name, scene in [("all-keys.json", all_keys), ("empty.json", {"window": {"width": 1, "height": 1}}),
                        ("no-views.json", {"window": {"width": 800, "height": 480}, "views": []})]:
        with open(os.path.join(out, name), "w") as f:
            json.dump(scene, f, indent=1)


def client_lines(out):
    lines = ['{"subscribe":["gestures","touches","devices"]}', '{"subscribe":[]}', '{"subscribe":["touches"],"extra":1}',
             '{"subscribe":"gestures"}', '{"hello":1}', '[1,2,3]', '  ', 'not json', '{"subscribe":["x"]}',
             '{"subscribe":[1]}', '{}', '{"subscribe":["gestures"]} trailing', '"\\ud800"', '{"a":{"b":[[[[[]]]]]}}',
             '{"subscribe":["recognizers","scene"]}', '{"set":{"recognizers":["edge*","tap"],"enabled":false}}',
             '{"set":{"recognizers":["[a-d]*"],"enabled":true}}', '{"set":{"device":"*","rotation":90,"flipX":true}}',
             '{"set":{"device":0,"calibration":[1,0,0,0,1,0]}}', '{"set":{"display":"off"}}', '{"set":{"display":"on"}}',
             '{"set":{"display":"dim"}}', '{"subscribe":["actions","devices"]}',
             '{"set":{"focus":{"app":"firefox","title":"Mozilla Firefox","source":"sway","whileConnected":true}}}',
             '{"set":{"focus":null}}', '{"set":{"focus":{"title":"x"}}}', '{"set":{"focus":{"app":"\\u00e9","whileConnected":1}}}',
             '{"subscribe":["focus"]}', '{"set":{"brightness":0.4}}', '{"set":{"brightness":0}}',
             '{"set":{"brightness":"40%"}}', '{"set":{"brightness":1,"display":"on"}}']
    with open(os.path.join(ROOT, "scenes", "default.json")) as f:
        views = json.load(f)["views"]                  # the built-in scene's views, as a client scene
    lines.append(json.dumps({"scene": {"name": "k", "views": [
        {"name": "pad", "frame": [0, 0, 400, 400], "transform": [0, 1, -1, 0, 5, 5], "passthrough": False,
         "recognizers": [{"name": "drag", "type": "pan", "requireToFail": ["flick"]},
                         {"name": "flick", "type": "swipe", "direction": ["left"], "simultaneousWith": "*"}],
         "subviews": [{"name": "b", "frame": [1, 1, 20, 20], "recognizers": [{"name": "t", "type": "tap"}]}]}]}}))
    lines.append(json.dumps({"scene": {"name": "kiosk", "views": views}}))
    lines.append('{"scene":{"name":"k","views":[]}}')
    # What the MQTT command topic must refuse: a scene whose subview's recognizer types keys.
    lines.append(json.dumps({"scene": {"name": "pwn", "views": [{"name": "o", "frame": [0, 0, 9, 9], "subviews": [
        {"name": "i", "frame": [0, 0, 5, 5], "recognizers": [{"name": "t", "type": "tap", "action": {"keys": "super+l"}}]}]}]}}))
    lines.append('{"subscribe":["gestures"],' + ",".join('"k%d":1' % i for i in range(150)) + '}')
    for i, line in enumerate(lines):
        with open(os.path.join(out, "line-{}".format(i)), "w") as f:
            f.write(line)


KINDS = {"0000": 0, "0003": 1, "0001": 2}


def events_of(name, device=0):
    """A fixture's events as (time, kind, code, value, device)."""
    out = []
    with open(os.path.join(FIX, name)) as f:
        for line in f:
            if not line.startswith("E:"):
                continue
            p = line.split()
            if p[2] in KINDS:
                out.append((float(p[1]), KINDS[p[2]], int(p[3], 16), int(p[4]), device))
    return out


def encode(panel, events):
    data = bytearray([panel])
    last = None
    for t, kind, code, value, device in events:
        step = 0 if last is None else min(63, max(0, int(round((t - last) * 1000))))
        last = t
        data += struct.pack("<BBhBB", kind, code & 0xff, max(-32768, min(32767, value)), step, device)
        if len(data) > 2000:
            break
    return data


def frames(out):
    for name in sorted(os.listdir(FIX)):
        if not name.endswith((".evemu", ".events")) or "-pen__" in name:
            continue
        panel = 1 if "protocolA" in name else 2 if "quanta" in name else 0
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(encode(panel, events_of(name)))
    # The pen rig (panel 3): a pen's recording alone, and interleaved by time with its finger panel's
    # (the low bit of each event's last byte: 1 for the pen).
    pen = events_of("evemu-devices__wacom-cintiq-13hd-pen__hover-strokes.evemu", device=1)
    finger = events_of("evemu-devices__wacom-cintiq-13hd-finger__1fg-touch.evemu", device=0)
    with open(os.path.join(out, "pen.bin"), "wb") as f:
        f.write(encode(3, pen))
    with open(os.path.join(out, "pen-and-finger.bin"), "wb") as f:
        f.write(encode(3, sorted(pen + finger, key=lambda e: e[0])))


def ws_frame(opcode, payload, mask=b"\x11\x22\x33\x44", fin=True):
    """A client's frame (RFC 6455: masked)."""
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def websocket(out):
    """Upgrade requests (good, and each way of being refused), each followed by a client's frames."""
    token = "00112233445566778899aabbccddeeff"
    base = ("GET /lines?topics=gestures,touches&token={t} HTTP/1.1\r\nHost: 127.0.0.1:7681\r\nUpgrade: websocket\r\n"
            "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")
    heads = {
        "lines": base + "\r\n",
        "origin-allowed": base + "Origin: https://kiosk.example\r\n\r\n",
        "origin-foreign": base + "Origin: http://evil.example\r\n\r\n",
        "tuio": base.replace("/lines?topics=gestures,touches", "/tuio?profile=2.0") + "\r\n",
        "host-foreign": base.replace("Host: 127.0.0.1:7681", "Host: evil.example") + "\r\n",
        "cookie": base.replace("&token={t}", "") + "Cookie: touchbridge_token_7681={t}\r\n\r\n",
        "version-8": base.replace("Version: 13", "Version: 8") + "\r\n",
    }
    set_cmd = json.dumps({"set": {"recognizers": ["edge*"], "enabled": False}}).encode()
    frames = {
        "set": ws_frame(1, set_cmd),
        "fragments": ws_frame(1, set_cmd[:10], fin=False) + ws_frame(0, set_cmd[10:]),
        "ping-close": ws_frame(9, b"hi") + ws_frame(8, struct.pack(">H", 1000) + b"bye"),
        "binary": ws_frame(2, b"\x00\x01\x02"),
        "scene": ws_frame(1, b'{"scene":{"views":[]}}'),
    }
    for h, head in heads.items():
        for f, frame in frames.items():
            with open(os.path.join(out, "%s-%s.bin" % (h, f)), "wb") as fh:
                fh.write(head.format(t=token).encode() + frame)


if __name__ == "__main__":
    {"scenes": scenes, "client-lines": client_lines, "frames": frames, "websocket": websocket}[sys.argv[1]](sys.argv[2])
