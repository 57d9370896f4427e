import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

@Suite("The pipeline's lines")
struct PipelineLineTests {
    /// A scene of one view with a pan, its pipeline, and every line it writes (touches included).
    final class Rig {
        let scene: Scene
        let pipeline: Pipeline
        var lines: [JSON] = []

        init() throws {
            scene = try Scene.parse("""
                {"window": {"width": 400, "height": 400},
                 "views": [{"name": "pad", "frame": [0, 0, 400, 400], "recognizers": [{"name": "drag", "type": "pan"}]}]}
                """, file: "test scene")
            pipeline = Pipeline(scene: scene, log: Logger(program: "test", level: .error))
            pipeline.wantsTouches = true
            pipeline.onLines = { [unowned self] _, bytes in
                for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                    self.lines.append(try! JSONParser.parse(String(line)))
                }
            }
        }

        func finger(_ x: Double, at t: Double) {
            pipeline.handle(DigitizerFrame(device: 0, timestamp: t, contacts: [Contact(id: 1, location: Point(x: x, y: 100))]))
        }
    }

    @Test("A view renamed in the middle of a gesture: the next touch and gesture lines carry the new name")
    func viewRenamed() throws {
        let rig = try Rig()
        rig.finger(100, at: 0)
        rig.finger(130, at: 0.01)
        rig.finger(160, at: 0.02)                       // the pan has begun
        let pad = try #require(rig.scene.views.first { $0.name == "pad" })
        pad.name = "renamed"
        rig.finger(190, at: 0.03)
        let views = rig.lines.map { "\($0["event"]!.stringValue!) \($0["view"]?.stringValue ?? "null")" }
        // A frame's gesture line comes as the pan changes state, its touch lines after the event.
        #expect(views == ["touch pad", "gesture pad", "touch pad", "gesture pad", "touch pad", "gesture renamed", "touch renamed"])
    }

    @Test("A tap recognized after its finger lifted (it waited for the double tap to fail, F4) reports its finger, as the double tap does")
    func delayedTapReportsItsTouches() throws {
        let pipeline = Pipeline(scene: Scene.builtIn(), log: Logger(program: "test", level: .error))
        var lines: [JSON] = []
        pipeline.onLines = { _, bytes in lines.append(try! JSONParser.parse(String(decoding: bytes, as: UTF8.self))) }
        pipeline.handle(DigitizerFrame(timestamp: 1, contacts: [Contact(id: 1, location: Point(x: 300, y: 300))]))
        pipeline.handle(DigitizerFrame(timestamp: 1.05, contacts: []))
        pipeline.finish()
        #expect(lines.map { "\($0["recognizer"]!.stringValue!) \(Int($0["touches"]!.numberValue!))" } == ["tap 1"])
        lines = []
        for t in [2.0, 2.2] {
            pipeline.handle(DigitizerFrame(timestamp: t, contacts: [Contact(id: 1, location: Point(x: 300, y: 300))]))
            pipeline.handle(DigitizerFrame(timestamp: t + 0.05, contacts: []))
        }
        pipeline.finish()
        #expect(lines.map { "\($0["recognizer"]!.stringValue!) \(Int($0["touches"]!.numberValue!))" } == ["doubleTap 1"])
    }
}
