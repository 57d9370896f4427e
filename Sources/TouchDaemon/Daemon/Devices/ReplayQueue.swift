import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridged --replay`: recordings played as live devices, one after another, each a device of its
/// own, the first after a delay; with `--replay-together`, all at once on their own times, as devices of
/// one screen (a pen and a finger panel: the pen's palm rejection applies); with `--replay-loop`, again
/// and again. Each recording keeps its device
/// index on every pass: it is one device that comes and goes, so clients (and `set --device N`) can
/// follow it. The end of a recording is its device going away: once the pending timers have run,
/// touches still down are cancelled.
package final class ReplayQueue {
    private unowned let devices: InputDevices
    private var queue: [(path: String, recording: Recording, index: Int)] = []
    private var loops = false
    /// Every recording of the queue plays at once (`--replay-together`).
    private var together = false
    /// The recordings of the current pass still playing, when they play together.
    private var stillPlaying = 0
    /// A recording of the loop's current pass played (a loop of recordings none of which can play ends).
    private var passPlayed = false
    /// The recordings playing now (one at a time, but a finishing one may overlap the next's start).
    package private(set) var playing: [ReplaySource] = []
    /// The loop's pass (1: the first). What each pass says again (a recording starts, ends) is logged
    /// on the first only, at debug after it: a demo looping all day does not fill the journal.
    private var pass = 1
    /// Conditions already logged (a pass-through that cannot be), each said once, not once a pass.
    private var said: Set<String> = []

    package init(devices: InputDevices) {
        self.devices = devices
    }

    /// Queues `recordings` (each given its device index now) and starts the first after `delay` s.
    package func start(_ recordings: [(path: String, recording: Recording)], delay: Double, loop: Bool, together: Bool = false) throws {
        for (path, r) in recordings where r.device.positionAxes == nil {
            throw RecordingError(file: path, line: 1, reason: "the recording's device has no position axes")
        }
        // The scene must select each recording as it would the device (`touchbridgectl replay` alike).
        for (_, r) in recordings { _ = try devices.pipeline.scene.replayConfig(for: r) }
        queue = recordings.map { (path: $0.path, recording: $0.recording, index: devices.takeIndex()) }
        loops = loop
        self.together = together
        if together { playAll(delay: delay) } else { play(0, delay: delay) }
    }

    /// Every recording at once, on one time line; pens paired with the finger devices among them.
    private func playAll(delay: Double) {
        let origin = queue.compactMap { $0.recording.events.first?.time }.min()
        stillPlaying = queue.count
        for position in queue.indices { play(position, delay: delay, origin: origin) }
        let pipeline = devices.pipeline
        for pen in queue where pen.recording.device.kind == .tablet {
            for finger in queue where finger.recording.device.kind != .tablet {
                pipeline.pairPen(pen.index, withFingers: finger.index)
            }
        }
    }

    /// Ends every replay now, as if its device went away (the daemon stops).
    package func stop() {
        loops = false
        queue = []
        for r in playing { r.finish() }
        playing = []
    }

    private func play(_ position: Int, delay: Double, origin: Double? = nil) {
        let (path, recording, index) = queue[position]
        let pipeline = devices.pipeline, log = devices.log
        let config: DeviceConfig
        do {
            config = try pipeline.scene.replayConfig(for: recording)     // a reloaded scene may no longer take it
        } catch {
            log.error("cannot replay: \(error)")
            return finished(position)
        }
        devices.adoptDefaultScene(for: recording.device, index: index)
        let live = devices.liveConfig(config, index: index, name: recording.device.name, node: "replay:" + path)
        // `start` refused recordings without position axes.
        let mapping = DeviceSetup.mapping(recording.device, live, window: pipeline.scene.window.bounds, udevCalibration: nil)!
        let source: ReplaySource
        do {
            source = try ReplaySource(recording: recording, path: path, mapping: mapping, deviceIndex: index,
                                      config: config, delay: delay, loop: devices.loop, log: log)
        } catch {
            log.error("cannot replay \(path): \(error)")
            return finished(position)
        }
        source.origin = origin
        var mirror: UinputDevice?
        source.onFrame = { [unowned self, unowned source] in
            pipeline.handle($0)
            if source.mappingPending { self.devices.applyPendingMapping(source) }
            self.devices.onActivity?()
        }
        source.onStart = { [unowned self, unowned source] in
            log.log(self.pass == 1 ? .info : .debug,
                    "replaying \(path) as device \(index) \"\(recording.device.name)\" (\(counted(recording.events.count, "event")))"
                    + (self.pass == 1 ? "" : ", pass \(self.pass)"))
            self.devices.onDeviceLine?(self.devices.deviceLine("added", source))
            pipeline.setDeviceConfig(live, device: index)
            // A replay that passes through gets a mirror too (nothing to grab: nobody else reads a
            // recording): a demo of what the compositor would get.
            if config.passthrough && pipeline.scene.allowsPassthrough && recording.device.kind != .tablet {   // pens never
                do {
                    let m = try DeviceSetup.uinputMirror(of: recording.device, sourceNode: "replay")
                    mirror = m
                    pipeline.addMirror(device: index, name: recording.device.name, source: recording.device, sink: m)
                    log.info("pass-through: replay \(path) → mirror \(m.devnode ?? "(node unknown)")")
                } catch {
                    let message = "pass-through for the replay of \(path) is off: \(error)"
                    log.log(self.said.insert(message).inserted ? .error : .debug, message)
                }
            }
        }
        source.endsWhen = { pipeline.nextDeadline == nil }
        source.onEnd = { [unowned self, unowned source] cancel in
            cancel.map { pipeline.handle(DigitizerFrame(device: $0.device, timestamp: pipeline.currentTime, contacts: $0.contacts)) }
            if let m = mirror {
                pipeline.removeMirror(device: index, at: pipeline.currentTime)
                m.destroy()
            }
            pipeline.setDeviceConfig(nil, device: index)
            log.log(self.pass == 1 && !self.loops ? .info : .debug, "replay of \(path) finished")
            self.devices.onDeviceLine?(self.devices.deviceLine("removed", source))
            self.playing.removeAll { $0 === source }
            self.finished(position, played: true)
            self.devices.onActivity?()
        }
        playing.append(source)
        devices.turnDefaultScene(for: source)
        source.start()
    }

    /// The next recording of the queue, after the one at `position` ended (`played`) or could not
    /// start. A loop goes round again only if a recording of the last pass played.
    private func finished(_ position: Int, played: Bool = false) {
        if played { passPlayed = true }
        if together {
            stillPlaying -= 1
            guard stillPlaying == 0 else { return }
            guard loops else { return }
            guard passPlayed else {
                devices.log.warning("--replay-loop: no recording of the queue could play; the loop ends")
                return
            }
            passPlayed = false
            pass += 1
            return playAll(delay: 0.2)
        }
        let next = position + 1
        if next < queue.count { return play(next, delay: 0.2) }
        guard loops else { return }
        guard passPlayed else {
            devices.log.warning("--replay-loop: no recording of the queue could play; the loop ends")
            return
        }
        passPlayed = false
        if pass == 1 { devices.log.info("--replay-loop: playing the queue again and again (each pass logged at debug, --verbose)") }
        pass += 1
        play(0, delay: 0.2)
    }
}
