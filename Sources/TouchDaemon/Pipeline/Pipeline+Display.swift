import TouchCore
import TouchProtocol
import TouchScene
import TouchSystem

/// The backlights the pipeline sets (sliders, dimming): the kernel's in the daemon, a virtual one in a
/// replay, which must not touch the machine it runs on.
package protocol BacklightControl: AnyObject {
    /// `name`'s brightness now, a fraction of its maximum (nil: the panel's); nil when there is none
    /// or it cannot be read.
    func brightness(_ name: String?) -> Double?
    /// Sets it (`off`: to 0; otherwise at least the floor); the fraction set, nil when it failed.
    @discardableResult func set(_ name: String?, _ fraction: Double, off: Bool) -> Double?
}

/// /sys/class/backlight, under `sysfs` (`--sysfs-root` in tests). Each backlight is looked up once; a
/// failure is logged once per backlight and message, the rest of the daemon going on.
package final class SysfsBacklights: BacklightControl {
    let sysfs: String
    let log: Logger
    private var found: [String: Backlight] = [:]
    private var told: Set<String> = []

    package init(sysfs: String, log: Logger) {
        self.sysfs = sysfs
        self.log = log
    }

    private func backlight(_ name: String?) -> Backlight? {
        let key = name ?? ""
        if let b = found[key] { return b }
        do throws(BacklightError) {
            let b = try Backlight.find(name, sysfs: sysfs)
            found[key] = b
            log.info("display: backlight \(b.name) (\(b.type), 0…\(b.maximum); a slide or a dim sets at least \(b.floor))")
            return b
        } catch {
            warnOnce(error.message)
            return nil
        }
    }

    private func warnOnce(_ message: String) {
        if told.insert(message).inserted { log.warning("display: \(message)") }
    }

    package func brightness(_ name: String?) -> Double? {
        guard let b = backlight(name) else { return nil }
        do throws(BacklightError) { return try b.fraction() } catch { warnOnce(error.message); return nil }
    }

    package func set(_ name: String?, _ fraction: Double, off: Bool) -> Double? {
        guard let b = backlight(name) else { return nil }
        let raw = b.raw(fraction, off: off)
        do throws(BacklightError) { try b.setBrightness(raw) } catch {
            warnOnce(error.message)
            return nil
        }
        return Double(raw) / Double(b.maximum)
    }
}

/// A backlight that is only numbers: full at first, a hundred steps, the kernel one's floor of one step.
package final class VirtualBacklight: BacklightControl {
    package private(set) var value = 1.0

    package init() {}

    package func brightness(_ name: String?) -> Double? { value }

    package func set(_ name: String?, _ fraction: Double, off: Bool) -> Double? {
        value = off ? 0 : min(1, max(0.01, (fraction * 100).rounded() / 100))
        return value
    }
}

/// The display's backlight (docs/display.md): the scene's dimming, the commands, and the sliders'
/// backlight, through one owner of the state (DisplayPower) and one of the backlights (`backlights`).
extension Pipeline {
    /// The scene's backlight: its `"display"` names one, else the panel's.
    var sceneBacklight: String? { scene.display?.backlight }

    /// A slider's target as a backlight name.
    func backlightName(_ target: ValueOptions.Target) -> String? {
        switch target {
        case .backlight(let name): name ?? sceneBacklight
        }
    }

    /// The clock of the dimming starts (the daemon's start; a replay's first frame): it counts as the
    /// last finger's lift.
    public func startDisplayClock(at time: Double) {
        displayPower.start(at: time)
    }

    /// A frame's fingers, before the display gate: a finger landing brings a dimmed or dark display
    /// back, the last lift starts the timers.
    func notePower(_ frame: DigitizerFrame) {
        displayPower.start(at: frame.timestamp)
        let touching = frame.contacts.contains { !$0.isCancelled }
        let before = displayPower.state
        apply(displayPower.frame(device: frame.device, touching: touching, at: frame.timestamp), from: before)
    }

    /// The idle manager, a script or Home Assistant turned the display off or on (`set display`).
    public func setDisplay(on: Bool, at time: Double) {
        let before = displayPower.state
        apply(displayPower.command(on: on, at: time, brightnessNow: backlights?.brightness(sceneBacklight)), from: before)
    }

    /// `set brightness F`: the panel's backlight at F, the display on. Refused when there is no
    /// backlight to set.
    public func setBrightness(_ fraction: Double, at time: Double) throws(ClientCommand.Refusal) {
        guard let backlights, backlights.brightness(sceneBacklight) != nil else {
            throw ClientCommand.Refusal(message: "set.brightness: no backlight to set: \(sceneBacklight.map { "/sys/class/backlight/\($0)" } ?? "/sys/class/backlight") has none this daemon can read (its log says why)")
        }
        let before = displayPower.state
        apply(displayPower.command(brightness: fraction, at: time), from: before)
    }

    /// A new `devices` subscriber's display line, `cause` "subscribed": the state and brightness now,
    /// where the scene has a `"display"` (the pipeline then owns the backlight) or a command set it.
    public func displayStateLines(time: Double) -> [[UInt8]] {
        guard scene.display != nil || displayPower.state != .on else { return [] }
        let brightness = displayPower.state == .off && scene.display != nil ? 0 : backlights?.brightness(sceneBacklight)
        return [DisplayLine.encode(time: time, state: displayPower.state.rawValue, brightness: brightness, cause: "subscribed")]
    }

    /// Timers due by `time` (the pipeline's `advance`).
    func advanceDisplay(to time: Double) {
        while let d = displayPower.nextDeadline, d <= time {
            let before = displayPower.state
            guard let change = displayPower.advance(to: d, brightnessNow: backlights?.brightness(sceneBacklight)) else { break }
            apply(change, from: before)
        }
    }

    /// Makes a change: the backlight set, the display gate told (off swallows the waking touch; on
    /// swallows what lands in the hold-off), and the line.
    func apply(_ change: DisplayPower.Change?, from before: DisplayPower.State) {
        guard let change else { return }
        var brightness = change.brightness
        if let b = change.brightness, let backlights {
            brightness = backlights.set(sceneBacklight, b, off: change.state == .off) ?? b
        }
        // Dimmed or dark, a touch only wakes it (DS3): the gate swallows the sequence. Lit again from
        // dim there is no hold-off: the picture never went.
        switch change.state {
        case .off, .dimmed: displayGate.set(on: false, at: change.time)
        case .on where before == .dimmed: displayGate.setOnWithoutHoldoff()
        case .on: displayGate.set(on: true, at: change.time)
        }
        if let onLines {
            DisplayLine.encode(time: change.time, state: change.state.rawValue, brightness: brightness, cause: change.cause.rawValue)
                .withUnsafeBufferPointer { onLines(.devices, $0) }
        }
    }
}
