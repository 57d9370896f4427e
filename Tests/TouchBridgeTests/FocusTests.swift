import Testing
import TouchCore
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
import TouchClients
import TouchSystem

/// Recognizers that follow the focused app (docs/focus.md, FO1–FO3), on a pipeline without a daemon:
/// a scene with per-app recognizers, a focus told, timestamped frames, one ordered log.
@Suite("Focus: recognizers scoped to the focused app")
struct FocusTests {
    static let scene = """
    {"window": {"width": 1280, "height": 800},
     "views": [{"name": "screen", "frame": [0, 0, 1280, 800], "recognizers": [
       {"name": "browserPan", "type": "pan", "apps": ["firefox", "org.mozilla.*"]},
       {"name": "terminalPan", "type": "pan", "apps": ["foot"]},
       {"name": "otherPan", "type": "pan", "exceptApps": ["firefox", "org.mozilla.*", "foot"]}]}]}
    """

    static func rig() throws -> PipelineRig {
        try PipelineRig(scene) { PipelineRig.gesture($0) }
    }

    static func drag(_ rig: PipelineRig, at t: Double) {
        rig.touch(1, 400, 400, at: t)
        for i in 1...5 { rig.touch(1, 400 + Double(i) * 20, 400, at: t + Double(i) * 0.01) }
        rig.liftAll(at: t + 0.06)
    }

    @Test("Patterns match app ids and X11 classes without regard to case; apps and exceptApps together")
    func patterns() {
        let s = AppScope(apps: ["firefox", "org.mozilla.*"])
        #expect(s.allows("firefox") && s.allows("Firefox") && s.allows("org.mozilla.firefox"))
        #expect(!s.allows("foot") && !s.allows(nil))
        let except = AppScope(exceptApps: ["krita"])
        #expect(except.allows(nil) && except.allows("foot") && !except.allows("Krita"))
        let both = AppScope(apps: ["org.gnome.*"], exceptApps: ["org.gnome.Terminal"])
        #expect(both.allows("org.gnome.Nautilus") && !both.allows("org.gnome.Terminal"))
    }

