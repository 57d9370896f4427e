import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// Protocol 2's control commands and topics, on a pipeline without a daemon: each test builds a
/// scene, feeds timestamped frames, and compares one ordered log.
@Suite("Live control")
struct LiveControlTests {
    /// The built-in scene's pipeline with every line it writes (gestures and recognizer transitions);
    /// the log says "gesture NAME STATE".
    static func rig(scene: Scene = Scene.builtIn()) -> PipelineRig {
        PipelineRig(scene: scene, recognizers: true) { PipelineRig.gesture($0).map { "gesture " + $0 } }
    }

    @Test("A disabled doubleTap holds the tap back no longer: the tap fires as its finger lifts (F1, C6)")
    func disabledRequirement() throws {
        let rig = Self.rig()
        try rig.pipeline.setEnabled(patterns: ["doubleTap"], enabled: false, at: 0)
        rig.tap(at: 1)
        #expect(rig.log == ["gesture tap recognized"])
        #expect(rig.lines.last { $0["event"]?.stringValue == "gesture" }?["time"]?.numberValue == 1.05)
        try rig.pipeline.setEnabled(patterns: ["double*"], enabled: true, at: 2)
        rig.log = []
        rig.tap(at: 3)
        rig.pipeline.advance(to: 3.2)
        #expect(rig.log == [])                          // waiting for the double tap to fail again
        rig.pipeline.finish()
        #expect(rig.log == ["gesture tap recognized"])
    }

    @Test("Disabling a pan mid-gesture cancels it, with the reason on its recognizer line")
    func disabledMidGesture() throws {
        let rig = Self.rig()
        rig.touch(1, 600, 400, at: 1)
        for i in 1...5 { rig.touch(1, 600 + Double(i) * 20, 400, at: 1 + Double(i) * 0.01) }
        #expect(rig.log.first == "gesture pan began")
        try rig.pipeline.setEnabled(patterns: ["pan"], enabled: false, at: 1.06)
        #expect(rig.log.last == "gesture pan cancelled")
        #expect(rig.transitions.contains("pan changed→cancelled (disabled)"))
        let count = rig.log.count
        rig.touch(1, 800, 400, at: 1.07)
        rig.liftAll(at: 1.08)
        #expect(rig.log.count == count)                 // nothing more from the disabled pan
    }

