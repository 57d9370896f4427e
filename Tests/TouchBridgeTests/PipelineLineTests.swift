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
    /// A scene of one view with a pan; every line it writes, touches included.
    static func rig() throws -> PipelineRig {
        try PipelineRig("""
            {"window": {"width": 400, "height": 400},
             "views": [{"name": "pad", "frame": [0, 0, 400, 400], "recognizers": [{"name": "drag", "type": "pan"}]}]}
            """, touches: true)
    }

    @Test("A view renamed in the middle of a gesture: the next touch and gesture lines carry the new name")
    func viewRenamed() throws {
        let rig = try Self.rig()
        rig.touch(1, 100, 100, at: 0)
        rig.touch(1, 130, 100, at: 0.01)
        rig.touch(1, 160, 100, at: 0.02)                // the pan has begun
        let pad = try #require(rig.scene.views.first { $0.name == "pad" })
        pad.name = "renamed"
        rig.touch(1, 190, 100, at: 0.03)
        let views = rig.lines.map { "\($0["event"]!.stringValue!) \($0["view"]?.stringValue ?? "null")" }
        // A frame's gesture line comes as the pan changes state, its touch lines after the event.
        #expect(views == ["touch pad", "gesture pad", "touch pad", "gesture pad", "touch pad", "gesture renamed", "touch renamed"])
    }

    @Test("A tap recognized after its finger lifted (it waited for the double tap to fail, F4) reports its finger, as the double tap does")
    func delayedTapReportsItsTouches() throws {
        let rig = PipelineRig(scene: Scene.builtIn())
        func tap(at t: Double) {
            rig.touch(1, 300, 300, at: t)
            rig.lift(1, at: t + 0.05)
        }
        func recognizedWithTouches() -> [String] {
            defer { rig.lines = [] }
            return rig.lines("gesture").map { "\($0["recognizer"]!.stringValue!) \(Int($0["touches"]!.numberValue!))" }
        }
        tap(at: 1)
        rig.pipeline.finish()
        #expect(recognizedWithTouches() == ["tap 1"])
        tap(at: 2)
        tap(at: 2.2)
        rig.pipeline.finish()
        #expect(recognizedWithTouches() == ["doubleTap 1"])
    }
}
