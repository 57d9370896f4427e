import TouchScene

/// The panel's backlight over idle time (docs/display.md, uikit-semantics DS1–DS4): one state, its
/// timers on the pipeline's clock, and the brightness a touch gives back.
///
///     on ──dimAfter s with no finger down──▶ dimmed ──offAfter s──▶ off
///     dimmed, off ──a finger lands (touch), `set display on`, `set brightness` (command)──▶ on
///     on, dimmed ──`set display off` (command)──▶ off
///
/// Both times count from the last finger's lift on any panel (DS1); nothing dims while a finger is
/// down. Without a scene's `"display"` only the commands move it: the idle manager then owns the
/// panel's power, and a touch on a display it turned off is its to wake (the wake line).
///
/// It decides; the pipeline writes the backlight and tells the line (Pipeline+Display).
package struct DisplayPower {
    package enum State: String, Sendable {
        case on, dimmed, off
    }

    package enum Cause: String, Sendable {
        case idle, touch, command
    }

    /// A change to make: the state, the brightness to set (a fraction of the maximum; nil: none to
    /// set — the display came on with no brightness known to give back), why, and when.
    package struct Change: Equatable {
        package var state: State
        package var brightness: Double?
        package var cause: Cause
        package var time: Double
    }

    package private(set) var state = State.on
    /// The scene's `"display"`; nil: no timers, and a touch wakes nothing (the idle manager's to do).
    package var config: DisplayConfig? {
        didSet {
            if config == nil && state != .off { state = .on }
            if oldValue == nil && config != nil { touching = [] }      // frames were not watched until now
        }
    }
    /// Frames matter only with a config (the idle time, a touch that wakes): without one the pipeline
    /// does not even show them (a frame's cost stays the plain pipeline's).
    package var watchesFrames: Bool { config != nil }
    /// The brightness the display had when it dimmed or went off, which a touch gives back (DS3).
    package private(set) var restore: Double?
    /// When the last finger lifted (nil: the clock has not started: no timer yet).
    package private(set) var idleSince: Double?
    /// The devices with a finger down.
    private var touching: Set<Int> = []

    /// The clock starts: the daemon's start, or a replay's first frame, counts as the last lift.
    package mutating func start(at time: Double) {
        if idleSince == nil { idleSince = time }
    }

    /// When the next timer is due: dimming, or going off (nil: none — no config, a finger down, off).
    package var nextDeadline: Double? {
        guard let c = config, let since = idleSince, touching.isEmpty else { return nil }
        switch state {
        case .on: return c.dimAfter.map { since + $0 } ?? c.offAfter.map { since + $0 }
        case .dimmed: return c.offAfter.map { since + $0 }
        case .off: return nil
        }
    }

    /// The timer due by `time`, if any (DS2): dimming to `dimTo` — never brighter than it is — or off.
    /// `brightnessNow`: the backlight's brightness, remembered to give back.
    package mutating func advance(to time: Double, brightnessNow: Double?) -> Change? {
        guard let due = nextDeadline, due <= time, let c = config, let since = idleSince else { return nil }
        if state == .on, let dim = c.dimAfter, due == since + dim {
            restore = brightnessNow
            state = .dimmed
            return Change(state: .dimmed, brightness: min(c.dimTo, brightnessNow ?? c.dimTo), cause: .idle, time: due)
        }
        if state == .on { restore = brightnessNow }
        state = .off
        return Change(state: .off, brightness: 0, cause: .idle, time: due)
    }

    /// A frame of `device`: whether a finger is down on it now. A finger landing on a dimmed or off
    /// display brings it back at the brightness it had (DS3); the last lift restarts the timers.
    package mutating func frame(device: Int, touching down: Bool, at time: Double) -> Change? {
        if !down {
            if touching.remove(device) != nil && touching.isEmpty { idleSince = time }
            return nil
        }
        guard touching.insert(device).inserted else { return nil }
        guard config != nil, state != .on else { return nil }
        return wake(.touch, at: time)
    }

    /// A device went away: its fingers with it.
    package mutating func forget(device: Int, at time: Double) {
        if touching.remove(device) != nil && touching.isEmpty { idleSince = time }
    }

    /// `set display on|off` (DS4). On also restarts the timers: the idle manager says the user is back.
    package mutating func command(on: Bool, at time: Double, brightnessNow: Double?) -> Change? {
        if on {
            idleSince = time
            return state == .on ? nil : wake(.command, at: time)
        }
        guard state != .off else { return nil }
        if state == .on && config != nil { restore = brightnessNow }
        state = .off
        return Change(state: .off, brightness: config == nil ? nil : 0, cause: .command, time: time)
    }

    /// `set brightness F` (DS4): on at that brightness, which is what a touch gives back from now on.
    package mutating func command(brightness: Double, at time: Double) -> Change {
        idleSince = time
        state = .on
        restore = nil
        return Change(state: .on, brightness: brightness, cause: .command, time: time)
    }

    private mutating func wake(_ cause: Cause, at time: Double) -> Change {
        state = .on
        defer { restore = nil }
        return Change(state: .on, brightness: restore, cause: cause, time: time)
    }
}
