import Glibc
import Testing
import TouchCore
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// Strokes in scenes (docs/strokes.md): the keys, an action a shape, the gesture line's shape and score,
/// the scene line read back, bind's "name:shape" keys, and the errors that name their place.
@Suite("Strokes in scenes, actions and bindings")
struct StrokeSceneTests {
    /// `shape` (a built-in one) drawn by finger 1 at 120 Hz, 200 pt wide about (400, 240), from `t`.
    static func draw(_ rig: PipelineRig, _ shape: String, at t: Double) {
        let points = StrokeShapes.templates(.invariant).first { $0.name == shape }!.points
        for (i, p) in Protractor.resample(points, 50).enumerated() {
            rig.touch(1, 300 + p.x * 200, 140 + p.y * 200, at: t + Double(i) / 120)
        }
        rig.liftAll(at: t + 0.5)
    }

    @Test("A stroke's actions, one a shape: a circle types its keys, a Z its own, nothing else acts")
    func actionPerShape() throws {
        let rig = try ActionTests.Rig(#"{"name": "draw", "type": "stroke", "shapes": ["circle", "Z", "check"], "action": [{"keys": "super+l", "on": "circle"}, {"keys": "ctrl+z", "on": "Z"}]}"#,
                                      passthrough: false)
        Self.draw(rig, "circle", at: 1)
        Self.draw(rig, "Z", at: 2)
        Self.draw(rig, "check", at: 3)
        #expect(rig.actions.map { $0["keys"]?.stringValue } == ["super+l", "ctrl+z"])
        let gestures = rig.lines("gesture")
        #expect(gestures.map { $0["shape"]?.stringValue } == ["circle", "Z", "check"])
        #expect(gestures.allSatisfy { ($0["score"]?.numberValue ?? 0) >= StrokeGestureRecognizer.defaultMinimumScore })
        #expect(gestures.allSatisfy { $0["template"]?.arrayValue?.count == 16 && $0["type"]?.stringValue == "stroke" })
        #expect(GestureLine.decode(gestures[0])?.shape == "circle")
    }

