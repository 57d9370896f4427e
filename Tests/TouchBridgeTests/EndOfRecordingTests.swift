import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// A recording that ends while fingers are down (any recording cut by Ctrl-C) ends as an unplugged
/// device does: its touches are cancelled, and so are the gestures they were making (C7).
@Suite("The end of a recording is the device going away")
struct EndOfRecordingTests {
    static let fixtures = "/" + #filePath.split(separator: "/").dropLast(2).joined(separator: "/") + "/Fixtures"
    static let photo = """
        {"window": {"width": 800, "height": 480},
         "views": [{"name": "photo", "frame": [0, 0, 800, 480], "multipleTouchEnabled": true,
                    "recognizers": [{"name": "zoom", "type": "pinch", "simultaneousWith": ["turn"]},
                                    {"name": "turn", "type": "rotation"}]}]}
        """

    @Test("A two-finger recording cut in the middle of a pinch: every touch and both gestures end cancelled, after the last frame")
    func cutMidPinch() throws {
        var r = try Recording.load(path: Self.fixtures + "/evemu-devices__wacom-isdv4-e6-finger-ts__2fg-circle.events")
        // The pinch begins at 1330496220.427182 and the fingers lift at .455: cut between.
        r.events = r.events.filter { $0.time <= 1330496220.44 }
        let lines = try OfflineReplay.lines(of: r, scene: try Scene.parse(Self.photo, file: "photo"),
                                            options: OfflineReplay.Options(topics: [.gestures, .touches]),
                                            log: Logger(program: "test", level: .error))
            .map { try JSONParser.parse($0) }
        let gestures = lines.filter { $0["event"]?.stringValue == "gesture" }
        let zoom = gestures.filter { $0["recognizer"]?.stringValue == "zoom" }.map { $0["state"]!.stringValue! }
        let turn = gestures.filter { $0["recognizer"]?.stringValue == "turn" }.map { $0["state"]!.stringValue! }
        #expect(zoom.first == "began" && zoom.last == "cancelled")
        #expect(turn.first == "began" && turn.last == "cancelled")
        let touches = lines.filter { $0["event"]?.stringValue == "touch" }
        var open: Set<Int> = []
        for t in touches {
            let id = Int(t["id"]!.numberValue!)
            switch t["phase"]!.stringValue! {
            case "began": open.insert(id)
            case "ended", "cancelled": open.remove(id)
            default: break
            }
        }
        #expect(open.isEmpty, "touches left down: \(open)")
        #expect(touches.last?["phase"]?.stringValue == "cancelled")      // the finger still down
        // Cancelled at the last time the replay saw, not before the last frame.
        let last = r.events.last!.time
        #expect(gestures.last!["time"]!.numberValue! >= last - 1e-6)
    }

    @Test("A recording that ends with every finger up ends as before: nothing is cancelled")
    func completeRecording() throws {
        let r = try Recording.load(path: Self.fixtures + "/evemu-devices__wacom-isdv4-e6-finger-ts__2fg-circle.events")
        let lines = try OfflineReplay.lines(of: r, scene: try Scene.parse(Self.photo, file: "photo"),
                                            options: OfflineReplay.Options(topics: [.gestures, .touches]),
                                            log: Logger(program: "test", level: .error))
        #expect(!lines.contains { $0.contains("\"cancelled\"") })
    }
}