    @Test("With no focus known only the exceptApps pan takes part; each app's own then")
    func perApp() throws {
        let rig = try Self.rig()
        Self.drag(rig, at: 1)
        rig.pipeline.setFocus(app: "org.mozilla.firefox")
        Self.drag(rig, at: 2)
        rig.pipeline.setFocus(app: "foot")
        Self.drag(rig, at: 3)
        #expect(rig.take() == ["otherPan began", "otherPan changed", "otherPan changed", "otherPan changed", "otherPan changed", "otherPan ended",
                               "browserPan began", "browserPan changed", "browserPan changed", "browserPan changed", "browserPan changed", "browserPan ended",
                               "terminalPan began", "terminalPan changed", "terminalPan changed", "terminalPan changed", "terminalPan changed", "terminalPan ended"])
    }

    @Test("A focus change mid-gesture waits for the last finger to lift (FO2)")
    func midGesture() throws {
        let rig = try Self.rig()
        rig.pipeline.setFocus(app: "firefox")
        rig.touch(1, 400, 400, at: 1)
        for i in 1...3 { rig.touch(1, 400 + Double(i) * 20, 400, at: 1 + Double(i) * 0.01) }
        rig.pipeline.setFocus(app: "foot")
        for i in 4...6 { rig.touch(1, 400 + Double(i) * 20, 400, at: 1 + Double(i) * 0.01) }
        rig.liftAll(at: 1.1)
        #expect(rig.take().allSatisfy { $0.hasPrefix("browserPan") })
        #expect(rig.pipeline.focusedApp == "foot")
        Self.drag(rig, at: 2)
        #expect(rig.take().first == "terminalPan began")
    }

    @Test("A scoped recognizer disabled by set recognizers stays disabled in its app; enabled again, it follows its scope")
    func withEnabled() throws {
        let rig = try Self.rig()
        try rig.pipeline.setEnabled(patterns: ["browserPan"], enabled: false, at: 0)
        rig.pipeline.setFocus(app: "firefox")
        Self.drag(rig, at: 1)
        #expect(rig.take() == [])
        try rig.pipeline.setEnabled(patterns: ["browserPan"], enabled: true, at: 1.5)
        Self.drag(rig, at: 2)
        #expect(rig.take().first == "browserPan began")
    }

    @Test("The scene line says each scope and whether it is in scope now, and reads back as the file it is")
    func sceneLine() throws {
        let rig = try Self.rig()
        rig.pipeline.setFocus(app: "foot")
        let line = try JSONParser.parse(String(decoding: rig.pipeline.sceneLine(), as: UTF8.self))
        let recognizers = line["scene"]?["views"]?.arrayValue?.first?["recognizers"]?.arrayValue ?? []
        #expect(recognizers.map { $0["inScope"]?.boolValue } == [false, true, false])
        #expect(recognizers[0]["apps"]?.arrayValue?.compactMap { $0.stringValue } == ["firefox", "org.mozilla.*"])
        #expect(recognizers[2]["exceptApps"]?.arrayValue?.count == 3)
        var w = JSONWriter()
        w.value(line["scene"]!)
        let again = try Scene.parse(w.string, file: "saved line", passthrough: false, systemKeyboard: KeyboardNames())
        #expect(again.scopes.map(\.scope) == (try Scene.parse(Self.scene, file: "f", passthrough: false, systemKeyboard: KeyboardNames())).scopes.map(\.scope))
    }

    @Test("An empty pattern is an error naming its path; an empty list a warning")
    func errors() {
        #expect(performing: {
            try Scene.parse(#"{"window":{"width":10,"height":10},"views":[{"name":"v","frame":[0,0,10,10],"recognizers":[{"name":"t","type":"tap","apps":[""]}]}]}"#,
                            file: "f", passthrough: false, systemKeyboard: KeyboardNames())
        }, throws: { "\($0)".contains("views[0].recognizers[0].apps[0]: must not be empty") })
        let s = try? Scene.parse(#"{"window":{"width":10,"height":10},"views":[{"name":"v","frame":[0,0,10,10],"recognizers":[{"name":"t","type":"tap","apps":[]}]}]}"#,
                                 file: "f", passthrough: false, systemKeyboard: KeyboardNames())
        #expect(s?.warnings.contains { $0.contains("an empty list is no scope") } == true)
    }

    @Test("set focus reads and writes back; a wrong focus is refused with the remedy")
    func command() throws {
        for c in [ClientCommand.setFocus(Focus(app: "firefox", title: "Mozilla Firefox", source: "sway", whileConnected: true)),
                  .setFocus(Focus(app: "foot")), .setFocus(nil)] {
            #expect(try ClientCommand.parse(c.line) == c)
            #expect(c.isControl && c.name == "set")
        }
        for (line, message) in [(#"{"set":{"focus":{"title":"x"}}}"#, "missing \"app\""),
                                (#"{"set":{"focus":{"app":"a","colour":"red"}}}"#, "set.focus.colour: unknown"),
                                (#"{"set":{"focus":{"app":"a"},"display":"on"}}"#, "not with \"focus\""),
                                (#"{"set":{"focus":"firefox"}}"#, "must be {\"app\""),
                                ("{\"set\":{\"focus\":{\"app\":\"" + String(repeating: "a", count: 300) + "\"}}}", "at most 256 bytes")] {
            #expect(performing: { _ = try ClientCommand.parse(Array(line.utf8)) }, throws: { ($0 as? ClientCommand.Refusal)?.message.contains(message) == true })
        }
        let line = FocusLine.encode(Focus(app: "foot", title: "~", source: "sway"), time: 2)
        #expect(FocusLine.decode(try JSONParser.parse(String(decoding: line, as: UTF8.self))) == FocusLine.Decoded(time: 2, app: "foot", title: "~", source: "sway"))
        #expect(FocusLine.decode(try JSONParser.parse(String(decoding: FocusLine.encode(nil, time: 3), as: UTF8.self)))?.app == nil)
    }

    @Test("listen has a flag for every topic but gestures (the focus topic's, --focus, among them)")
    func listenFlags() {
        let flags = Set(Ctl.listen.spec.options.filter { $0.value == nil }.map(\.name))
        #expect(flags == Set(Topics.names.filter { $0 != "gestures" }))
    }

    static let drawingScene = """
    {"window": {"width": 800, "height": 480},
     "devices": [{"passthrough": true, "passthroughApps": ["krita", "com.github.xournalpp.*"]}],
     "views": [{"name": "screen", "frame": [0, 0, 800, 480], "recognizers": [{"name": "pan", "type": "pan"}]}]}
    """

    @Test("While a passthroughApps app is focused the device's touches reach no recognizer, and the mirror hears every one (FO3)")
    func passthroughApps() throws {
        let rig = try PipelineRig(Self.drawingScene)
        rig.pipeline.setDeviceConfig(rig.scene.devices[0], device: 0)
        rig.passThrough()
        /// A drag in device units (the panel is the window, 1:1): down, five moves of 20, up. Each starts
        /// at x = 100 t, on the row y = 400 (which the mirror writes once: "-1" is a value not written again).
        func drag(at t: Double) {
            let x = Int32(t) * 100
            rig.down(0, x, 400); rig.frame(t)
            for i in 1...5 { rig.move(0, x + Int32(i) * 20, 400); rig.frame(t + Double(i) * 0.01) }
            rig.up(0); rig.frame(t + 0.06)
        }
        rig.pipeline.setFocus(app: "firefox")
        drag(at: 1)
        #expect(rig.take().first == "pan began")
        #expect(rig.mirror() == ["@1.0 down 0 (100,400)", "@1.01 cancel 0"], "the pan claimed the touch: cancelled on the mirror")
        rig.pipeline.setFocus(app: "com.github.xournalpp.Xournalpp")
        drag(at: 2)
        #expect(rig.take() == [])
        #expect(rig.mirror() == ["@2.0 down 0 (200,-1)", "@2.01 move 0 (220,_)", "@2.02 move 0 (240,_)", "@2.03 move 0 (260,_)",
                                 "@2.04 move 0 (280,_)", "@2.05 move 0 (300,_)", "@2.06 up 0"], "the app hears every touch")
        // The scene line says which devices pass to the app; the entry's list reads back.
        let line = try JSONParser.parse(String(decoding: rig.pipeline.sceneLine(), as: UTF8.self))
        #expect(line["passthroughDevices"]?.arrayValue?.compactMap(\.intValue) == [0])
        #expect(line["scene"]?["devices"]?.arrayValue?.first?["passthroughApps"]?.arrayValue?.compactMap(\.stringValue) == ["krita", "com.github.xournalpp.*"])
        var w = JSONWriter()
        w.value(line["scene"]!)
        #expect(try Scene.parse(w.string, file: "saved line", passthrough: false, systemKeyboard: KeyboardNames()).devices == rig.scene.devices)
        // Back in the browser: the pan again, and the line says no device passes.
        rig.pipeline.setFocus(app: "firefox")
        drag(at: 3)
        #expect(rig.take().first == "pan began")
        #expect(try JSONParser.parse(String(decoding: rig.pipeline.sceneLine(), as: UTF8.self))["passthroughDevices"] == nil)
    }

    @Test("A passthroughApps app focused mid-pan: the pan finishes as it began; the next touches are the app's (FO2, FO3)")
    func passthroughAppMidGesture() throws {
        let rig = try PipelineRig(Self.drawingScene)
        rig.pipeline.setDeviceConfig(rig.scene.devices[0], device: 0)
        rig.pipeline.setFocus(app: "firefox")
        rig.touch(1, 400, 400, at: 1)
        for i in 1...3 { rig.touch(1, 400 + Double(i) * 20, 400, at: 1 + Double(i) * 0.01) }
        rig.pipeline.setFocus(app: "krita")
        for i in 4...6 { rig.touch(1, 400 + Double(i) * 20, 400, at: 1 + Double(i) * 0.01) }
        rig.liftAll(at: 1.1)
        #expect(rig.take() == ["pan began", "pan changed", "pan changed", "pan changed", "pan changed", "pan changed", "pan ended"])
        Self.drag(rig, at: 2)
        #expect(rig.take() == [])
    }

    @Test("passthroughApps with pass-through off is a warning (nothing to pass through); an empty pattern an error")
    func passthroughAppsChecks() throws {
        let off = try Scene.parse(#"{"window":{"width":10,"height":10},"devices":[{"passthroughApps":["krita"]}],"views":[]}"#,
                                  file: "f", passthrough: false, systemKeyboard: KeyboardNames())
        #expect(off.warnings.contains { $0.contains("devices[0].passthroughApps: pass-through is off for this device, so there is nothing to pass through") })
        let on = try Scene.parse(#"{"window":{"width":10,"height":10},"devices":[{"passthroughApps":["krita"]}],"views":[]}"#,
                                 file: "f", passthrough: true, systemKeyboard: KeyboardNames())
        #expect(on.warnings.isEmpty, "--passthrough passes every device through")
        #expect(performing: {
            try Scene.parse(#"{"window":{"width":10,"height":10},"devices":[{"passthrough":true,"passthroughApps":["krita",""]}],"views":[]}"#,
                            file: "f", passthrough: false, systemKeyboard: KeyboardNames())
        }, throws: { "\($0)".contains("devices[0].passthroughApps[1]: must not be empty") })
    }
}
