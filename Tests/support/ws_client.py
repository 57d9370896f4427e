"""A WebSocket client for the tests, on Python's `websockets` (Debian python3-websockets), run by Debian's
/usr/bin/python3 (another python3 first on the PATH may not have it). It prints what happens, one JSON
object a line, flushed at once:

    {"open": true}                         the handshake was accepted
    {"refused": 403, "body": "…"}          the handshake was answered with an HTTP status
    {"text": "…"} / {"binary": "hex"}      a frame from the server
    {"closed": 1008, "reason": "…"}        the server closed the connection

    ws_client.py URL [--origin O] [--seconds S] [--send TEXT]... [--stall S]

--stall S: after the handshake, read nothing for S seconds (a client that falls behind)."""
import argparse
import asyncio
import json
import sys

import websockets


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def main(a):
    extra = {"origin": a.origin} if a.origin else {}
    if a.stall:
        # A small receive buffer, so that what the server sends waits on its side, not in ours.
        import socket
        host, port = a.url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((host, int(port)))
        extra["sock"] = s
    try:
        ws = await websockets.connect(a.url, max_size=None, max_queue=None if a.stall else 32, open_timeout=10, **extra)
    except websockets.exceptions.InvalidStatusCode as e:
        say({"refused": e.status_code, "body": ""})
        return
    except Exception as e:  # noqa: BLE001 — what went wrong is the test's to read
        say({"error": repr(e)})
        return
    say({"open": True})
    if a.stall:
        # Stop reading: the kernel's buffers fill, then the server's queue for us.
        ws.transport.pause_reading()
        await asyncio.sleep(a.stall)
        ws.transport.resume_reading()
    for text in a.send:
        await ws.send(text)
    end = asyncio.get_event_loop().time() + a.seconds
    try:
        while True:
            left = end - asyncio.get_event_loop().time()
            if left <= 0:
                break
            try:
                m = await asyncio.wait_for(ws.recv(), timeout=left)
            except asyncio.TimeoutError:
                break
            say({"text": m} if isinstance(m, str) else {"binary": m.hex()})
    except websockets.exceptions.ConnectionClosed as e:
        say({"closed": e.code, "reason": e.reason})
        return
    await ws.close()
    say({"closed": ws.close_code, "reason": ws.close_reason or ""})


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("--origin")
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--send", action="append", default=[])
    p.add_argument("--stall", type=float, default=0)
    asyncio.run(main(p.parse_args()))
