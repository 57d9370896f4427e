"""The one Mosquitto the tests and the bench start (Tests/integration/test_mqtt.py, test_install.py,
bench/fleet.py), and the small socket helpers they share. Standard library only."""
import os
import shutil
import signal
import socket
import subprocess
import time


def free_port():
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def have_mosquitto():
    return all(shutil.which(p) for p in ("mosquitto", "mosquitto_sub", "mosquitto_passwd", "openssl"))


def wait_for(predicate, timeout=10, step=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


class Broker:
    """mosquitto on 127.0.0.1, users kiosk (the bridge) and ha (a reader), an ACL; `tls`: a listener
    with a certificate for 127.0.0.1 from a CA made here; `anonymous`: anyone may publish anywhere (as
    many run it on a LAN, and as the fleet bench does); `extra`: more lines of mosquitto.conf."""

    def __init__(self, tmp, tls=None, persistence=False, anonymous=False, extra=""):
        self.tmp = tmp
        self.port = free_port()
        self.anonymous = anonymous
        if anonymous:
            # Mosquitto as many run it on a LAN: anyone who reaches it may publish anywhere.
            self.conf = os.path.join(tmp, "mosquitto.conf")
            with open(self.conf, "w") as f:
                f.write("listener {} 127.0.0.1\nallow_anonymous true\n".format(self.port) + extra)
                if persistence:
                    f.write("persistence true\npersistence_location {}/\n".format(tmp))
                if os.geteuid() == 0:
                    f.write("user root\n")
            self.start()
            return
        passwd = os.path.join(tmp, "passwd")
        open(passwd, "w").close()
        for user, pw in (("kiosk", "kiosk-secret"), ("ha", "ha-secret")):
            subprocess.run(["mosquitto_passwd", "-b", passwd, user, pw], check=True, capture_output=True)
        acl = os.path.join(tmp, "acl")
        with open(acl, "w") as f:
            f.write("user kiosk\ntopic readwrite touchbridge/#\ntopic readwrite homeassistant/#\n\n"
                    "user ha\ntopic readwrite #\n")
        self.conf = os.path.join(tmp, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write("listener {} 127.0.0.1\nallow_anonymous false\npassword_file {}\nacl_file {}\n".format(self.port, passwd, acl))
            if os.geteuid() == 0:
                f.write("user root\n")                       # as root it would become "mosquitto", who cannot read here
            if tls:
                f.write("cafile {}\ncertfile {}\nkeyfile {}\n".format(*tls))
            if persistence:
                f.write("persistence true\npersistence_location {}/\nautosave_interval 1\n".format(tmp))
        self.start()

    def start(self):
        self.log = open(os.path.join(self.tmp, "broker.log"), "a")
        self.proc = subprocess.Popen(["mosquitto", "-c", self.conf], stdout=self.log, stderr=subprocess.STDOUT)
        assert wait_for(lambda: port_open(self.port), timeout=10), "mosquitto did not start"

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(10)
