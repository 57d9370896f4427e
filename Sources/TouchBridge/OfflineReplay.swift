import TouchCore
import TouchInput

/// `touchbridgectl replay`: runs recordings through the daemon's pipeline offline, on the recordings'
/// own timestamps, and returns the NDJSON lines the daemon would send. Deterministic: after the last
/// event, time advances past every pending deadline (a single tap waiting for a double tap still fires).
public enum OfflineReplay {
    /// The lines for one recording. `sceneSource` builds a fresh scene for the recording's device
    /// (nil: the built-in scene sized for the device).
    public static func lines(of recording: Recording, scene sceneSource: ((DeviceDescription) throws -> Scene)?,
                             topics: Topics, log: Logger) throws -> [String] {
        let scene = try sceneSource?(recording.device) ?? Scene.builtIn(for: recording.device)
        let pipeline = Pipeline(scene: scene, log: log)
        pipeline.wantsTouches = topics.contains(.touches)
        var out: [String] = []
        pipeline.onLines = { topic, bytes in
            guard topics.contains(topic) else { return }
            for line in bytes.split(separator: 0x0a) { out.append(String(decoding: line, as: UTF8.self)) }
        }
        let config = scene.devices.first ?? DeviceConfig()
        guard var mapping = CoordinateMapping(device: recording.device, target: scene.window.bounds) else { return out }
        config.configure(&mapping, window: scene.window.bounds, udevCalibration: nil)
        var player = RecordingPlayer(device: recording.device, mapping: mapping, deviceIndex: 0) { log.warning("\(recording.source): \($0)") }
        for e in recording.events {
            if let f = player.play(e) { pipeline.handle(f) }
        }
        pipeline.finish()
        return out
    }
}
