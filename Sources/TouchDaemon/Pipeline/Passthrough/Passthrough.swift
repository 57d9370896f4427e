import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// Pass-through: UIKit's view gating at the system level (README "Pass-through"). Each pass-through
/// device has a mirror, a virtual copy of the panel that the compositor reads instead of it, and the
/// rule is one sentence: **the mirror hears what the views hear** — a touch reaches it when, where and
/// as its hit-test view hears it (uikit-semantics C1–C4, T9, T10):
///
///     touchesBegan      → a free mirror slot, a new tracking id, the touch's first position
///     touchesMoved      → the values that changed
///     touchesEnded      → tracking id −1
///     touchesCancelled  → MT_TOOL_PALM, then tracking id −1 (libinput: TOUCH_CANCEL)
///
/// A touch whose began a recognizer withholds (C2) appears when the gate opens, at its first location,
/// and catches up in the same write; a withheld end (C3) is written when it is released. Touches on a
/// view marked `"passthrough": false` (or inside one) never reach the mirror, nor do touches that began
/// while the compositor still read the source itself (before the grab): those are the compositor's.
///
/// Positions are the digitizer's own values (`Touch.record`), unmodified: the compositor's calibration
/// and output mapping apply to the mirror as they did to the panel. Everything a source frame or a
/// timer makes is written at once (`flush`): one write per frame, in the wakeup that read it.
public final class Passthrough: PassthroughListener {
    /// One pass-through device and its mirror.
    package final class Source {
        let device: Int
        let name: String
        var mirror: TouchMirror
        let sink: MirrorSink
        /// Since when the compositor no longer reads the source (the grab's time, on the clock of the
        /// source's timestamps); nil while it does. Touches that began before are not mirrored. Asked of
        /// the grab's owner (PassthroughGrab), which keeps the only record of it.
        let grabbedSince: () -> Double?
        var warnedFull = false
        var failed = false

        init(device: Int, name: String, source: DeviceDescription, sink: MirrorSink, grabbedSince: @escaping () -> Double?) {
            self.device = device
            self.name = name
            mirror = TouchMirror(source: source)
            self.sink = sink
            self.grabbedSince = grabbedSince
        }
    }

    private var sources: [Source] = []
    private let log: Logger
    /// Called when writing to a device's mirror failed: the mirror is gone, and the device must be
    /// given back to the compositor (ungrabbed).
    public var onFailure: ((Int) -> Void)?

    public init(log: Logger) {
        self.log = log
    }

    /// Whether any device passes through.
    public var isEmpty: Bool { sources.isEmpty }

    /// Device `device` (`DigitizerFrame.device`) passes through to `sink`, a mirror of `source`;
    /// `grabbedSince` tells since when the compositor no longer reads the source.
    public func add(device: Int, name: String, source: DeviceDescription, sink: MirrorSink,
                    grabbedSince: @escaping () -> Double?) {
        remove(device: device, at: nil)
        sources.append(Source(device: device, name: name, source: source, sink: sink, grabbedSince: grabbedSince))
    }

    /// The device stops passing through: whatever is still down on its mirror is cancelled (written at
    /// `time`, when given), and the mirror is let go of.
    public func remove(device: Int, at time: Double?) {
        guard let i = sources.firstIndex(where: { $0.device == device }) else { return }
        let s = sources[i]
        if let time {
            s.mirror.time(time)
            s.mirror.cancelAll()
            write(s)
        }
        sources.remove(at: i)
    }

    /// Whether the device's mirror has no touch down.
    public func isNeutral(device: Int) -> Bool { source(device)?.mirror.isNeutral ?? true }

    /// The mirror description of a pass-through device.
    public func mirrorDescription(device: Int) -> DeviceDescription? { source(device)?.mirror.description }

    // MARK: What the views hear

    /// A phase of `touches`, as their views heard it (PassthroughWindow).
    package func viewsHeard(_ touches: Set<Touch>, _ phase: Touch.Phase, event: Event?, in window: PassthroughWindow) {
        // The mirror writes a frame's changes slot by slot, whatever the order they came in; only
        // touches that begin together are taken in the order they began, so that they take free slots
        // in that order (a set's order changes from process to process).
        if phase == .began && touches.count > 1 {
            for t in touches.sorted(by: { $0.identifier < $1.identifier }) { heard(t, phase, in: window) }
        } else {
            for t in touches { heard(t, phase, in: window) }
        }
    }

    /// A touch that hit no view at all (outside the window): the mirror gets it as it comes.
    package func heardWithoutView(_ t: Touch) {
        heard(t, t.phase, in: nil)
    }

    private func heard(_ t: Touch, _ phase: Touch.Phase, in window: PassthroughWindow?) {
        guard let s = source(t.device), !s.failed else { return }
        switch phase {
        case .began:
            // Began before the grab: the compositor has had it from the source itself.
            guard let since = s.grabbedSince(), t.timestamp > since else { return }
            guard !(window?.isReserved(t.view) ?? false) else { return }
            if !s.mirror.begin(contact: t.contactID, values: t.record) && !s.warnedFull {
                s.warnedFull = true
                log.warning("pass-through: all \(s.mirror.slotCount) slots of the mirror of \"\(s.name)\" are taken; a touch beyond them stays on the panel only (logged once)")
            }
        case .moved:
            s.mirror.move(contact: t.contactID, values: t.record)
        case .ended:
            // The view hears the lift where the finger is now, which a late delivery may not have shown.
            s.mirror.move(contact: t.contactID, values: t.record)
            s.mirror.end(contact: t.contactID)
        case .cancelled:
            s.mirror.cancel(contact: t.contactID)
        case .stationary:
            break
        }
    }

    // MARK: Writing

    /// Stamps what follows with `time` (a recording of the mirror shows it; the kernel stamps a live
    /// mirror's events itself).
    public func time(_ time: Double) {
        for s in sources { s.mirror.time(time) }
    }

    /// Writes what the last frame or timer made, one write per mirror.
    public func flush() {
        for s in sources where s.mirror.hasEvents { write(s) }
    }

    private func write(_ s: Source) {
        var failure: Error?
        s.mirror.flush { events in
            do { try s.sink.write(events) } catch { failure = error }
        }
        guard let failure, !s.failed else { return }
        s.failed = true
        log.error("pass-through: \(failure); giving \"\(s.name)\" back to the compositor")
        onFailure?(s.device)
    }

    private func source(_ device: Int) -> Source? {
        for s in sources where s.device == device { return s }
        return nil
    }
}
