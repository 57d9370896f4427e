#!/usr/bin/env python3
"""A TouchBridge client in plain Python (standard library only).

Connects to touchbridged's socket, subscribes, and prints each line it receives, decoded.

    python3 examples/listen.py                        # gestures, default socket
    python3 examples/listen.py --touches --devices    # everything
    python3 examples/listen.py --socket /tmp/tb.sock --count 5 --json

With --json it prints the raw JSON lines (one per line); --count N stops after N gesture lines.
"""
import argparse
import json
import os
import socket
import sys


SYSTEM_SOCKET = "/run/touchbridge/touchbridge.sock"


def default_socket():
    """As touchbridgectl finds it: $TOUCHBRIDGE_SOCKET when set; else the daemon you run yourself
    ($XDG_RUNTIME_DIR/touchbridge.sock) when it is there, else the system service's."""
    if os.environ.get("TOUCHBRIDGE_SOCKET"):
        return os.environ["TOUCHBRIDGE_SOCKET"]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    own = os.path.join(runtime, "touchbridge.sock") if runtime and os.geteuid() != 0 else None
    if own and os.path.exists(own):
        return own
    if os.path.exists(SYSTEM_SOCKET) or not own:
        return SYSTEM_SOCKET
    return own


def group_of(path):
    """The name of the group that owns `path`, if it can be told."""
    try:
        import grp
        return grp.getgrgid(os.stat(path).st_gid).gr_name
    except (OSError, KeyError, ImportError):
        return None


def lines(sock):
    """Yields the server's lines, decoded from JSON."""
    buffer = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if line:
                yield json.loads(line)


def describe(event):
    if event["event"] == "gesture":
        extra = ""
        if "translation" in event:
            extra = " translation=({x:.1f}, {y:.1f})".format(**event["translation"])
        elif "scale" in event:
            extra = " scale={:.3f}".format(event["scale"])
        elif "rotation" in event:
            extra = " rotation={:.3f} rad".format(event["rotation"])
        elif "direction" in event:
            extra = " direction=" + event["direction"]
        return "{time:.3f} {recognizer} ({type}) {state} at ({x:.0f}, {y:.0f}) with {touches} touch(es) on {view}{extra}".format(
            extra=extra, **event)
    if event["event"] == "touch":
        return "{time:.3f} touch #{id} {phase} at ({x:.0f}, {y:.0f}) tapCount {tapCount}".format(**event)
    if event["event"] == "hello":
        return "connected to touchbridged {version} (protocol {protocol})".format(**event)
    if event["event"] == "subscribed":
        return "subscribed to " + ", ".join(event["topics"])
    if event["event"] == "device":
        return "device {action}: {node} \"{name}\"".format(**event)
    return json.dumps(event)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=default_socket())
    parser.add_argument("--touches", action="store_true")
    parser.add_argument("--devices", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the raw JSON lines")
    parser.add_argument("--count", type=int, default=0, help="stop after this many gesture lines")
    args = parser.parse_args()

    topics = ["gestures"] + (["touches"] if args.touches else []) + (["devices"] if args.devices else [])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(args.socket)
    except PermissionError:
        group = group_of(args.socket) or "touchbridge"
        sys.exit("{}: permission denied (the socket is for group \"{}\": sudo usermod -aG {} $USER, then log in "
                 "again)".format(args.socket, group, group))
    except OSError as e:
        sys.exit("{}: {} (is touchbridged running? start it: systemctl start touchbridged, or `make run`; or pass "
                 "--socket PATH)".format(args.socket, e.strerror))
    sock.sendall((json.dumps({"subscribe": topics}) + "\n").encode())
    seen = 0
    for event in lines(sock):
        print(json.dumps(event, separators=(",", ":")) if args.json else describe(event), flush=True)
        if event["event"] == "gesture":
            seen += 1
            if args.count and seen >= args.count:
                break


if __name__ == "__main__":
    main()
