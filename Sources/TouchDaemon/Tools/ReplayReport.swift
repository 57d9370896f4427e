import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem
import VisualizerPage

/// `touchbridgectl replay --html OUT`: one self-contained HTML file, the visualizer's page with the
/// scene and every line of the replay embedded (README "Visualize"). Touch lines, the bulk of a
/// ten-finger recording, are embedded as compact arrays (`VisualizerPage`) whose times count from the
/// first touch (`timeOrigin` in the report's `views` line says from when); the other lines exactly as
/// they went out on the socket.
public struct ReplayReport {
    private var lines: [String] = []
    private var viewIndex: [String: Int] = [:]
    private var viewNames: [String] = []
    /// The first touch's time: the compact touch lines count from it.
    private var origin: Double?
    public private(set) var touchLines = 0
    public private(set) var gestureLines = 0

    public init() {}

    package static let phases = ["began", "moved", "stationary", "ended", "cancelled"]

    /// Takes one line of the replay (any topic).
    public mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Touch lines start {"event":"touch" (their encoder's field order, docs/protocol.md).
        let touchPrefix = #"{"event":"touch""#.utf8
        if bytes.starts(with: touchPrefix), let compact = compactTouch(bytes) {
            lines.append(compact)
            touchLines += 1
            return
        }
        if bytes.starts(with: #"{"event":"gesture""#.utf8) { gestureLines += 1 }
        lines.append(escaped(String(decoding: bytes, as: UTF8.self)))
    }

    /// A touch's time from the first touch's, so that a recording stamped with the wall clock does not
    /// spend ten digits on every touch.
    private mutating func rebased(_ t: Double) -> Double {
        if origin == nil { origin = t }
        return t - origin!
    }

    /// `[time, device, id, phase, x, y, view, tapCount]`; a pencil's adds `kind` (1 its tip, 2 its
    /// eraser), `force`, `altitude` and `azimuth` (null without tilt), for the page to draw it as one.
    private mutating func compactTouch(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var parser = JSONParser(bytes: Array(bytes))
        guard let json = try? parser.parse(), let time = json["time"]?.numberValue,
              let id = json["id"]?.numberValue, let phase = json["phase"]?.stringValue,
              let p = ReplayReport.phases.firstIndex(of: phase),
              let x = json["x"]?.numberValue, let y = json["y"]?.numberValue else { return nil }
        var view = -1
        if let name = json["view"]?.stringValue {
            if let i = viewIndex[name] { view = i } else {
                view = viewNames.count
                viewIndex[name] = view
                viewNames.append(name)
            }
        }
        let device = json["device"]?.intValue.map { String($0) } ?? "null"
        let taps = json["tapCount"]?.intValue ?? 0
        var w = JSONWriter(capacity: 32)
        w.number(rebased(time))
        let t = String(decoding: w.bytes, as: UTF8.self)
        var pencil = ""
        if json["type"]?.stringValue == "pencil" {
            let kind = json["eraser"]?.boolValue == true ? 2 : 1
            let force = ReplayReport.short(json["force"]?.numberValue ?? 0)
            // Angles to 0.001 rad (0.06°): finer than a pen's tilt resolves.
            func angle(_ key: String) -> String { json[key]?.numberValue.map { ReplayReport.short($0, steps: 1000) } ?? "null" }
            pencil = ",\(kind),\(force),\(angle("altitude")),\(angle("azimuth"))"
        }
        return "[\(t),\(device),\(Int(id)),\(p),\(ReplayReport.short(x)),\(ReplayReport.short(y)),\(view),\(taps)\(pencil)]"
    }

    /// A position to 0.01 pt (`steps` a unit): finer than any panel resolves, and half the bytes.
    package static func short(_ v: Double, steps: Double = 100) -> String {
        let r = (v * steps).rounded() / steps
        if r == r.rounded() { return String(Int(r)) }
        var w = JSONWriter(capacity: 32)
        w.number(r)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// A line made safe inside a <script> element: `<` only occurs inside JSON strings, where \u003c
    /// means the same.
    private func escaped(_ s: String) -> String {
        s.contains("<") ? s.replacing("<", with: "\\u003c") : s
    }

    /// The page, with everything embedded.
    public func html(title: String) -> String {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.key("event"); w.staticString("views")
        w.key("timeOrigin"); w.number(origin ?? 0)
        w.key("names"); w.beginArray()
        for n in viewNames { w.string(n) }
        w.endArray()
        w.endObject()
        var data = escaped(String(decoding: w.bytes, as: UTF8.self)) + "\n"
        data.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 } + 64)
        for l in lines {
            data += l
            data += "\n"
        }
        return VisualizerPage.html(mode: "report", title: title, data: data)
    }
}
