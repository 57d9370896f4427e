import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// A scene and its pipeline leave nothing behind when they go: no recognizer, view or window is kept
/// alive by another (a cycle leaks all of them, and a daemon that reloads its scene would grow).
@Suite("Lifetimes")
struct LifetimeTests {
    final class WeakBox { weak var object: AnyObject?; init(_ o: AnyObject) { object = o } }

    static let scene = """
        {"window": {"width": 800, "height": 480},
         "views": [{"name": "list", "frame": [0, 0, 800, 400], "multipleTouchEnabled": true,
                    "recognizers": [{"name": "scroll", "type": "pan", "requireToFail": ["back"]},
                                    {"name": "back", "type": "screenEdgePan", "edges": ["left"]},
                                    {"name": "open", "type": "tap", "numberOfTapsRequired": 2}]},
                   {"name": "photo", "frame": [0, 400, 800, 80], "transform": [0.7, 0.7, -0.7, 0.7, 10, -5],
                    "recognizers": [{"name": "zoom", "type": "pinch", "simultaneousWith": ["turn"]},
                                    {"name": "turn", "type": "rotation", "simultaneousWith": "*"},
                                    {"name": "flick", "type": "swipe", "direction": ["left", "up"]}]}]}
        """

    @Test("A scene, its pipeline and their touches are all freed once let go of", arguments: [false, true])
    func freed(passthrough: Bool) throws {
        var boxes: [WeakBox] = []
        do {
            let scene = try Scene.parse(Self.scene, file: "s", passthrough: passthrough)
            let pipeline = Pipeline(scene: scene, log: Logger(program: "test", level: .error))
            pipeline.wantsTouches = true
            pipeline.onLines = { _, _ in }
            boxes = scene.recognizers.map(WeakBox.init) + scene.views.map(WeakBox.init) + [WeakBox(scene.window), WeakBox(scene)]
            for (i, x) in [160.0, 400, 640, 792].enumerated() {
                pipeline.handle(DigitizerFrame(timestamp: Double(i) * 0.05, contacts: [Contact(id: 1, location: Point(x: x, y: 96 + Double(i) * 96))]))
            }
            pipeline.handle(DigitizerFrame(timestamp: 0.2, contacts: []))
            pipeline.finish()
            #expect(pipeline.application.isIdle)
        }
        let alive = boxes.compactMap(\.object).map { "\($0)" }
        #expect(alive.isEmpty, "still alive: \(alive)")
    }
}
