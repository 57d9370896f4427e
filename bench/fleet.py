#!/usr/bin/env python3
"""make fleet: N kiosks on this machine, as a fleet of panels would be (README "Fleets and Home Assistant").

N daemons each replay a recording as a live device (looped), N `touchbridgectl mqtt` bridges publish
their gestures at QoS 1 to one Mosquitto broker on loopback, and one subscriber (a persistent QoS 1
session) reads them all. Halfway through, the broker is restarted. Reported:
- messages delivered against messages expected: every gesture line the daemons sent (counted by a socket
  client of each daemon), each one received at least once (QoS 1 may deliver twice across the restart);
- end-to-end latency, the subscriber's receipt (CLOCK_MONOTONIC) minus the line's own time (the daemon's
  frame time, on the same clock), p50 and p99, outside the restart;
- the bridges' CPU time per message, next to `socat -u UNIX-CONNECT:… - | mosquitto_pub -l` forwarding the
  same daemons' gesture lines in the same run.

    python3 bench/fleet.py --bin .build/release --kiosks 50 --seconds 60
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import tbsupport  # noqa: E402
from broker import Broker  # noqa: E402

RECORDING = os.path.join(ROOT, "Tests", "Fixtures", "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")


class Subscriber(threading.Thread):
    """mosquitto_sub on every kiosk's gestures, each line stamped when it arrives."""

    def __init__(self, port, topic, session):
        super().__init__(daemon=True)
        self.cmd = ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-c", "-i", session, "-t", topic, "-v"]
        self.received = []
        self.proc = None
        self.start_proc()
        self.start()

    def start_proc(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def run(self):
        while True:
            proc = self.proc
            for line in proc.stdout:
                self.received.append((time.monotonic(), line.rstrip("\n")))
            if proc is self.proc:
                time.sleep(0.05)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    ap.add_argument("--kiosks", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tb-fleet-")
    # Unbounded queues and in-flight windows: the bench measures delivery, not the broker's limits.
    b = Broker(work, anonymous=True, persistence=True, extra="max_queued_messages 0\nmax_inflight_messages 0\n")
    port = b.port
    procs = []
    sub = Subscriber(port, "fleet/#", "fleet-bench")
    daemons, bridges, counters, pipes = [], [], [], []
    try:
        for i in range(args.kiosks):
            os.makedirs(os.path.join(work, str(i)))
            d = tbsupport.Daemon(os.path.join(args.bin, "touchbridged"),
                                 ["--no-devices", "--replay", RECORDING, "--replay-loop", "--replay-delay", "1"], workdir=os.path.join(work, str(i)))
            daemons.append(d)
            cfg = os.path.join(work, "mqtt-{}.json".format(i))
            with open(cfg, "w") as f:
                json.dump({"broker": "mqtt://127.0.0.1:{}".format(port), "prefix": "fleet/k{}".format(i), "topics": ["gestures"]}, f)
            bridges.append(subprocess.Popen([os.path.join(args.bin, "touchbridgectl"), "mqtt", "--config", cfg, "--socket", d.socket],
                                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "bridge-{}.log".format(i)), "w")))
            # What the daemon sent: a client counting its gesture lines.
            counters.append(tbsupport.Client(d.socket, topics=["gestures"]))
            # The same lines through socat and mosquitto_pub -l, to another topic, for the CPU comparison.
            pipes.append(subprocess.Popen("socat -u UNIX-CONNECT:{} - | mosquitto_pub -h 127.0.0.1 -p {} -q 1 -l -t pipe/k{}".format(
                d.socket, port, i), shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        start = time.monotonic()
        restart_at = start + args.seconds / 2
        restarted = None
        # The steady state, from 2 s in (every process started, the replays begun) to the restart: the
        # CPU of both sides over that window, start-up and the restart left out.
        steady_from = start + 2
        steady = {}

        def pipe_processes():
            pids = []
            for p in pipes:
                pids += [int(x) for x in subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True).stdout.split()]
            return pids

        def snapshot():
            return (sum(tbsupport.cpu_seconds(x.pid) for x in bridges), sum(tbsupport.cpu_seconds(pid) for pid in pipe_processes()), time.monotonic())
        while time.monotonic() - start < args.seconds:
            for c in counters:
                c.pump(0.01)
            if "from" not in steady and time.monotonic() >= steady_from:
                steady["from"] = snapshot()
            if restarted is None and time.monotonic() >= restart_at:
                steady["to"] = snapshot()
                b.stop()
                time.sleep(1.0)
                b.start()
                restarted = (restart_at, time.monotonic() + 1)
                sub.proc.kill()
                time.sleep(0.5)
                sub.start_proc()
        # Their whole CPU time, start-up included on both sides.
        cpu = sum(tbsupport.cpu_seconds(b.pid) for b in bridges)
        pipe_pids = pipe_processes()
        pcpu = sum(tbsupport.cpu_seconds(pid) for pid in pipe_pids if os.path.exists("/proc/{}".format(pid)))
        # Stop the sources, then let what is queued arrive.
        for d in daemons:
            d.stop()
        for c in counters:
            c.pump(0.05)
        time.sleep(5)
        sent = {}
        for i, c in enumerate(counters):
            for l in c.of("gesture"):
                sent[("fleet/k{}".format(i), l["time"], l["recognizer"])] = l
        got, latencies = set(), []
        for arrived, line in sub.received:
            topic, _, payload = line.partition(" ")
            if "/gesture/" not in topic:
                continue
            try:
                g = json.loads(payload)
            except ValueError:
                continue
            key = (topic.rsplit("/gesture/", 1)[0], g["time"], g["recognizer"])
            if key in got:
                continue
            got.add(key)
            if restarted is None or not (restarted[0] - 1 <= g["time"] <= restarted[1] + 2):
                latencies.append((arrived - g["time"]) * 1000)
        lost = [k for k in sent if k not in got]
        latencies.sort()
        p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")
        messages = len(sent)
        print("fleet: {} kiosks, {:.0f} s, broker restarted at {:.0f} s".format(args.kiosks, args.seconds, args.seconds / 2))
        print("fleet: {} gesture lines sent, {} delivered, {} lost".format(messages, len(got & set(sent)), len(lost)))
        print("fleet: latency socket line → subscriber p50 {:.1f} ms, p99 {:.1f} ms ({} lines outside the restart)".format(p(0.5), p(0.99), len(latencies)))
        per = lambda s, n: s / max(1, n) * 1e6
        # The bridges publish more than the gesture lines (activity, devices, status), the pipes exactly
        # those: each bridge says at exit how many it published.
        for x in bridges:
            x.terminate()
            x.wait(10)
        bridge_messages = 0
        for i in range(args.kiosks):
            with open(os.path.join(work, "bridge-{}.log".format(i))) as f:
                for l in f:
                    if "info: published " in l:
                        bridge_messages += int(l.split("info: published ")[1].split()[0])
        print("fleet: CPU per message: bridges {:.0f} µs ({} messages published: the gesture lines, activity, devices, "
              "status), socat | mosquitto_pub -l {:.0f} µs ({} gesture lines): ratio {:.2f}; per gesture line the bridges "
              "spend {:.0f} µs".format(per(cpu, bridge_messages), bridge_messages, per(pcpu, messages), messages,
                                       per(cpu, bridge_messages) / per(pcpu, messages) if pcpu else float("nan"), per(cpu, messages)))
        (b0, p0, t0), (b1, p1, t1) = steady["from"], steady["to"]
        window = sum(1 for k in sent if t0 <= k[1] <= t1)
        steady_bridge, steady_pipe = per(b1 - b0, window), per(p1 - p0, window)
        print("fleet: steady state ({:.0f} s before the restart, start-up left out): per gesture line the bridges spend {:.0f} µs, "
              "socat | mosquitto_pub -l {:.0f} µs: ratio {:.2f} ({} gesture lines)".format(
                  t1 - t0, steady_bridge, steady_pipe, steady_bridge / steady_pipe if steady_pipe else float("nan"), window))
        print(json.dumps({"kiosks": args.kiosks, "steady_us_per_gesture_line_bridge": round(steady_bridge, 1),
                          "steady_us_per_gesture_line_pipe": round(steady_pipe, 1), "sent": messages, "delivered": len(got & set(sent)), "lost": len(lost),
                          "latency_ms_p50": round(p(0.5), 2), "latency_ms_p99": round(p(0.99), 2),
                          "bridge_messages": bridge_messages,
                          "cpu_us_per_message_bridge": round(per(cpu, bridge_messages), 1), "cpu_us_per_message_pipe": round(per(pcpu, messages), 1),
                          "cpu_us_per_gesture_line_bridge": round(per(cpu, messages), 1)}))
        return 0 if not lost else 1
    finally:
        for x in bridges:
            if x.poll() is None:
                x.terminate()
        for p in pipes:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for d in daemons:
            d.stop()
        sub.proc.kill()
        b.stop()


if __name__ == "__main__":
    sys.exit(main())
