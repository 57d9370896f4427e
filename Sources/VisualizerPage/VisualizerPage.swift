/// The visualizer's one page (HTML, CSS and JavaScript of our own, nothing fetched from elsewhere),
/// used two ways: served live by `touchbridgectl visualize`, which streams the daemon's lines to it
/// (Server-Sent Events, `/events`), and written with every line of a replay embedded by
/// `touchbridgectl replay --html` (README "Visualize").
///
/// It reads protocol 2's lines — scene, device, touch, recognizer, gesture — into one model and draws
/// from it on `requestAnimationFrame`: the window and its views (`windowFrame` polygons), each touch with
/// its trail, a lane per recognizer with its states over time, the reasons of its failures and its
/// gesture lines' values. Nothing is dropped: the model keeps every line; only the drawing is bounded
/// (the live timeline shows the last 10 s unless paused).
///
/// Embedded touch lines are compact arrays, `[time, device, id, phase, x, y, view, tapCount]` with the
/// phase as an index into `began moved stationary ended cancelled`, the view as an index into a
/// `{"event":"views","names":[…],"timeOrigin":T}` line sent before them, and the time in seconds from
/// `timeOrigin`: a ten-finger recording's report stays small. A pencil's touch adds `kind` (1 tip, 2
/// eraser), `force`, `altitude` and `azimuth`; the page draws it as a dot with its tilt.
package enum VisualizerPage {
    /// The page; `mode` is "live" or "report", `data` the embedded lines (one per line, `<` escaped).
    package static func html(mode: StaticString, title: String, data: String = "") -> String {
        head + "<title>\(escapeHTML(title))</title>\n<script>window.TB_MODE = \"\(mode)\";</script>\n"
            + "<script type=\"application/x-ndjson\" id=\"tb-data\">\n" + data + "</script>\n" + body
    }

    package static func escapeHTML(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
