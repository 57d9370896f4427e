import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A recording played as a live device: its events keep their spacing and are stamped on
/// CLOCK_MONOTONIC, as the kernel would stamp them.
package final class ReplaySource: MappedSource {
    package let recording: Recording
    /// The replay's path, as the command line gave it.
    package let path: String
    package let node: String
    private var player: RecordingPlayer
    private let timer: Timer
    private let loop: EventLoop
    private let delay: Double
    /// The recording time that plays `delay` s after `start()`: its first event's, or with recordings
    /// played together (`--replay-together`), the earliest first event of them all, so that they keep
    /// their times relative to each other.
    package var origin: Double?
    private var offset = 0.0
    private var next = 0
    package private(set) var isPlaying = false
    /// The device index its frames carry.
    package let index: Int
    /// The scene's entry for it (live changes apart).
    package let config: DeviceConfig
    /// A `set device` waits for the recording's fingers to lift.
    package var mappingPending = false
    package var onFrame: ((DigitizerFrame) -> Void)?
    package var onStart: (() -> Void)?
    /// Asked after the last event, and again after each pending timer: whether the replay may end now
    /// (the pipeline has no timer left to run).
    package var endsWhen: (() -> Bool)?
    /// The replay ended; with the frame that cancels what is still down (nil when nothing is).
    package var onEnd: ((DigitizerFrame?) -> Void)?

    package init(recording: Recording, path: String, mapping: CoordinateMapping, deviceIndex: Int, config: DeviceConfig,
         delay: Double, loop: EventLoop, log: Logger) throws {
        self.recording = recording
        self.path = path
        node = "replay:" + path
        index = deviceIndex
        self.config = config
        self.delay = delay
        self.loop = loop
        player = RecordingPlayer(device: recording.device, mapping: mapping, deviceIndex: deviceIndex) { log.warning("replay:\(path): \($0)") }
        timer = try Timer()
    }

    package func start() {
        offset = monotonicNow() + delay - (origin ?? recording.events.first?.time ?? 0)
        try? loop.add(timer.fd) { [unowned self] _ in self.fire() }
        timer.arm(at: (recording.events.first?.time ?? 0) + offset)
    }

    /// How the recording maps onto the window; changed only between touch sequences (`isNeutral`).
    package var mapping: CoordinateMapping {
        get { player.assembler.mapping }
        set { player.mapping = newValue }
    }

    /// No finger of the recording is down.
    package var isNeutral: Bool { player.assembler.isNeutral }
    package var name: String { recording.device.name }
    package var description: DeviceDescription { recording.device }
    /// A recording has no udev properties.
    package var udevCalibration: [Double]? { nil }

    package func stop() {
        loop.remove(timer.fd)
        timer.arm(at: nil)
    }

    /// Ends the replay now, as if the device went away (the daemon stops).
    package func finish() {
        guard isPlaying else { return stop() }
        isPlaying = false
        stop()
        let cancel = player.cancelAll(at: monotonicNow())
        onEnd?(cancel.contacts.isEmpty ? nil : cancel)
    }

    private func fire() {
        timer.acknowledge()
        if !isPlaying {
            isPlaying = true
            onStart?()
        }
        let now = monotonicNow()
        while next < recording.events.count {
            var e = recording.events[next]
            e.time += offset
            guard e.time <= now else { break }
            next += 1
            if let f = player.play(e) { onFrame?(f) }
        }
        if next < recording.events.count {
            timer.arm(at: recording.events[next].time + offset)
        } else if endsWhen?() ?? true {
            isPlaying = false
            stop()
            let cancel = player.cancelAll(at: now)
            onEnd?(cancel.contacts.isEmpty ? nil : cancel)
        } else {
            timer.arm(at: now + 0.05)           // the pipeline's timers run first (the daemon's deadline timer)
        }
    }
}