    @Test("A pattern that matches nothing is refused, and the other patterns of the command are not carried out")
    func unmatchedPattern() {
        let rig = Self.rig()
        #expect(throws: ClientCommand.Refusal.self) {
            try rig.pipeline.setEnabled(patterns: ["pan", "nosuch*"], enabled: false, at: 0)
        }
        #expect(rig.pipeline.recognizers.allSatisfy { $0.isEnabled })
        do throws(ClientCommand.Refusal) {
            try rig.pipeline.setEnabled(patterns: ["pan", "nosuch*"], enabled: false, at: 0)
        } catch {
            #expect(error.message.hasPrefix("set.recognizers[1]: \"nosuch*\" matches no recognizer; the recognizers are doubleTap, tap"))
        }
    }

    @Test("The recognizer stream: every transition of a double tap, the tap's wait and its failure, with reasons")
    func transitionStream() {
        let rig = Self.rig()
        rig.tap(at: 1)
        rig.tap(at: 1.2)
        rig.pipeline.finish()
        let t = rig.transitions
        #expect(t.contains("doubleTap possible→recognized"))
        #expect(t.contains { $0.hasPrefix("tap possible→possible (") && $0.contains("waits for doubleTap to fail") })
        #expect(t.contains { $0.hasPrefix("tap possible→failed") && $0.contains("doubleTap") })
        #expect(t.contains("doubleTap recognized→possible (touch sequence ended)"))
        // Each recognizer's lines chain: every transition starts where the last one ended.
        var state: [String: String] = [:]
        for l in rig.lines where l["event"]?.stringValue == "recognizer" {
            let name = l["recognizer"]!.stringValue!
            #expect(l["from"]!.stringValue! == state[name, default: "possible"], "\(name)")
            state[name] = l["to"]!.stringValue!
        }
        #expect(state.values.allSatisfy { $0 == "possible" })
    }

    @Test("Reasons name recognizers as scenes do")
    func plainNames() {
        #expect(RecognizerLine.plainNames("required TapGestureRecognizer(doubleTap) to fail") == "required doubleTap to fail")
        #expect(RecognizerLine.plainNames("excluded by PanGestureRecognizer(a/b), ScreenEdgePanGestureRecognizer(edge)") == "excluded by a/b, edge")
        #expect(RecognizerLine.plainNames("moved 52 pt") == "moved 52 pt")
    }

    static let kiosk = """
        [{"name": "carousel", "frame": [0, 0, 600, 300], "recognizers": [
            {"name": "swipe", "type": "swipe", "direction": ["left", "right"]},
            {"name": "tap", "type": "tap", "requireToFail": ["swipe"]}]}]
        """

    func views(_ text: String) throws -> [JSON] { try #require(try JSONParser.parse(text).arrayValue) }

    @Test("A client scene goes front-most under its prefix, fires its own gestures and goes with its connection")
    func clientScene() throws {
        let rig = Self.rig()
        try rig.pipeline.setClientScene(connection: 7, name: "kiosk", views: try views(LiveControlTests.kiosk), at: 0)
        #expect(rig.pipeline.scene.window.subviews.map { $0.name ?? "" } == ["screen", "kiosk/carousel"])
        #expect(rig.pipeline.recognizers.suffix(2).map { $0.name ?? "" } == ["kiosk/swipe", "kiosk/tap"])
        rig.touch(1, 100, 100, at: 1)
        rig.liftAll(at: 1.05)
        rig.pipeline.finish()
        #expect(rig.log == ["gesture kiosk/tap recognized"])
        rig.tap(at: 2)                                   // outside the carousel: the built-in scene's
        rig.pipeline.finish()
        #expect(rig.log.last == "gesture tap recognized")
        rig.pipeline.removeClientScenes(of: 7, at: 3)
        #expect(rig.pipeline.clientScenes.isEmpty && rig.pipeline.scene.window.subviews.count == 1)
        rig.log = []
        rig.touch(1, 100, 100, at: 4)
        rig.liftAll(at: 4.05)
        rig.pipeline.finish()
        #expect(rig.log == ["gesture tap recognized"])
    }

    @Test("A client scene removed mid-gesture: its gesture ends cancelled, the touch keeps its view (T4)")
    func clientSceneRemovedMidGesture() throws {
        let rig = Self.rig()
        try rig.pipeline.setClientScene(connection: 1, name: "k", views: try views("""
            [{"name": "pad", "frame": [0, 0, 600, 600], "recognizers": [{"name": "drag", "type": "pan"}]}]
            """), at: 0)
        rig.touch(1, 100, 100, at: 1)
        for i in 1...4 { rig.touch(1, 100 + Double(i) * 20, 100, at: 1 + Double(i) * 0.01) }
        #expect(rig.log.first == "gesture k/drag began")
        rig.pipeline.removeClientScenes(of: 1, at: 1.05)
        #expect(rig.log.last == "gesture k/drag cancelled")
        let touch = try #require(rig.pipeline.application.activeTouches.first)
        #expect(touch.view?.name == "k/pad")
        rig.touch(1, 220, 100, at: 1.06)
        rig.liftAll(at: 1.07)
        #expect(rig.log.last == "gesture k/drag cancelled")
        #expect(rig.pipeline.removedClientScenes.isEmpty)       // let go of once the finger lifted
    }

    @Test("Client scene errors name the place inside the command, and change nothing", arguments: [
        (#"[{"name": "b", "frame": [0, 0, "x", 1]}]"#, "scene.views[0].frame[2]: must be a number"),
        (#"[{"name": "b", "frame": [0, 0, 1, 1], "recognizers": [{"name": "t", "type": "tapp"}]}]"#,
         "scene.views[0].recognizers[0].type: unknown recognizer type \"tapp\" (did you mean \"tap\"?)"),
        (#"[{"name": "b", "frame": [0, 0, 1, 1], "recognizers": [{"name": "t", "type": "tap", "requireToFail": ["pan"]}]}]"#,
         "scene.views[0].recognizers[0].requireToFail[0]: no recognizer is named \"pan\""),
        (#"[{"frame": [0, 0, 1, 1]}]"#, "scene.views[0]: missing \"name\""),
    ])
    func clientConfigErrors(views text: String, message: String) throws {
        let rig = Self.rig()
        let list = try views(text)
        do throws(ClientCommand.Refusal) {
            try rig.pipeline.setClientScene(connection: 1, name: "k", views: list, at: 0)
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
        #expect(rig.pipeline.clientScenes.isEmpty && rig.pipeline.scene.window.subviews.count == 1)
    }

    @Test("A reloaded scene file keeps the client scenes (built again on the new window) and what set recognizers decided")
    func reloadKeepsControl() throws {
        let rig = Self.rig()
        try rig.pipeline.setClientScene(connection: 3, name: "k", views: try views(LiveControlTests.kiosk), at: 0)
        try rig.pipeline.setEnabled(patterns: ["edge*", "k/swipe"], enabled: false, at: 0)
        rig.pipeline.replace(scene: Scene.builtIn(), at: 1)
        #expect(rig.pipeline.scene.window.subviews.map { $0.name ?? "" } == ["screen", "k/carousel"])
        let disabled = rig.pipeline.recognizers.filter { !$0.isEnabled }.compactMap(\.name)
        #expect(disabled == ["edgeLeft", "edgeRight", "edgeTop", "edgeBottom", "k/swipe"])
        rig.touch(1, 100, 100, at: 2)
        rig.liftAll(at: 2.05)
        rig.pipeline.finish()
        #expect(rig.log == ["gesture k/tap recognized"])     // its swipe disabled: the tap waits for nothing
    }

    @Test("A scene name is one connection's; removing a scene it does not have is an error")
    func clientSceneOwnership() throws {
        let rig = Self.rig()
        let kiosk = try views(LiveControlTests.kiosk)
        try rig.pipeline.setClientScene(connection: 1, name: "k", views: kiosk, at: 0)
        #expect(throws: ClientCommand.Refusal.self) {
            try rig.pipeline.setClientScene(connection: 2, name: "k", views: kiosk, at: 0)
        }
        #expect(throws: ClientCommand.Refusal.self) { try rig.pipeline.setClientScene(connection: 2, name: "other", views: [], at: 0) }
        // Sent again: replaced in place, not doubled.
        try rig.pipeline.setClientScene(connection: 1, name: "k", views: try views(LiveControlTests.kiosk), at: 0)
        #expect(rig.pipeline.scene.window.subviews.count == 2 && rig.pipeline.clientScenes.count == 1)
        try rig.pipeline.setClientScene(connection: 1, name: "k", views: [], at: 0)
        #expect(rig.pipeline.scene.window.subviews.count == 1)
    }

    @Test("The scene line is a scene file: read back, it writes the same line; windowFrame follows transforms")
    func sceneLineRoundTrip() throws {
        let scene = try Scene.parse("""
            {"window": {"width": 800, "height": 600},
             "devices": [{"name": "Wacom*", "rotation": 90, "region": [0, 0, 400, 600]}],
             "views": [{"name": "panel", "frame": [100, 100, 200, 100], "transform": [0, 1, -1, 0, 0, 0],
                        "subviews": [{"name": "knob", "frame": [0, 0, 20, 10], "touchInsets": [-5, -5, -5, -5]}],
                        "recognizers": [{"name": "spin", "type": "rotation", "simultaneousWith": ["squeeze"]},
                                        {"name": "squeeze", "type": "pinch", "enabled": false},
                                        {"name": "press", "type": "longPress", "minimumPressDuration": 0.8, "requireToFail": ["squeeze"]},
                                        {"name": "edge", "type": "screenEdgePan", "edges": ["left", "top"]}]}]}
            """, file: "test")
        let pipeline = Pipeline(scene: scene, log: Logger(program: "test", level: .error))
        try pipeline.setClientScene(connection: 1, name: "k", views: try views(LiveControlTests.kiosk), at: 0)
        let line = try JSONParser.parse(String(decoding: pipeline.sceneLine(), as: UTF8.self))
        #expect(line["event"]?.stringValue == "scene")
        let written = try #require(line["scene"])
        let panel = try #require(written["views"]?.arrayValue?.first)
        // The panel turned a quarter about its center (200, 150): its top-left corner goes to (250, 50).
        let corners = try #require(panel["windowFrame"]?.arrayValue).map { $0.arrayValue!.map { $0.numberValue! } }
        #expect(corners.map { $0.map { ($0 * 1e6).rounded() / 1e6 } } == [[250, 50], [250, 250], [150, 250], [150, 50]])
        #expect(written["views"]?.arrayValue?.last?["clientScene"]?.stringValue == "k")
        // Read back as a scene file, and written again: the same line.
        var w = JSONWriter()
        w.value(written)
        let again = try Scene.parse(String(decoding: w.bytes, as: UTF8.self), file: "scene line")
        let second = Pipeline(scene: again, log: Logger(program: "test", level: .error))
        // Read back, a client scene's views are the file's own: only their mark differs.
        let first = String(decoding: pipeline.sceneLine(), as: UTF8.self).replacing(#""clientScene":"k","#, with: "")
        #expect(String(decoding: second.sceneLine(), as: UTF8.self) == first)
    }

    @Test("Control commands parsed whole", arguments: [
        (#"{"set":{"recognizers":["edge*","tap"],"enabled":false}}"#, ClientCommand.setRecognizers(patterns: ["edge*", "tap"], enabled: false)),
        (#"{"set":{"device":"*","rotation":270}}"#, ClientCommand.setDevice(.all, .init(rotation: .clockwise270))),
        (#"{"set":{"device":2,"flipX":true,"calibration":[1,0,0,0,1,0]}}"#,
         ClientCommand.setDevice(.index(2), .init(flipX: true, calibration: [1, 0, 0, 0, 1, 0]))),
        (#"{"scene":{"name":"k","views":[]}}"#, ClientCommand.scene(name: "k", views: [])),
    ])
    func controlCommands(line: String, command: ClientCommand) throws {
        #expect(try ClientCommand.parse(Array(line.utf8)) == command)
        #expect(command.isControl)
    }

    @Test("Control commands refused whole, naming the culprit", arguments: [
        (#"{"set":{"recognizers":[],"enabled":false}}"#, "set.recognizers: must be a non-empty array"),
        (#"{"set":{"recognizers":["a"]}}"#, "set: missing \"enabled\""),
        (#"{"set":{"recognizers":["a"],"enabled":"no"}}"#, "set.enabled: must be true or false"),
        (#"{"set":{"recognizers":["a"],"enabled":true,"device":0}}"#, "set.device: not with \"recognizers\""),
        (#"{"set":{"device":0,"rotation":45}}"#, "set.rotation: must be 0, 90, 180 or 270"),
        (#"{"set":{"device":-1,"rotation":90}}"#, "set.device: must be a device index"),
        (#"{"set":{"device":0}}"#, "set: nothing to change"),
        (#"{"set":{"device":0,"calibration":[1,2]}}"#, "set.calibration: must be six numbers"),
        (#"{"set":{"device":0,"speed":2}}"#, "set.speed: unknown"),
        (#"{"scene":{"name":"a/b","views":[]}}"#, "scene.name: must be a non-empty string without \"/\""),
        (#"{"scene":{"name":"a"}}"#, "scene: missing \"views\""),
        (#"{"scene":{"name":"a","views":{}}}"#, "scene.views: must be an array"),
        (#"{"scene":{"name":"a","views":[],"window":{}}}"#, "scene.window: unknown key"),
    ])
    func controlRefused(line: String, message: String) {
        do throws(ClientCommand.Refusal) {
            _ = try ClientCommand.parse(Array(line.utf8))
            Issue.record("\(line) was accepted")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test("Who may control: root, the daemon's own user, the control group by primary or supplementary group")
    func controlPolicy() {
        var policy = ControlPolicy(daemonUID: 110)
        #expect(policy.permits(PeerCredentials(pid: 1, uid: 0, gid: 0)))
        #expect(policy.permits(PeerCredentials(pid: 1, uid: 110, gid: 110)))
        #expect(!policy.permits(PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [27])))
        #expect(policy.refusal(of: PeerCredentials(pid: 42, uid: 1000, gid: 1000), command: "set")
            .contains("touchbridged --control-group GROUP (none is set); this connection is uid 1000 (pid 42)"))
        policy.group = (name: "touch", gid: 27)
        #expect(policy.permits(PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [27])))
        #expect(policy.permits(PeerCredentials(pid: 1, uid: 1001, gid: 27)))
        #expect(!policy.permits(PeerCredentials(pid: 1, uid: 1002, gid: 1002, groups: [4])))
    }
}

extension PipelineRig {
    /// A tap at (600, 400): down at `t`, up 50 ms later.
    func tap(at t: Double) {
        touch(1, 600, 400, at: t)
        liftAll(at: t + 0.05)
    }

    /// The recognizer lines so far, as "NAME from→to (reason)".
    var transitions: [String] {
        lines("recognizer").map {
            "\($0["recognizer"]!.stringValue!) \($0["from"]!.stringValue!)→\($0["to"]!.stringValue!)"
                + ($0["reason"]?.stringValue.map { " (\($0))" } ?? "")
        }
    }
}
