import TouchCore
import TouchSystem

/// `{"event":"touch",…}`: a line for every touch that changed in an event (not the stationary ones),
/// for clients subscribed to touches. Its fields, in this order (docs/protocol.md):
///
///     event "touch", time, device, id, phase, x, y, view, tapCount, majorRadius, force, type,
///     [eraser], [altitude, azimuth]
///
/// `type` is UITouch.TouchType's name ("direct", "pencil"); a pencil's eraser end adds `"eraser":true`;
/// a device with tilt adds the altitude and the azimuth (radians, window coordinates, T11).
///
/// The touch lines of one event go out together, one chunk of lines. What stays the same while a touch
/// is down (its device, id, view and tapCount, T4, T7) is written once and kept as bytes.
package struct TouchLines {
    package init() {}

    /// The fixed parts of a touch's lines: `,"device":D,"id":N` and `,"view":V,"tapCount":T,"majorRadius":`,
    /// one after the other in one piece (one allocation a touch).
    private struct Parts {
        var identifier: Int
        /// The `nameVersion` of the view the bytes were made with (nil: no view).
        var viewNameVersion: Int?
        var pieces: LinePiece
        /// Where `viewAndTaps` starts in `pieces`.
        var split: Int

        var identity: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: pieces.bytes[..<split]) }
        var viewAndTaps: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: pieces.bytes[split...]) }

        func free() { pieces.free() }
    }
    private var parts: [Parts] = []
    private var partsWriter = JSONWriter(capacity: 128)

    /// Frees the kept parts: call once, when the owner goes away.
    package func free() { for p in parts { p.free() } }

    /// Writes the lines of `e`'s changed touches, separated by newlines, after what `w` holds; false
    /// when none changed.
    package mutating func write(_ e: Event, into w: inout LineWriter) -> Bool {
        var first = true
        // A touch that changed in this event has the event's time as its timestamp (T6).
        let time = e.timestamp
        for t in e.orderedTouches {
            let phase = t.phase
            guard phase != .stationary else { continue }
            if !first { w.json.newline() }
            first = false
            let index = partsIndex(for: t)
            w.json.fragment(#"{"event":"touch","time":"#)
            w.time(time)
            w.json.raw(parts[index].identity)
            switch phase {
            case .began: w.json.fragment(#","phase":"began","x":"#)
            case .moved: w.json.fragment(#","phase":"moved","x":"#)
            case .stationary: w.json.fragment(#","phase":"stationary","x":"#)
            case .ended: w.json.fragment(#","phase":"ended","x":"#)
            case .cancelled: w.json.fragment(#","phase":"cancelled","x":"#)
            }
            let p = t.location(in: nil)
            w.json.number(p.x)
            w.json.fragment(#","y":"#)
            w.json.number(p.y)
            w.json.raw(parts[index].viewAndTaps)
            w.json.number(t.majorRadius)
            w.json.fragment(#","force":"#)
            w.json.number(t.force)
            switch t.type {
            case .direct: w.json.fragment(#","type":"direct""#)
            case .pencil: w.json.fragment(t.isEraser ? #","type":"pencil","eraser":true"# : #","type":"pencil""#)
            case .indirect: w.json.fragment(#","type":"indirect""#)
            case .indirectPointer: w.json.fragment(#","type":"indirectPointer""#)
            }
            if t.pose.hasTilt {
                w.json.fragment(#","altitude":"#)
                w.json.number(t.altitudeAngle)
                w.json.fragment(#","azimuth":"#)
                w.json.number(t.azimuthAngle(in: nil))
            }
            w.json.fragment("}")
            if phase == .ended || phase == .cancelled { parts.remove(at: index).free() }
        }
        return !first
    }

    /// The position of `t`'s parts in `parts`, made (or remade, if its view was renamed) as needed.
    @inline(__always)
    private mutating func partsIndex(for t: Touch) -> Int {
        let viewNameVersion = t.view?.nameVersion
        let id = t.identifier
        var i = 0
        while i < parts.count {
            if parts[i].identifier == id {
                if parts[i].viewNameVersion == viewNameVersion { return i }
                break
            }
            i += 1
        }
        return makeParts(for: t, replacing: i < parts.count ? i : nil)
    }

    @inline(never)
    private mutating func makeParts(for t: Touch, replacing old: Int?) -> Int {
        if let old { parts.remove(at: old).free() }
        if parts.count >= 64 {                                      // touches whose end went unreported
            for p in parts.prefix(32) { p.free() }
            parts.removeFirst(32)
        }
        // Written with a writer kept for it, both parts one after the other: a new touch then allocates
        // one piece and nothing else here (with fingers landing on most frames, a writer, two arrays and
        // two pieces a touch were most of the daemon's allocations).
        partsWriter.reset()
        partsWriter.fragment(#","device":"#)
        partsWriter.int(t.device)
        partsWriter.fragment(#","id":"#)
        partsWriter.int(t.identifier)
        let split = partsWriter.count
        partsWriter.fragment(#","view":"#)
        if let viewName = t.view?.name { partsWriter.string(viewName) } else { partsWriter.null() }
        partsWriter.fragment(#","tapCount":"#)
        partsWriter.int(t.tapCount)
        partsWriter.fragment(#","majorRadius":"#)
        let pieces = partsWriter.withBytes { LinePiece($0) }
        parts.append(Parts(identifier: t.identifier, viewNameVersion: t.view?.nameVersion, pieces: pieces, split: split))
        return parts.count - 1
    }
}
