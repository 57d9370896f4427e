import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// The display's power, as the idle manager says it (`set display off|on`), and the touches that only
/// wake it (docs/screen-aware.md): while the display is off, a touch sequence of a device — its first
/// finger landing until its last lifts — reaches no view, no recognizer and no mirror; it is told once,
/// as a `wake` line. After `display on`, a hold-off swallows the sequences that begin before it ends: a
/// touch made before the picture shows is a second try at waking, not a press.
///
///     on ──set display off──▶ off ──set display on──▶ wakingUp(until: now + holdoff) ──time──▶ on
///
/// A device entry's `"dpms"` (a DRM connector's sysfs attribute) is read when a sequence begins, never
/// polled: "Off" there counts as the display being off.
package struct DisplayGate {
    package enum Display: Equatable {
        case on
        case off
        /// Turned on; sequences that begin before `until` (seconds, the frames' clock) are swallowed.
        case wakingUp(until: Double)
    }

    package private(set) var display = Display.on
    /// Seconds after `display on` in which a new sequence is still swallowed.
    package var holdoff = DisplayGate.defaultHoldoff
    /// The devices whose current sequence is swallowed.
    package private(set) var swallowing: Set<Int> = []

    /// 1 s: a panel woken from DPMS off takes a few hundred milliseconds to show a picture (TouchKio #61
    /// saw the touch 893 ms before it noticed the screen was on), and a second touch made before the
    /// user sees anything is another try at waking it, not a press.
    package static let defaultHoldoff = 1.0

    /// What to do with a frame.
    package enum Verdict: Equatable {
        case pass
        case swallow
        /// Swallow, and say that this sequence woke the display (the first finger's place).
        case wake(Point)
    }

    /// Whether frames need asking at all (the pipeline's fast path skips the gate otherwise).
    package var isActive: Bool { display != .on || !swallowing.isEmpty || readsDPMS }
    /// Some device has a `dpms` attribute to read.
    package var readsDPMS = false

    /// `set display on` when it is already on (an idle manager's resume command, which runs when the
    /// user's first passed touch is seen) changes nothing: no new hold-off swallows their next touches.
    package mutating func set(on: Bool, at time: Double) {
        switch (on, display) {
        case (true, .off): display = .wakingUp(until: time + holdoff)
        case (true, _): break
        case (false, _): display = .off
        }
    }

    /// The display is lit again by the daemon itself after dimming (DS3): the picture never went, so
    /// no hold-off; the sequence that woke it stays swallowed until it lifts.
    package mutating func setOnWithoutHoldoff() {
        display = .on
    }

    /// The verdict on `frame`. `underWay`: the device already has touches down that were let through
    /// (a sequence that began before the display went off goes on as it began). `dpmsOff`: the device's
    /// dpms attribute says Off (asked only when a sequence begins).
    package mutating func admit(_ frame: DigitizerFrame, underWay: Bool, dpmsOff: () -> Bool) -> Verdict {
        if swallowing.contains(frame.device) {
            if frame.contacts.isEmpty { swallowing.remove(frame.device) }       // the last finger lifted
            return .swallow
        }
        if case .wakingUp(let until) = display, frame.timestamp >= until { display = .on }
        guard !underWay, let first = frame.contacts.first else { return .pass }
        switch display {
        case .on:
            guard dpmsOff() else { return .pass }
        case .off:
            break
        case .wakingUp:
            swallowing.insert(frame.device)
            return .swallow
        }
        swallowing.insert(frame.device)
        return .wake(first.location)
    }

    /// A device went away: its swallowed sequence with it.
    package mutating func forget(device: Int) { swallowing.remove(device) }

    /// Reads a DRM connector's `dpms` attribute ("On", "Off"): true when it says Off. A file that
    /// cannot be read says nothing (the display counts as on).
    package static func dpmsSaysOff(_ path: String) -> Bool {
        (try? Files.readText(path))?.hasPrefix("Off") ?? false
    }
}
