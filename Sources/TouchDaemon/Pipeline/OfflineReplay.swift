import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridgectl replay`: runs a recording through the daemon's pipeline offline, on the recording's
/// own timestamps, and hands out the NDJSON lines the daemon would send, as they are made.
/// Deterministic: after the last event, time advances past every pending deadline (a single tap
/// waiting for a double tap still fires), and then the recording ends as a device goes away: touches
/// still down are cancelled, and so are the gestures they were making (a recording cut by Ctrl-C ends
/// like an unplug, never with a finger left down).
public enum OfflineReplay {
    /// How the recording is played.
    public struct Options {
        /// The topics whose lines are handed out: gestures, touches, recognizers; scene (the scene line
        /// before the first frame), devices (the recording's device added first and removed last).
        public var topics: Topics = .gestures
        /// Also write what a pass-through mirror of the device would be sent, as an evemu recording
        /// (`replay --mirror OUT`): the device passes through whatever the scene's entries say.
        public var mirrorPath: String?
        /// The `"device"` of the lines: `replay A B` plays B as device 1, as the daemon would.
        public var deviceIndex = 0
        /// The scene's actions run and their lines are handed out (`replay --actions`); nothing is
        /// written anywhere.
        public var actions = false
        /// The focused app from the start (`replay --focus APP`; nil: none known), and its changes at
        /// seconds from the recordings' first event (`--focus-at T=APP`; an empty APP: none known).
        public var focus: String?
        public var focusChanges: [(time: Double, app: String?)] = []
        /// The display's lines (the scene's dimming, docs/display.md) are handed out, at their times.
        public var display = true

        public init(topics: Topics = .gestures, mirrorPath: String? = nil, deviceIndex: Int = 0) {
            self.topics = topics
            self.mirrorPath = mirrorPath
            self.deviceIndex = deviceIndex
        }
    }

    /// How the scene took the recording's device: its configuration, and whether a `devices` entry
    /// chose it (false: the scene has no entries and takes every touchscreen).
    public struct Choice {
        public var config: DeviceConfig
        public var byEntry: Bool
    }

    /// Plays `recording` through `scene` (the built-in scene sized for the device when nil). `line` gets
    /// each line, valid only during the call. Returns how the scene took the device.
    @discardableResult
    public static func play(_ recording: Recording, scene: Scene?, options: Options, log: Logger,
                            line: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws -> Choice {
        try play(together: [recording], scene: scene, options: options, log: log, line: line)[0]
    }

    /// Plays recordings together, as devices of one screen (`replay --together FINGERS PEN`): device
    /// `deviceIndex`, `deviceIndex + 1`, …, their events interleaved by time. Each pen among them is
    /// paired with each finger device (palm rejection, PR1–PR4). With a mirror, the finger device is
    /// the one mirrored: pens are never mirrored.
    @discardableResult
    public static func play(together recordings: [Recording], scene: Scene?, options: Options, log: Logger,
                            line: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws -> [Choice] {
        precondition(!recordings.isEmpty, "OfflineReplay: nothing to play")
        let passthrough = options.mirrorPath != nil
        let fingerIndex = recordings.firstIndex { $0.device.kind != .tablet }
        let fingers = fingerIndex.map { recordings[$0] }
        let scene = scene ?? Scene.builtIn(for: (fingers ?? recordings[0]).device, passthrough: passthrough)
        var players: [RecordingPlayer] = []
        var choices: [Choice] = []
        let pipeline = Pipeline(scene: scene, log: log)
        // A replay sets no real backlight: a virtual one, full at first, so that what a slider or the
        // dimming would set is told all the same, the same on every machine.
        pipeline.backlights = VirtualBacklight()
        for (i, recording) in recordings.enumerated() {
            let config = try scene.replayConfig(for: recording)
            guard let mapping = DeviceSetup.mapping(recording.device, config, window: scene.window.bounds, udevCalibration: nil) else {
                throw RecordingError(file: recording.source, line: 1, reason: "the recording's device has no position axes")
            }
            players.append(RecordingPlayer(device: recording.device, mapping: mapping, deviceIndex: options.deviceIndex + i) {
                log.warning("\(recording.source): \($0)")
            })
            pipeline.setDeviceConfig(config, device: options.deviceIndex + i)
            choices.append(Choice(config: config, byEntry: !scene.devices.isEmpty))
        }
        for (i, pen) in recordings.enumerated() where pen.device.kind == .tablet {
            for (j, finger) in recordings.enumerated() where finger.device.kind != .tablet {
                pipeline.pairPen(options.deviceIndex + i, withFingers: options.deviceIndex + j)
            }
        }

        pipeline.wantsTouches = options.topics.contains(.touches)
        pipeline.wantsRecognizers = options.topics.contains(.recognizers)
        pipeline.onLines = { topic, bytes in
            guard options.topics.contains(topic) || (topic == .actions && options.actions)
                    || (topic == .devices && options.display) else { return }
            // A chunk holds one or more lines, separated by newlines.
            var start = 0
            for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0a {
                line(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                start = i + 1
            }
        }
        if options.actions {
            pipeline.startActions(Actions(devices: nil, log: log)) { _ in }
        }

        var mirror: (writer: EvemuWriter, device: Int)?
        if let path = options.mirrorPath {
            guard scene.allowsPassthrough else {
                throw ConfigError(file: scene.source, line: nil, path: "", message: "--mirror needs a scene loaded for pass-through")
            }
            guard let fingers, let index = fingerIndex else {
                throw RecordingError(file: recordings[0].source, line: 1, reason: "\"\(recordings[0].device.name)\" is a pen: pens are never mirrored (the compositor reads the pen itself); --mirror needs a finger device")
            }
            let description = MirrorDescription.of(fingers.device)
            let writer = try EvemuWriter(path: path, device: description, comments: [
                "What touchbridged's pass-through mirror of \"\(fingers.device.name)\" would be sent",
                "replaying \(Files.baseName(fingers.source)) through \(scene.source == "built-in default" ? "the built-in pass-through scene" : Files.baseName(scene.source)); times are the source's",
            ])
            let device = options.deviceIndex + index
            pipeline.addMirror(device: device, name: fingers.device.name, source: fingers.device, sink: writer)
            mirror = (writer, device)
        }

        if options.topics.contains(.scene) { pipeline.sceneLine().withUnsafeBufferPointer(line) }
        if options.topics.contains(.devices) {
            for (i, r) in recordings.enumerated() {
                DeviceLine.encode(action: "added", device: options.deviceIndex + i, node: "replay:" + r.source, name: r.device.name).withUnsafeBufferPointer(line)
            }
        }
        pipeline.setFocus(app: options.focus)
        let start = recordings.compactMap { $0.events.first?.time }.min() ?? 0
        var changes = options.focusChanges.sorted { $0.time < $1.time }[...]
        // Interleaved by time; at equal times, in the order the recordings were named.
        var next = [Int](repeating: 0, count: recordings.count)
        while true {
            var pick: Int?
            for i in recordings.indices where next[i] < recordings[i].events.count {
                if let p = pick, recordings[p].events[next[p]].time <= recordings[i].events[next[i]].time { continue }
                pick = i
            }
            guard let i = pick else { break }
            let e = recordings[i].events[next[i]]
            next[i] += 1
            while let c = changes.first, e.time - start >= c.time {
                pipeline.setFocus(app: c.app)
                changes.removeFirst()
            }
            if let f = players[i].play(e) { pipeline.handle(f) }
        }
        pipeline.finish()
        // The end of the recordings: the devices went away (C7).
        for i in players.indices {
            pipeline.handle(players[i].cancelAll(at: pipeline.currentTime))
        }
        pipeline.finish()
        if options.topics.contains(.devices) {
            for (i, r) in recordings.enumerated() {
                DeviceLine.encode(action: "removed", device: options.deviceIndex + i, node: "replay:" + r.source, name: r.device.name).withUnsafeBufferPointer(line)
            }
        }
        if let mirror {
            pipeline.removeMirror(device: mirror.device, at: pipeline.currentTime)
            try mirror.writer.close()
        }
        return choices
    }

    /// Every line of a replay, collected (for tests; `touchbridgectl replay` streams them).
    public static func lines(of recording: Recording, scene: Scene?, options: Options = Options(),
                             log: Logger) throws -> [String] {
        var out: [String] = []
        try play(recording, scene: scene, options: options, log: log) { out.append(String(decoding: $0, as: UTF8.self)) }
        return out
    }
}
