import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// Palm rejection (PR1–PR4) and the pencil's barrel buttons, as scripts through the daemon's pipeline:
/// a finger panel (device 0) and a pen (device 1) of one screen, a pan for fingers, and one ordered log
/// of the gesture lines, the touch lines and what the view heard.
@Suite("Pens in the pipeline: palm rejection and barrel buttons")
struct PenPipelineTests {
    /// The finger panel (device 0, palm rejection as asked) and the pen (device 1) of one screen; the
    /// log has the gesture, touch and pencil lines.
    static func rig(palmRejection: Bool = true, extra: String = "") throws -> PipelineRig {
        let rig = try PipelineRig("""
            {"window": {"width": 1000, "height": 1000},
             "devices": [{"name": "Panel", "palmRejection": \(palmRejection)}, {"name": "Pen"}]\(extra),
             "views": [{"name": "page", "frame": [0, 0, 1000, 1000],
                        "recognizers": [{"name": "scroll", "type": "pan", "allowedTouchTypes": ["direct"]},
                                        {"name": "ink", "type": "pan", "allowedTouchTypes": ["pencil"]}]}]}
            """, touches: true) { json in
            switch json["event"]?.stringValue {
            case "touch": "touch \(json["type"]!.stringValue!) \(json["phase"]!.stringValue!)"
            case "pencil": "pencil \(Int(json["button"]!.numberValue!)) \(json["state"]!.stringValue!)"
            default: PipelineRig.gesture(json)
            }
        }
        var panel = DeviceConfig(), pen = DeviceConfig()
        panel.palmRejection = palmRejection
        pen.selector.name = "Pen"
        rig.pipeline.setDeviceConfig(panel, device: 0)
        rig.pipeline.setDeviceConfig(pen, device: 1)
        rig.pipeline.pairPen(1, withFingers: 0)
        return rig
    }

    @Test("PR2: a finger panning when the pen comes near is cancelled, once: the pan ends cancelled and never begins again while the finger stays")
    func fingerBeforePen() throws {
        let rig = try Self.rig()
        rig.touch(1, 100, 500, at: 1.00)
        rig.touch(1, 130, 500, at: 1.01)
        rig.touch(1, 160, 500, at: 1.02)
        #expect(rig.take() == ["touch direct began", "scroll began", "touch direct moved", "scroll changed", "touch direct moved"])
        rig.pen((600, 600), at: 1.03)
        #expect(rig.take() == ["scroll cancelled", "touch direct cancelled"])
        rig.touch(1, 220, 500, at: 1.04)                      // the hand goes on moving: nothing
        rig.pen(nil, at: 1.05)
        rig.touch(1, 300, 500, at: 1.50)                      // still the same finger, long after: nothing
        rig.lift(1, at: 1.60)
        #expect(rig.take() == [])
    }

    @Test("PR3: a finger landing while the pen is in range, or within 90 ms after it left, is never delivered; one after that is")
    func fingersDuringAndAfter() throws {
        let rig = try Self.rig()
        rig.pen((600, 600), at: 1.00)
        rig.touch(1, 100, 500, at: 1.01)
        rig.touch(1, 200, 500, at: 1.02)
        rig.pen(nil, at: 1.03)
        rig.touch(2, 100, 800, at: 1.08)                      // 50 ms after the pen left: a palm
        rig.touch(2, 200, 800, at: 1.20)                      // it stays one after the hold-off
        rig.lift(1, at: 1.21)
        rig.lift(2, at: 1.22)
        #expect(rig.take() == [])
        rig.touch(3, 100, 500, at: 1.30)                      // 270 ms after: a finger again
        rig.touch(3, 150, 500, at: 1.31)
        rig.lift(3, at: 1.32)
        #expect(rig.take() == ["touch direct began", "scroll began", "touch direct moved", "scroll ended", "touch direct ended"])
    }

