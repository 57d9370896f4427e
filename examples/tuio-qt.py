#!/usr/bin/python3
"""A window that draws the touches `touchbridgectl tuio` sends, heard through Qt's own TuioTouch plugin
(Debian qt6-qpa-plugins) with PyQt6 (Debian python3-pyqt6): no TouchBridge code on this side.

    touchbridgectl tuio --udp 127.0.0.1:3333 &
    /usr/bin/python3 examples/tuio-qt.py [--port 3333] [--print]

The touches are read on the QWindow itself, as Qt's plugin delivers them (Qt 6.4's widgets drop the
release of a point that lands while another is down). With --print, each touch point's press, move and
release is a line on stdout: "pressed ID X Y", X and Y from 0 to 1 over the window (Qt's plugin maps
TUIO's normalized positions onto the window that gets the touches), as TUIO says them.
Debian's Python packages are seen by /usr/bin/python3 (another python3 first on the PATH may not).
"""
import argparse
import os
import sys

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--port", type=int, default=3333, help="the UDP port TUIO arrives on (default 3333)")
ap.add_argument("--print", action="store_true", help="print each touch point's press, move and release")
args = ap.parse_args()

# The plugin listens on the port; without focus (a kiosk's window, or the offscreen platform of a test)
# it delivers to the first top-level window.
os.environ["QT_QPA_GENERIC_PLUGINS"] = "tuiotouch:udp={}".format(args.port)
os.environ.setdefault("QT_TUIOTOUCH_DELIVER_WITHOUT_FOCUS", "1")

from PyQt6.QtCore import QEvent, QPointF, Qt  # noqa: E402
from PyQt6.QtGui import QColor, QEventPoint, QGuiApplication, QPainter, QRasterWindow  # noqa: E402

STATES = {QEventPoint.State.Pressed: "pressed", QEventPoint.State.Updated: "moved",
          QEventPoint.State.Released: "released"}
TOUCH_EVENTS = (QEvent.Type.TouchBegin, QEvent.Type.TouchUpdate, QEvent.Type.TouchEnd, QEvent.Type.TouchCancel)


class TouchWindow(QRasterWindow):
    def __init__(self):
        super().__init__()
        self.points = {}
        self.setTitle("TouchBridge over TUIO")

    def event(self, e):
        if e.type() not in TOUCH_EVENTS:
            return super().event(e)
        for p in e.points():
            state = STATES.get(p.state())
            if e.type() == QEvent.Type.TouchCancel:
                state = "released"
            if state is None:
                continue
            if state == "released":
                self.points.pop(p.id(), None)
            else:
                self.points[p.id()] = p.position()
            if args.print:
                q = p.position()
                print("{} {} {:.4f} {:.4f}".format(state, p.id(), q.x() / self.width(), q.y() / self.height()), flush=True)
        e.accept()
        self.update()
        return True

    def paintEvent(self, _):
        painter = QPainter(self)
        painter.fillRect(0, 0, self.width(), self.height(), QColor("#101418"))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        for i, (pid, pos) in enumerate(sorted(self.points.items())):
            painter.setBrush(QColor.fromHsv((i * 67) % 360, 180, 240))
            painter.drawEllipse(QPointF(pos), 28, 28)
        painter.end()


app = QGuiApplication(sys.argv)
window = TouchWindow()
window.resize(800, 600)
window.show()
window.requestActivate()
sys.exit(app.exec())
