import TouchCore
import TouchSystem

/// `{"event":"gesture",…}`: a line for every action of a scene's recognizer (S3: on began, changed,
/// ended/recognized and cancelled). Its fields, in this order (docs/protocol.md):
///
///     event "gesture", time, device, recognizer, type, state, view, x, y, touches,
///     then by type: tap: taps; swipe: direction; pan: translation {x, y}, velocity {x, y};
///     screenEdgePan: those of pan, edge; pinch: scale, velocity; rotation: rotation, velocity.
///
/// Written as fixed fragments and values, without per-key bookkeeping: this runs for every update of
/// every continuous gesture.
package enum GestureLine {
    /// The parts of a recognizer's lines that stay the same from one line to the next: its kind, and
    /// `,"recognizer":N,"type":T,"state":"` and `","view":V` as bytes (the view's `nameVersion` is
    /// checked on every line, and the bytes remade if it was renamed). Kept by the closure the
    /// recognizer's actions call, so it holds only the recognizer's kind, never the recognizer: a
    /// reference to it there would make a cycle that no scene replacement frees.
    package final class Fields {
        let kind: RecognizerKind
        let recognizerAndType: LinePiece
        private(set) var viewNameVersion: Int?
        private(set) var view = LinePiece([])

        package init(_ g: GestureRecognizer) {
            kind = RecognizerKind(g)
            var w = JSONWriter(capacity: 128)
            w.fragment(#","recognizer":"#)
            w.string(g.name ?? "")
            w.fragment(#","type":""#)
            w.fragment(kind.name)
            w.fragment(#"","state":""#)
            recognizerAndType = LinePiece(w.bytes)
            update(g)
        }

        deinit {
            recognizerAndType.free()
            view.free()
        }

        func update(_ g: GestureRecognizer) {
            viewNameVersion = g.viewNameVersion
            var w = JSONWriter(capacity: 128)
            w.fragment(#"","view":"#)
            if let name = g.view?.name { w.string(name) } else { w.null() }
            view.free()
            view = LinePiece(w.bytes)
        }
    }

    /// The line's `state`: a discrete recognizer's action is always "recognized" (S1: its ended).
    package static func state(_ g: GestureRecognizer) -> StaticString {
        if g.isDiscrete { return "recognized" }
        switch g.state {
        case .possible: return "possible"
        case .began: return "began"
        case .changed: return "changed"
        case .ended: return "ended"
        case .cancelled: return "cancelled"
        case .failed: return "failed"
        }
    }

    /// Writes `g`'s line (without a newline) after what `w` holds.
    package static func write(_ g: GestureRecognizer, _ fields: Fields, into w: inout LineWriter) {
        w.json.fragment(#"{"event":"gesture","time":"#)
        w.time(g.currentTime)
        w.json.fragment(#","device":"#)
        if let d = g.gestureTouches.first?.device ?? (fields.kind == .hover ? unsafeDowncast(g, to: HoverGestureRecognizer.self).hoverDevice : nil) {
            w.json.int(d)
        } else {
            w.json.null()
        }
        w.json.raw(fields.recognizerAndType.bytes)
        w.json.fragment(state(g))
        if g.viewNameVersion != fields.viewNameVersion { fields.update(g) }
        w.json.raw(fields.view.bytes)
        let p = g.location(in: nil)
        w.json.fragment(#","x":"#)
        w.json.number(p.x)
        w.json.fragment(#","y":"#)
        w.json.number(p.y)
        w.json.fragment(#","touches":"#)
        w.json.int(g.numberOfTouches)
        // The kind was worked out from the recognizer's class when it was wired: the casts cannot fail.
        switch fields.kind {
        case .tap:
            w.json.fragment(#","taps":"#)
            w.json.int(unsafeDowncast(g, to: TapGestureRecognizer.self).numberOfTapsRequired)
        case .swipe:
            w.json.fragment(#","direction":"#)
            w.json.string(unsafeDowncast(g, to: SwipeGestureRecognizer.self).recognizedDirection.description)
        case .pan:
            writePan(unsafeDowncast(g, to: PanGestureRecognizer.self), into: &w.json)
        case .screenEdgePan:
            let e = unsafeDowncast(g, to: ScreenEdgePanGestureRecognizer.self)
            writePan(e, into: &w.json)
            w.json.fragment(#","edge":"#)
            w.json.string(e.touchedEdge.description)
        case .pinch:
            let pinch = unsafeDowncast(g, to: PinchGestureRecognizer.self)
            w.json.fragment(#","scale":"#)
            w.json.number(pinch.scale)
            w.json.fragment(#","velocity":"#)
            w.json.number(pinch.velocity)
        case .rotation:
            let r = unsafeDowncast(g, to: RotationGestureRecognizer.self)
            w.json.fragment(#","rotation":"#)
            w.json.number(r.rotation)
            w.json.fragment(#","velocity":"#)
            w.json.number(r.velocity)
        case .hover:
            // zOffset always; a pencil's eraser end and its angles (window coordinates) as a touch's (T11).
            let h = unsafeDowncast(g, to: HoverGestureRecognizer.self)
            w.json.fragment(#","zOffset":"#)
            w.json.number(h.zOffset)
            if h.isEraser { w.json.fragment(#","eraser":true"#) }
            if h.pose.hasTilt {
                w.json.fragment(#","altitude":"#)
                w.json.number(h.altitudeAngle)
                w.json.fragment(#","azimuth":"#)
                w.json.number(h.azimuthAngle(in: nil))
            }
        case .stroke:
            // The shape, its score, and its template drawn over the stroke (16 window points), to draw.
            let s = unsafeDowncast(g, to: StrokeGestureRecognizer.self)
            if let shape = s.recognizedShape {
                w.json.fragment(#","shape":"#)
                w.json.string(shape)
                w.json.fragment(#","score":"#)
                w.json.number((s.score * 1000).rounded() / 1000)
                w.json.fragment(#","template":["#)
                for (i, p) in s.matchedTemplate.enumerated() {
                    if i > 0 { w.json.fragment(",") }
                    w.json.fragment("[")
                    w.json.number((p.x * 10).rounded() / 10)
                    w.json.fragment(",")
                    w.json.number((p.y * 10).rounded() / 10)
                    w.json.fragment("]")
                }
                w.json.fragment("]")
            }
        case .longPress, .custom:
            break
        }
        w.json.fragment("}")
    }

    private static func writePan(_ pan: PanGestureRecognizer, into json: inout JSONWriter) {
        let t = pan.translation(in: nil), v = pan.velocity(in: nil)
        json.fragment(#","translation":{"x":"#)
        json.number(t.x)
        json.fragment(#","y":"#)
        json.number(t.y)
        json.fragment(#"},"velocity":{"x":"#)
        json.number(v.x)
        json.fragment(#","y":"#)
        json.number(v.y)
        json.fragment("}")
    }
}