    @Test("PR4: the pen goes on drawing while a palm rests; \"palmRejection\": false leaves fingers alone")
    func penGoesOnAndTheSwitch() throws {
        let rig = try Self.rig()
        rig.touch(1, 100, 900, at: 1.0)
        rig.pen((500, 500), at: 1.01)
        _ = rig.take()
        var tip = Contact(id: 1, location: Point(x: 500, y: 500))
        tip.type = .pencil
        for i in 0..<4 {
            tip.location.x = 500 + Double(i) * 20
            rig.pipeline.handle(DigitizerFrame(device: 1, timestamp: 1.02 + Double(i) * 0.01, contacts: [tip]))
        }
        #expect(rig.take() == ["touch pencil began", "ink began", "touch pencil moved", "ink changed", "touch pencil moved",
                               "ink changed", "touch pencil moved"])
        let off = try Self.rig(palmRejection: false)
        off.pen((500, 500), at: 1.0)
        off.touch(1, 100, 900, at: 1.01)
        off.touch(1, 140, 900, at: 1.02)
        #expect(off.take() == ["touch direct began", "scroll began", "touch direct moved"])
    }

    @Test("Barrel buttons: a pencil line per button pressed and released, where the pen is; a pencilButtons click acts on press")
    func barrelButtons() throws {
        let rig = try Self.rig(extra: #", "pencilButtons": {"1": {"click": "right"}}"#)
        rig.pipeline.startActions(Actions(devices: nil, log: Logger(program: "test", level: .error))) { _ in }
        rig.pen((300, 400), at: 1.0)
        rig.pen((300, 400), at: 1.1, buttons: .primary)
        rig.pen((310, 400), at: 1.2, buttons: [.primary, .secondary])
        rig.pen((310, 400), at: 1.3)
        rig.pen(nil, at: 1.4)
        #expect(rig.take() == ["pencil 1 pressed", "pencil 2 pressed", "pencil 1 released", "pencil 2 released"])
        let pressed = try #require(rig.lines.first { $0["event"]?.stringValue == "pencil" })
        #expect(pressed["x"]?.numberValue == 300 && pressed["y"]?.numberValue == 400 && pressed["device"]?.numberValue == 1)
        #expect(pressed["time"]?.numberValue == 1.1)
        let click = try #require(rig.lines.first { $0["event"]?.stringValue == "action" })
        #expect(click["action"]?.stringValue == "click" && click["button"]?.stringValue == "right")
        #expect(click["x"]?.numberValue == 300 && click["pencilButton"]?.numberValue == 1)
        #expect(rig.lines.filter { $0["event"]?.stringValue == "action" }.count == 1)      // only button 1 is bound
    }

    static let fixtures = "/" + #filePath.split(separator: "/").dropLast(2).joined(separator: "/") + "/Fixtures"
    /// The same pen in the three formats: evemu-devices' own file, and what the lab's libinput record and
    /// evtest wrote of it replayed into a uinput device (Tests/Fixtures/NOTICE).
    static let penRecordings = ["evemu-devices__wacom-cintiq-13hd-pen__hover-strokes.evemu",
                                "libinput-record__wacom-cintiq-13hd-pen__hover-strokes.yml",
                                "evtest__wacom-cintiq-13hd-pen__hover-strokes.evtest.txt"]

    @Test("A real pen (Wacom Cintiq 13HD): pencil touches with plausible force and angles, and hover lines between its strokes",
          arguments: PenPipelineTests.penRecordings)
    func realPen(_ name: String) throws {
        let recording = try Recording.load(path: Self.fixtures + "/" + name)
        let scene = try Scene.parse("""
            {"window": {"width": 1280, "height": 720},
             "views": [{"name": "canvas", "frame": [0, 0, 1280, 720],
                        "recognizers": [{"name": "hover", "type": "hover"}, {"name": "ink", "type": "pan", "allowedTouchTypes": ["pencil"]}]}]}
            """, file: "canvas", systemKeyboard: KeyboardNames())
        let lines = try OfflineReplay.lines(of: recording, scene: scene, options: OfflineReplay.Options(topics: [.gestures, .touches]),
                                            log: Logger(program: "test", level: .error)).map { try JSONParser.parse($0) }
        let touches = lines.filter { $0["event"]?.stringValue == "touch" }
        #expect(!touches.isEmpty && touches.allSatisfy { $0["type"]?.stringValue == "pencil" })
        let pressed = touches.filter { $0["phase"]?.stringValue != "cancelled" }
        for t in pressed {
            let force = try #require(t["force"]?.numberValue), altitude = try #require(t["altitude"]?.numberValue)
            let azimuth = try #require(t["azimuth"]?.numberValue)
            #expect(force >= 0 && force <= 25.0 / 6.0)
            // A hand holds a pen 30°–90° off the surface; libinput reads this pen's tilt to 64° at most.
            #expect(altitude > Double.pi / 6 && altitude <= Double.pi / 2)
            #expect(azimuth > -Double.pi && azimuth <= Double.pi)
        }
        // A right hand: the top leans toward the bottom right (azimuth between 0 and π/2) in most frames.
        let rightHanded = pressed.filter { ($0["azimuth"]?.numberValue).map { $0 > 0 && $0 < Double.pi / 2 } ?? false }
        #expect(rightHanded.count * 10 >= pressed.count * 9)
        #expect(pressed.contains { ($0["force"]?.numberValue ?? 0) > 1 })        // some press harder than average
        // The strokes and the hover between them, in order: hover, ink, hover, ink, hover.
        var story: [String] = []
        for l in lines where l["event"]?.stringValue == "gesture" {
            let entry = "\(l["recognizer"]!.stringValue!) \(l["state"]!.stringValue!)"
            if entry.hasSuffix("began") || entry.hasSuffix("ended") { story.append(entry) }
        }
        #expect(story == ["hover began", "hover ended", "ink began", "ink ended", "hover began", "hover ended",
                          "ink began", "ink ended", "hover began", "hover ended"])
        for h in lines where h["recognizer"]?.stringValue == "hover" {
            let z = try #require(h["zOffset"]?.numberValue)
            #expect(z >= 0 && z <= 1 && h["touches"]?.numberValue == 0 && h["device"]?.numberValue == 0)
        }
    }
}
