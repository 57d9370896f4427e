import TouchCore
import TouchSystem

/// `{"event":"recognizer",…}`: one line for every state change of every recognizer (protocol 2, topic
/// `recognizers`), failures, waits for failure requirements and resets included. Its fields, in this
/// order (docs/protocol.md):
///
///     event "recognizer", time, recognizer, type, view, from, to, cause, then reason when one is known
///
/// States are those of gesture lines: `possible began changed ended cancelled failed`, with `recognized`
/// for a discrete recognizer's ended. Not on the per-frame path unless someone subscribed.
package enum RecognizerLine {
    package static func encode(_ t: RecognizerTransition) -> [UInt8] {
        let r = t.recognizer
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.key("event"); w.staticString("recognizer")
        w.key("time"); w.number(t.time)
        w.key("recognizer"); w.string(r.name ?? "")
        w.key("type"); w.staticString(RecognizerKind(r).name)
        w.key("view"); if let v = r.view?.name { w.string(v) } else { w.null() }
        w.key("from"); w.staticString(state(t.from, r))
        w.key("to"); w.staticString(state(t.to, r))
        w.key("cause"); w.string(t.cause)
        if let reason = t.reason { w.key("reason"); w.string(plainNames(reason)) }
        w.endObject()
        return w.bytes
    }

    /// A recognizer's state as it is now, for a client that just subscribed to `recognizers`: `from`
    /// and `to` are both the current state and `cause` is `"subscribed"`, so that a page opened in the
    /// middle of a gesture shows the recognizers that already failed or began as they are.
    package static func current(_ r: GestureRecognizer, time: Double) -> [UInt8] {
        encode(RecognizerTransition(recognizer: r, from: r.state, to: r.state, time: time, cause: "subscribed",
                                    reason: nil, waitsFor: nil))
    }

    package static func state(_ s: GestureRecognizer.State, _ r: GestureRecognizer) -> StaticString {
        switch s {
        case .possible: "possible"
        case .began: "began"
        case .changed: "changed"
        case .ended: r.isDiscrete ? "recognized" : "ended"
        case .cancelled: "cancelled"
        case .failed: "failed"
        }
    }

    /// The environment's reasons name recognizers as the log does ("TapGestureRecognizer(doubleTap)");
    /// the protocol names them as scenes do ("doubleTap").
    package static func plainNames(_ text: String) -> String {
        let marker = Array("GestureRecognizer(".utf8)
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i...].starts(with: marker), let close = bytes[(i + marker.count)...].firstIndex(of: UInt8(ascii: ")")) {
                // Drop the class name's start (letters before "GestureRecognizer") already copied.
                while let last = out.last, (last >= 0x41 && last <= 0x5a) || (last >= 0x61 && last <= 0x7a) { out.removeLast() }
                out.append(contentsOf: bytes[(i + marker.count)..<close])
                i = close + 1
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
