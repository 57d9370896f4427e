import CEvdev
import Glibc
import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// The waking touch (docs/screen-aware.md): while the display is off a touch sequence reaches no view,
/// no recognizer and no mirror, and is told once as a `wake` line; after `display on` a hold-off
/// swallows the sequences that begin within it.
@Suite("Display off: the touch that wakes the screen does nothing else")
struct DisplayTests {
    /// A panel passing through, a tap and a two-finger pan; the log has gesture and wake lines.
    static func rig() throws -> PipelineRig {
        let rig = try PipelineRig(#"{"window": {"width": 800, "height": 480}, "views": [{"name": "v", "frame": [0, 0, 800, 480], "multipleTouchEnabled": true, "recognizers": [{"name": "tap", "type": "tap"}, {"name": "pan", "type": "pan", "minimumNumberOfTouches": 2}]}]}"#,
                                  passthrough: true) { j in
            guard j["event"]?.stringValue == "wake" else { return PipelineRig.gesture(j) }
            return "wake @\(j["time"]!.numberValue!) (\(Int(j["x"]!.numberValue!)),\(Int(j["y"]!.numberValue!)))"
        }
        rig.passThrough()
        rig.pipeline.setDeviceConfig(DeviceConfig(), device: 0)
        return rig
    }

    /// A tap at `t` at (x, y), and the timers run to 0.6 s after it (past a double tap's wait).
    static func tap(_ rig: PipelineRig, _ t: Double, _ x: Double = 100, _ y: Double = 100) {
        rig.tap(x, y, at: t)
        rig.advance(to: t + 0.6)
    }

    /// Two fingers dragged 100 pt down, from `t`.
    static func drag(_ rig: PipelineRig, _ t: Double) {
        for i in 0...10 {
            let dy = Double(i) * 10
            rig.touch([1: Point(x: 300, y: 100 + dy), 2: Point(x: 400, y: 100 + dy)], at: t + Double(i) * 0.016)
        }
        rig.liftAll(at: t + 0.2)
    }

    @Test("Display off: a tap and a two-finger drag reach no gesture and no mirror; one wake line each")
    func swallowedWhileOff() throws {
        let rig = try Self.rig()
        Self.tap(rig, 1.0)
        #expect(rig.take() == ["tap recognized"])
        #expect(!rig.mirror().isEmpty)                   // the mirror heard the first tap
        rig.pipeline.setDisplay(on: false, at: 2.0)
        Self.tap(rig, 3.0, 120, 80)
        Self.drag(rig, 4.0)
        #expect(rig.mirror() == [])
        #expect(rig.take() == ["wake @3.0 (120,80)", "wake @4.0 (300,100)"])
        #expect(rig.pipeline.application.isIdle)
    }

    @Test("Display on: sequences that begin within the hold-off are swallowed silently, later ones pass")
    func holdoff() throws {
        let rig = try Self.rig()
        rig.pipeline.wakeHoldoff = 1.0
        rig.pipeline.setDisplay(on: false, at: 1.0)
        Self.tap(rig, 2.0)
        rig.pipeline.setDisplay(on: true, at: 2.1)
        Self.tap(rig, 2.5)                                     // before the picture shows: a second try at waking
        #expect(rig.take() == ["wake @2.0 (100,100)"])
        rig.pipeline.setDisplay(on: true, at: 2.8)       // the idle manager's resume: no new hold-off
        Self.tap(rig, 3.2)
        #expect(rig.take() == ["tap recognized"])
    }

    @Test("A sequence under way when the display goes off goes on as it began; the next one wakes")
    func underWay() throws {
        let rig = try Self.rig()
        rig.pipeline.handle(DigitizerFrame(timestamp: 1.0, contacts: [Contact(id: 1, location: Point(x: 100, y: 100))]))
        rig.pipeline.setDisplay(on: false, at: 1.02)
        rig.pipeline.handle(DigitizerFrame(timestamp: 1.05, contacts: []))
        rig.pipeline.advance(to: 1.6)
        #expect(rig.take() == ["tap recognized"])
        Self.tap(rig, 2.0)
        #expect(rig.take() == ["wake @2.0 (100,100)"])
    }

    @Test("A device entry's dpms attribute, read when a sequence begins: Off swallows it as display off does")
    func dpmsAttribute() throws {
        let rig = try Self.rig()
        let path = "/tmp/tb-dpms-\(getpid())"
        defer { unlink(path) }
        var config = DeviceConfig()
        config.dpms = path
        rig.pipeline.setDeviceConfig(config, device: 0)
        try Files.writeText(path, "Off\n")
        Self.tap(rig, 1.0)
        #expect(rig.take() == ["wake @1.0 (100,100)"])
        try Files.writeText(path, "On\n")
        Self.tap(rig, 2.0)
        #expect(rig.take() == ["tap recognized"])
        unlink(path)                                     // unreadable: the display counts as on
        Self.tap(rig, 3.0)
        #expect(rig.take() == ["tap recognized"])
    }

    @Test("set display is a control command; a bad value is refused whole")
    func command() throws {
        #expect(try ClientCommand.parse(Array(#"{"set":{"display":"off"}}"#.utf8)) == .setDisplay(on: false))
        #expect(try ClientCommand.parse(Array(#"{"set":{"display":"on"}}"#.utf8)) == .setDisplay(on: true))
        #expect(try ClientCommand.parse(Array(#"{"set":{"display":"on"}}"#.utf8))?.isControl == true)
        #expect(throws: ClientCommand.Refusal(message: #"set.display: must be "off" or "on""#)) {
            try ClientCommand.parse(Array(#"{"set":{"display":"dim"}}"#.utf8))
        }
        #expect(throws: ClientCommand.Refusal.self) { try ClientCommand.parse(Array(#"{"set":{"display":"off","device":0}}"#.utf8)) }
    }

    @Test("The dpms key is a DRM connector's sysfs attribute, and nothing else")
    func dpmsKey() {
        let bad = #"{"window": {"width": 8, "height": 4}, "devices": [{"name": "x", "dpms": "/etc/passwd"}]}"#
        #expect(throws: ConfigError.self) { try Scene.parse(bad, file: "s") }
        let good = #"{"window": {"width": 8, "height": 4}, "devices": [{"name": "x", "dpms": "/sys/class/drm/card1-eDP-1/dpms"}]}"#
        #expect((try? Scene.parse(good, file: "s"))?.devices.first?.dpms == "/sys/class/drm/card1-eDP-1/dpms")
    }
}