    @Test("The scene line reads back as the file it is: templates by name or inline, a list of actions")
    func roundTrip() throws {
        let text = #"""
        {"window": {"width": 800, "height": 480}, "views": [{"name": "v", "frame": [0, 0, 800, 480], "recognizers": [
          {"name": "draw", "type": "stroke", "orientation": "sensitive", "minimumScore": 0.9, "action": [{"keys": "super+l", "on": "arrowLeft"}, {"click": "right", "on": "circle"}]},
          {"name": "mine", "type": "stroke", "templates": {"hook": [[[0, 0], [0, 10], [5, 12]], [[0, 0], [0, 12], [6, 13]]]}, "touches": 2}]}]}
        """#
        let scene = try Scene.parse(text, file: "s.json", systemKeyboard: KeyboardNames())
        let line = try JSONParser.parse(String(decoding: SceneLine.encode(scene, clients: []), as: UTF8.self))
        let recognizers = line["scene"]?["views"]?.arrayValue?.first?["recognizers"]?.arrayValue ?? []
        #expect(recognizers[0]["templates"]?.stringValue == "builtin")
        #expect(recognizers[0]["action"]?.arrayValue?.compactMap { $0["on"]?.stringValue } == ["arrowLeft", "circle"])
        #expect(recognizers[0]["templateNames"]?.arrayValue?.contains(.string("arrowUp")) == true, "orientation-sensitive: four arrows")
        #expect(recognizers[1]["templates"]?["hook"]?.arrayValue?.count == 2)
        var w = JSONWriter()
        w.value(line["scene"]!)
        let again = try Scene.parse(w.string, file: "saved line", systemKeyboard: KeyboardNames())
        let a = again.recognizers.compactMap { $0 as? StrokeGestureRecognizer }, b = scene.recognizers.compactMap { $0 as? StrokeGestureRecognizer }
        #expect(a.map(\.prepared.names) == b.map(\.prepared.names))
        #expect(a.map(\.orientation) == b.map(\.orientation) && a.map(\.numberOfTouchesRequired) == [1, 2] && a[0].minimumScore == 0.9)
        #expect(again.actions.map { $0.action.shape } == ["arrowLeft", "circle"])
    }

    @Test("Errors name their place: a shape no template has, an orientation, a name, a templates file from a peer")
    func errors() throws {
        func error(_ recognizer: String) -> String {
            let text = #"{"window": {"width": 80, "height": 80}, "views": [{"name": "v", "frame": [0, 0, 80, 80], "recognizers": [\#(recognizer)]}]}"#
            do { _ = try Scene.parse(text, file: "s.json", systemKeyboard: KeyboardNames()); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"name": "d", "type": "stroke", "action": {"keys": "a", "on": "circel"}}"#)
            .contains(#"views[0].recognizers[0].action.on: "circel" is no shape of this stroke (did you mean "circle"?)"#))
        #expect(error(#"{"name": "d", "type": "stroke", "shapes": ["cirle"]}"#).contains(#"shapes: "cirle" is no template's name (did you mean "circle"?)"#))
        #expect(error(#"{"name": "d", "type": "stroke", "templates": {"a b": [[[0, 0], [1, 1]]]}}"#).contains("a shape's name has letters, digits and _ only"))
        #expect(error(#"{"name": "d", "type": "stroke", "templates": {"dot": [[[1, 1], [1, 1]]]}}"#).contains("templates.dot[0]: has no length"))
        // A client scene (the socket, a broker) may name no file of the daemon's machine.
        let view: JSON = try JSONParser.parse(#"[{"name": "v", "frame": [0, 0, 80, 80], "recognizers": [{"name": "d", "type": "stroke", "templates": "/etc/shadow"}]}]"#)
        #expect(performing: { _ = try ClientScene.build(name: "c", views: view.arrayValue!, connection: 1, keyboard: KeyboardNames()) },
                throws: { ($0 as? ClientCommand.Refusal)?.message.contains("a templates file is read only from a scene file on disk") == true })
    }

    @Test("A templates file is read beside its scene; a missing one names the file")
    func templatesFile() throws {
        let dir = "/tmp/tb-stroke-\(getpid())"
        mkdir(dir, 0o700)
        defer { _ = unlink("\(dir)/mine.json"); _ = unlink("\(dir)/s.json"); rmdir(dir) }
        try Files.writeText("\(dir)/mine.json", StrokeTemplatesFile.fileText([("hook", [Point(x: 0, y: 0), Point(x: 0, y: 10), Point(x: 5, y: 12)])]))
        try Files.writeText("\(dir)/s.json", #"{"window": {"width": 80, "height": 80}, "views": [{"name": "v", "frame": [0, 0, 80, 80], "recognizers": [{"name": "d", "type": "stroke", "templates": "mine.json"}]}]}"#)
        let s = try Scene.load(path: "\(dir)/s.json", systemKeyboard: KeyboardNames())
        #expect((s.recognizers[0] as? StrokeGestureRecognizer)?.prepared.names == ["hook"])
        try Files.writeText("\(dir)/s.json", #"{"window": {"width": 80, "height": 80}, "views": [{"name": "v", "frame": [0, 0, 80, 80], "recognizers": [{"name": "d", "type": "stroke", "templates": "gone.json"}]}]}"#)
        #expect(performing: { _ = try Scene.load(path: "\(dir)/s.json", systemKeyboard: KeyboardNames()) },
                throws: { "\($0)".contains("\(dir)/gone.json: cannot read the templates (\(dir)/s.json: views[0].recognizers[0].templates)") })
    }

    @Test("bind: \"name:shape\" runs on that shape only; a shape the recognizer lacks, or a tap's, is refused with the names it has")
    func bindings() throws {
        let b = try Bindings.parse(#"{"draw:circle": ["loginctl", "lock-session"], "draw": ["notify-send", "any"], "tap:ended": ["true"]}"#, file: "b.json")
        #expect(b.matches(recognizer: "draw", state: "ended", shape: "circle").count == 2)
        #expect(b.matches(recognizer: "draw", state: "ended", shape: "Z") == [["notify-send", "any"]])
        let scene = try Scene.parse(#"{"window": {"width": 80, "height": 80}, "views": [{"name": "v", "frame": [0, 0, 80, 80], "recognizers": [{"name": "draw", "type": "stroke", "shapes": ["circle", "Z"]}, {"name": "tap", "type": "tap"}]}]}"#,
                                    file: "s.json", systemKeyboard: KeyboardNames())
        try b.check(against: scene, file: "b.json")
        let wrong = try Bindings.parse(#"{"draw:circel": ["true"]}"#, file: "b.json")
        #expect(performing: { try wrong.check(against: scene, file: "b.json") }, throws: { "\($0)".contains(#"draw draws no "circel" (did you mean "circle"?); it draws circle, Z"#) })
        let tap = try Bindings.parse(#"{"tap:circle": ["true"]}"#, file: "b.json")
        #expect(performing: { try tap.check(against: scene, file: "b.json") }, throws: { "\($0)".contains("tap is a tap, which draws no shape") })
    }
}
