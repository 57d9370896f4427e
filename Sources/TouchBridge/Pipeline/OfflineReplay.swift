import TouchCore
import TouchInput

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
        let passthrough = options.mirrorPath != nil
        let scene = scene ?? Scene.builtIn(for: recording.device, passthrough: passthrough)
        let config = try scene.replayConfig(for: recording)
        let device = options.deviceIndex
        guard let mapping = DeviceSetup.mapping(recording.device, config, window: scene.window.bounds, udevCalibration: nil) else {
            throw RecordingError(file: recording.source, line: 1, reason: "the recording's device has no position axes")
        }

        let pipeline = Pipeline(scene: scene, log: log)
        pipeline.wantsTouches = options.topics.contains(.touches)
        pipeline.wantsRecognizers = options.topics.contains(.recognizers)
        pipeline.onLines = { topic, bytes in
            guard options.topics.contains(topic) || (topic == .actions && options.actions) else { return }
            // A chunk holds one or more lines, separated by newlines.
            var start = 0
            for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0a {
                line(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                start = i + 1
            }
        }

        pipeline.setDeviceConfig(config, device: device)
        if options.actions {
            pipeline.startActions(Actions(devices: nil, log: log)) { _ in }
        }

        var mirror: EvemuWriter?
        if let path = options.mirrorPath {
            guard scene.allowsPassthrough else {
                throw SceneError(file: scene.source, line: nil, path: "", message: "--mirror needs a scene loaded for pass-through")
            }
            let description = MirrorDescription.of(recording.device)
            let writer = try EvemuWriter(path: path, device: description, comments: [
                "What touchbridged's pass-through mirror of \"\(recording.device.name)\" would be sent",
                "replaying \(Files.baseName(recording.source)) through \(scene.source == "built-in default" ? "the built-in pass-through scene" : Files.baseName(scene.source)); times are the source's",
            ])
            pipeline.addMirror(device: device, name: recording.device.name, source: recording.device, sink: writer)
            mirror = writer
        }

        var player = RecordingPlayer(device: recording.device, mapping: mapping, deviceIndex: device) {
            log.warning("\(recording.source): \($0)")
        }
        let node = "replay:" + recording.source
        if options.topics.contains(.scene) { pipeline.sceneLine().withUnsafeBufferPointer(line) }
        if options.topics.contains(.devices) {
            DeviceLine.encode(action: "added", device: device, node: node, name: recording.device.name).withUnsafeBufferPointer(line)
        }
        for e in recording.events {
            if let f = player.play(e) { pipeline.handle(f) }
        }
        pipeline.finish()
        // The end of the recording: the device went away (C7).
        pipeline.handle(player.cancelAll(at: pipeline.currentTime))
        pipeline.finish()
        if options.topics.contains(.devices) {
            DeviceLine.encode(action: "removed", device: device, node: node, name: recording.device.name).withUnsafeBufferPointer(line)
        }
        if let mirror {
            pipeline.removeMirror(device: device, at: pipeline.currentTime)
            try mirror.close()
        }
        return Choice(config: config, byEntry: !scene.devices.isEmpty)
    }

    /// Every line of a replay, collected (for tests; `touchbridgectl replay` streams them).
    public static func lines(of recording: Recording, scene: Scene?, options: Options = Options(),
                             log: Logger) throws -> [String] {
        var out: [String] = []
        try play(recording, scene: scene, options: options, log: log) { out.append(String(decoding: $0, as: UTF8.self)) }
        return out
    }
}
