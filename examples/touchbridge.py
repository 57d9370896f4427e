"""A client of touchbridged's socket (docs/protocol.md), in Python's standard library: copy it beside
your program, or import it from the examples (`sys.path.insert(0, "/usr/share/doc/touchbridge/examples")`).

    from touchbridge import Client

    with Client(topics=["gestures"]) as c:          # the daemon's socket, found as touchbridgectl finds it
        for line in c.lines():
            if line.get("state") == "recognized":
                print(line["recognizer"])

The project's own tests, hardware lab and soak use this same class.
"""
import json
import os
import select
import socket
import time

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


class NotConnected(ConnectionError):
    """The daemon could not be reached; the message says what to do."""


class Client:
    """One connection to the daemon. `topics`: subscribe at once (and wait for the answer) when given;
    the server's first line, `hello`, is read first. `rcvbuf`: a small receive buffer, for tests of slow
    clients. Lines are JSON objects; `take` gives them undecoded, for a client that only counts."""

    def __init__(self, path=None, topics=None, rcvbuf=None, read_hello=True):
        self.path = path or default_socket()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        try:
            self.sock.connect(self.path)
        except PermissionError:
            self.sock.close()
            group = group_of(self.path) or "touchbridge"
            raise NotConnected("{}: permission denied (the socket is for group \"{}\": sudo usermod -aG {} $USER, "
                               "then log in again)".format(self.path, group, group)) from None
        except OSError as e:
            self.sock.close()
            raise NotConnected("{}: {} (is touchbridged running? start it: systemctl start touchbridged, or "
                               "`make run`; or pass --socket PATH)".format(self.path, e.strerror)) from None
        self.buffer = b""
        self.lines_seen = []
        self.hello = self.next() if read_hello else None
        if topics is not None:
            self.subscribe(topics, wait=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, obj):
        """One command line."""
        self.send_raw((json.dumps(obj) + "\n").encode())

    def send_raw(self, data):
        self.sock.sendall(data)

    def subscribe(self, topics, wait=False):
        """Replaces the subscription; with `wait`, reads up to the `subscribed` answer."""
        self.send({"subscribe": list(topics)})
        if wait:
            answer = self.until(lambda l: l["event"] in ("subscribed", "error"))[-1]
            if answer["event"] == "error":
                raise ValueError(answer["message"])

    def take(self, flags=0):
        """The complete lines (bytes, without newlines) that one read brings (perhaps none, when it
        brought part of a line); None at the end of the stream. With socket.MSG_DONTWAIT, as
        socket.recv, BlockingIOError when nothing is waiting."""
        chunk = self.sock.recv(1 << 20, flags)
        if not chunk:
            return None
        *complete, self.buffer = (self.buffer + chunk).split(b"\n")
        return complete

    def next(self, timeout=10):
        """The next line, decoded; None at the end of the stream or after `timeout` seconds."""
        end = time.time() + timeout
        while b"\n" not in self.buffer:
            left = end - time.time()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def until(self, predicate, timeout=15):
        """Lines up to and including the first that satisfies `predicate`; an AssertionError after
        `timeout` seconds without one."""
        out = []
        end = time.time() + timeout
        while time.time() < end:
            line = self.next(timeout=end - time.time())
            if line is None:
                break
            out.append(line)
            if predicate(line):
                return out
        raise AssertionError("timed out; got {} lines, last {}".format(len(out), out[-1:] if out else None))

    def pump(self, seconds):
        """Reads whatever arrives for `seconds` into `lines_seen`."""
        end = time.time() + seconds
        while True:
            line = self.next(timeout=max(0, end - time.time()))
            if line is None:
                return
            self.lines_seen.append(line)

    def of(self, event):
        """The lines pumped so far of one kind ("gesture", "touch", …)."""
        return [l for l in self.lines_seen if l.get("event") == event]

    def command(self, obj):
        """Sends a control command; its answer, `ok` or `error` (lines meanwhile are skipped)."""
        self.send(obj)
        return self.until(lambda l: l["event"] in ("ok", "error"))[-1]

    def lines(self):
        """Every line until the daemon closes the connection."""
        while True:
            line = self.next(timeout=1e9)
            if line is None:
                return
            yield line

    def close(self):
        self.sock.close()
