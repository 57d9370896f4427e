import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A pass-through device's mirror and its grab (README "Pass-through"), and the only record of who reads
/// the panel:
///
///     reading ──start──▶ waitingForNoFinger ──no finger down──▶ grabbed(since: T)
///        ▲                      ▲                                    │
///        │                      └── a finger landed as it was taken ─┘
///        └──────────── stop (unplug, exit, reload), or a failed write to the mirror
///
/// - the mirror is made first; if it cannot be (no /dev/uinput, no permission) the device stays
///   `reading`, read ungrabbed as without pass-through: a failed pass-through never leaves the
///   compositor without a panel;
/// - the grab waits until no finger is on the panel (grabbing mid-touch would leave the compositor with
///   a touch that never lifts); a finger that lands as the grab is taken gives the panel back until it
///   lifts;
/// - `stop`: what is down on the mirror is cancelled, the mirror destroyed, the panel let go of, in
///   that order. (SIGKILL: the kernel drops the grab and the mirror with the daemon's descriptors.)
package final class PassthroughGrab {
    package enum State: Equatable {
        /// No mirror: the compositor reads the panel itself.
        case reading
        /// The mirror exists; the grab waits for the panel to have no finger on it. `told`: the wait
        /// was logged (once per wait).
        case waitingForNoFinger(told: Bool)
        /// The daemon has had the panel since `since` (CLOCK_MONOTONIC); the compositor reads the mirror.
        case grabbed(since: Double)
    }

    package private(set) var state = State.reading {
        didSet { assert((state == .reading) == (mirror == nil), "pass-through: a mirror exists exactly while the state is not reading") }
    }
    private var mirror: UinputDevice?
    private let device: EvdevDevice
    private let index: Int
    private let node: String
    private let pipeline: Pipeline
    private let log: Logger

    package init(device: EvdevDevice, index: Int, node: String, pipeline: Pipeline, log: Logger) {
        self.device = device
        self.index = index
        self.node = node
        self.pipeline = pipeline
        self.log = log
    }

    private var name: String { device.description.name }

    /// Since when the compositor has not read the panel (nil: it reads it): what the pipeline's
    /// pass-through asks before it mirrors a touch that begins.
    package var grabbedSince: Double? {
        if case .grabbed(let since) = state { return since }
        return nil
    }

    package var isOn: Bool { state != .reading }

    /// Makes the mirror, then takes the grab once no finger is on the panel.
    package func start() {
        guard state == .reading else { return }
        guard device.description.kind == .touchscreen else {
            log.warning("pass-through: \(node) \"\(name)\" is a \(device.description.kind.rawValue); only touchscreens pass through: reading it ungrabbed")
            return
        }
        guard pipeline.scene.allowsPassthrough else { return }
        let made: UinputDevice
        do {
            made = try DeviceSetup.uinputMirror(of: device.description, sourceNode: node)
        } catch {
            log.error("pass-through for \(node) \"\(name)\" is off: \(error); reading it ungrabbed, the compositor keeps the panel")
            return
        }
        if device.isGrabbed { device.ungrab() }          // grabbed for "grab": taken again below, when neutral
        mirror = made
        state = .waitingForNoFinger(told: false)
        pipeline.addMirror(device: index, name: name, source: device.description, sink: made) { [weak self] in self?.grabbedSince }
        log.info("pass-through: \(node) \"\(name)\" → mirror \(made.devnode ?? "(node unknown)") \"\(made.description.name)\"")
        grabIfNeutral()
    }

    /// Cancels what is down on the mirror, destroys it and gives the panel back to the compositor.
    package func stop(reason: String?) {
        guard let mirror else { return }
        pipeline.removeMirror(device: index, at: monotonicNow())
        mirror.destroy()
        self.mirror = nil
        release()
        if let reason { log.info("pass-through: \(node) \"\(name)\": \(reason); mirror removed, the compositor reads the panel again") }
    }

    /// Reads what the panel sent into the pipeline. A frame stamped before the grab with a finger in
    /// it: that finger landed between the look at a neutral panel and the grab, and the compositor has
    /// had its touch-down, so the panel goes back to it until the finger lifts.
    package func read() -> EvdevDevice.ReadResult {
        guard isOn else { return device.readFrames { pipeline.handle($0) } }
        var landedAtGrab = false
        let result = device.readFrames { f in
            if let since = grabbedSince, f.timestamp <= since, !f.contacts.isEmpty { landedAtGrab = true }
            pipeline.handle(f)
        }
        if landedAtGrab, grabbedSince != nil {
            ungrab()
            log.info("pass-through: a finger landed on \(node) as it was grabbed; the compositor keeps the panel until it lifts")
        }
        if result != .removed { grabIfNeutral() }
        return result
    }

    /// Writing to the mirror failed (the pipeline's pass-through said so, and logged why): it is
    /// dropped and the panel given back.
    package func mirrorFailed() {
        guard let mirror else { return }
        pipeline.removeMirror(device: index, at: nil)
        mirror.destroy()
        self.mirror = nil
        release()
    }

    /// Takes the grab when the panel is neutral (no finger down, ours or the compositor's).
    private func grabIfNeutral() {
        guard case .waitingForNoFinger(let told) = state else { return }
        guard device.assembler.isNeutral else {
            if !told {
                state = .waitingForNoFinger(told: true)
                log.info("pass-through: a finger is on \(node) \"\(name)\"; the grab waits until it lifts (the compositor keeps that touch)")
            }
            return
        }
        do {
            try device.grab()
        } catch {
            log.error("pass-through: cannot grab \(node): \(error); the compositor keeps the panel")
            return
        }
        state = .grabbed(since: monotonicNow())
        log.info("pass-through: grabbed \(node) \"\(name)\"; the compositor reads the mirror")
    }

    /// The compositor reads the panel again, the mirror staying: the grab is waited for anew.
    private func ungrab() {
        state = .waitingForNoFinger(told: false)
        device.ungrab()
    }

    /// The mirror is gone: the compositor reads the panel.
    private func release() {
        state = .reading
        device.ungrab()
    }
}
