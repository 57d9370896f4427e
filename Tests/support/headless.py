"""Headless Chromium driven over the DevTools protocol, with the standard library only: for the
visualizer's browser tests and its screenshots (docs/). A page is opened, left to run its scripts for
as long as the test wants (a live page streams), then read with JavaScript or photographed.

    with Browser() as b:
        page = b.open("http://127.0.0.1:8391/")
        page.wait_for("document.body.dataset.gestures > 0", timeout=15)
        page.screenshot("docs/visualizer-live.png")
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request


def chromium():
    """The Chromium binary, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, width=1400, height=1000):
        binary = chromium()
        if binary is None:
            raise RuntimeError("no chromium (make deps installs Debian's chromium)")
        self.profile = tempfile.mkdtemp(prefix="tb-chromium-")
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--remote-debugging-port=0", "--user-data-dir=" + self.profile,
             "--window-size={},{}".format(width, height), "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Chromium writes the port it chose into the profile.
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        end = time.time() + 30
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.time() > end or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start")
            time.sleep(0.05)
        with open(port_file) as f:
            self.port = int(f.readline())

    def open(self, url):
        """A new tab at `url`."""
        req = urllib.request.Request("http://127.0.0.1:{}/json/new?{}".format(self.port, url), method="PUT")
        target = json.loads(urllib.request.urlopen(req, timeout=10).read())
        return Page(target["webSocketDebuggerUrl"])

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """One tab, over a WebSocket (RFC 6455, client frames masked)."""

    def __init__(self, ws_url):
        assert ws_url.startswith("ws://")
        hostport, path = ws_url[len("ws://"):].split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /{} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: {}\r\nSec-WebSocket-Version: 13\r\n\r\n").format(path, hostport, key).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.split(b"\r\n")[0].decode())
        self.buffer = head.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _send(self, text):
        data = text.encode()
        header = bytearray([0x81])
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        mask = os.urandom(4)
        self.sock.sendall(bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _message(self):
        parts = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            parts += payload
            if b0 & 0x80:
                return json.loads(parts)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            m = self._message()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("{}: {}".format(method, m["error"]))
                return m["result"]

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("{}: {}".format(expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait_for(self, expression, timeout=15):
        """Waits until the expression is true; its last value otherwise (falsy)."""
        end = time.time() + timeout
        value = None
        while time.time() < end:
            try:
                value = self.evaluate(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(0.1)
        return value

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
