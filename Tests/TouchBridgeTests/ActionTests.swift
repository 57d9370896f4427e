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

/// Actions as scripts (README "Actions", uikit-semantics AC1–AC8): a scene with actions, a panel's
/// frames through the daemon's pipeline, and one ordered log of everything written — the mirror's
/// touches, the keyboard's keys, the pointer's motion, buttons and wheel — and of the action lines.
@Suite("Actions: keys in the user's layout, clicks where the finger is, scrolling and zoom")
struct ActionTests {
    // MARK: Keysyms through layouts (AC2)

    static func codes(_ chord: String, _ layout: String) throws -> [String] {
        let l = try KeyboardLayout.compiled(KeyboardNames(layout: layout))
        return try KeyChord.resolve(chord) { () throws(KeyboardError) in l }.codeNames
    }

    @Test("us: chords type the keys a US keyboard has them on")
    func usLayout() throws {
        #expect(try Self.codes("super+Left", "us") == ["KEY_LEFTMETA", "KEY_LEFT"])
        #expect(try Self.codes("ctrl+z", "us") == ["KEY_LEFTCTRL", "KEY_Z"])
        #expect(try Self.codes("at", "us") == ["KEY_LEFTSHIFT", "KEY_2"])
        #expect(try Self.codes("ctrl+shift+T", "us") == ["KEY_LEFTCTRL", "KEY_LEFTSHIFT", "KEY_T"])
        #expect(try Self.codes("Page_Up", "us") == ["KEY_PAGEUP"])
        #expect(try Self.codes("F11", "us") == ["KEY_F11"])
        #expect(try Self.codes("XF86AudioRaiseVolume", "us") == ["KEY_VOLUMEUP"])
        #expect(try Self.codes("alt+KEY_TAB", "us") == ["KEY_LEFTALT", "KEY_TAB"])   // a kernel name as it is
        #expect(try Self.codes("super", "us") == ["KEY_LEFTMETA"])                   // a modifier alone
    }

    @Test("de: ctrl+z arrives as KEY_Y with ctrl, at as AltGr+Q")
    func germanLayout() throws {
        #expect(try Self.codes("ctrl+z", "de") == ["KEY_LEFTCTRL", "KEY_Y"])
        #expect(try Self.codes("at", "de") == ["KEY_RIGHTALT", "KEY_Q"])
        #expect(try Self.codes("y", "de") == ["KEY_Z"])
        #expect(try Self.codes("adiaeresis", "de") == ["KEY_APOSTROPHE"])
        let euro = try Self.codes("EuroSign", "de")
        #expect(euro == ["KEY_RIGHTALT", "KEY_E"], "\(euro)")
    }

    @Test("fr: AZERTY's letters, shifted digits and AltGr")
    func frenchLayout() throws {
        #expect(try Self.codes("ctrl+z", "fr") == ["KEY_LEFTCTRL", "KEY_W"])
        #expect(try Self.codes("a", "fr") == ["KEY_Q"])
        #expect(try Self.codes("1", "fr") == ["KEY_LEFTSHIFT", "KEY_1"])
        #expect(try Self.codes("at", "fr") == ["KEY_RIGHTALT", "KEY_0"])
    }

    @Test("Two layouts (\"ru,us\"): a keysym of the second group is typed with its key; the first group wins where both have it")
    func layoutGroups() throws {
        // Cyrillic first, as a Russian desktop with English beside it has them: ctrl+c is KEY_C.
        #expect(try Self.codes("ctrl+c", "ru,us") == ["KEY_LEFTCTRL", "KEY_C"])
        #expect(try Self.codes("Cyrillic_es", "ru,us") == ["KEY_C"])
        #expect(try Self.codes("super+Left", "ru,us") == ["KEY_LEFTMETA", "KEY_LEFT"])
        // The first group decides where both have the keysym: "1" shifted on AZERTY, not the us key.
        #expect(try Self.codes("1", "fr,us") == ["KEY_LEFTSHIFT", "KEY_1"])
        #expect(try Self.codes("ctrl+z", "de,us") == ["KEY_LEFTCTRL", "KEY_Y"])
        // Greek alone has no Latin c: the error names the layout and how to add a second one.
        let gr = try KeyboardLayout.compiled(KeyboardNames(layout: "gr"))
        do {
            _ = try KeyChord.resolve("ctrl+c") { () throws(KeyboardError) in gr }
            Issue.record("gr typed a Latin c")
        } catch {
            #expect(error.description.contains(#"the keyboard layout "gr" cannot type "c""#))
            #expect(error.description.contains(#""gr,us""#))
        }
    }

    @Test("A layout's options count: with ctrl:swapcaps, ctrl is the Caps Lock key")
    func layoutOptions() throws {
        let l = try KeyboardLayout.compiled(KeyboardNames(layout: "us", options: "ctrl:swapcaps"))
        #expect(try KeyChord.resolve("ctrl+c") { () throws(KeyboardError) in l }.codeNames == ["KEY_CAPSLOCK", "KEY_C"])
    }

    @Test("Unknown keys, keysyms a layout lacks and unknown layouts are errors that say what to do")
    func keyErrors() throws {
        let us = try KeyboardLayout.compiled(KeyboardNames(layout: "us"))
        func message(_ chord: String) -> String {
            do { _ = try KeyChord.resolve(chord) { () throws(KeyboardError) in us }; return "" } catch { return error.description }
        }
        #expect(message("ctrl+Lefft").contains(#"unknown key "Lefft" (did you mean "Left"?)"#))
        #expect(message("page_up").contains(#"(did you mean "Page_Up"?)"#))
        // From the keysym names, without case or underscores: not the keysym "lf" for "Lft".
        #expect(message("alt+Lft").contains(#"unknown key "Lft" (did you mean "Left"?)"#))
        #expect(message("pageup").contains(#"(did you mean "Page_Up"?)"#))
        #expect(message("PAGEDOWN").contains(#"(did you mean "Page_Down"?)"#))
        #expect(message("Escpe").contains(#"(did you mean "Escape"?)"#))
        #expect(message("adiaeresis").contains(#"the keyboard layout "us" cannot type "adiaeresis""#))
        #expect(message("crtl+c").contains(#"unknown modifier "crtl" in "ctrl+c"#) || message("crtl+c").contains(#"(did you mean "ctrl"?)"#))
        #expect(message("ctrl++").contains(#"the + key is "plus""#))
        #expect(message("altgr+a").contains("has no altgr key"))
        #expect(throws: KeyboardError.self) { try KeyboardLayout.compiled(KeyboardNames(layout: "xx-nonexistent")) }
        // A name xkb could take for a path is refused before xkbcommon looks for a file by it.
        do { _ = try KeyboardLayout.compiled(KeyboardNames(layout: "../../etc/passwd")); Issue.record("accepted a path") } catch {
            #expect(error.description.contains(#"the keyboard layout "../../etc/passwd" has ".""#))
        }
    }

    @Test("The system's layout comes from /etc/default/keyboard's XKB* lines, else us")
    func systemKeyboard() throws {
        let path = "/tmp/tb-keyboard-\(getpid())"
        try Files.writeText(path, "# KEYBOARD CONFIGURATION FILE\nXKBMODEL=\"pc105\"\nXKBLAYOUT=\"de\"\nXKBVARIANT=\"nodeadkeys\"\nXKBOPTIONS=\"\"\nBACKSPACE=\"guess\"\n")
        defer { unlink(path) }
        #expect(KeyboardNames.system(file: path) == KeyboardNames(layout: "de", variant: "nodeadkeys"))
        #expect(KeyboardNames.system(file: "/nonexistent") == KeyboardNames(layout: "us"))
    }

    // MARK: Scene syntax

    static func sceneError(_ recognizer: String, keyboard: String = "") -> String {
        let text = #"{"window": {"width": 800, "height": 480}, \#(keyboard) "views": [{"name": "v", "frame": [0, 0, 800, 480], "recognizers": [\#(recognizer)]}]}"#
        do { _ = try Scene.parse(text, file: "s.json", systemKeyboard: KeyboardNames()); return "" } catch { return "\(error)" }
    }

    @Test("Bad actions are scene errors with the file, the JSON path and a did-you-mean")
    func sceneErrors() {
        #expect(Self.sceneError(#"{"name": "t", "type": "tap", "action": {"scroll": {}}}"#)
                == "s.json:1: views[0].recognizers[0].action.scroll: scrolls only on a pan or a screenEdgePan (a tap has no translation to scroll by)")
        #expect(Self.sceneError(#"{"name": "t", "type": "tap", "action": {"keys": "ctrl+Lefft"}}"#).hasPrefix(
            #"s.json:1: views[0].recognizers[0].action.keys: unknown key "Lefft" (did you mean "Left"?)"#))
        #expect(Self.sceneError(#"{"name": "t", "type": "tap", "action": {"keys": ["ctrl+c", "adiaeresis"]}}"#).hasPrefix(
            #"s.json:1: views[0].recognizers[0].action.keys[1]: the keyboard layout "us" cannot type "adiaeresis""#))
        #expect(Self.sceneError(#"{"name": "t", "type": "tap", "action": {"keys": "adiaeresis"}}"#, keyboard: #""keyboard": {"layout": "de"},"#) == "")
        #expect(Self.sceneError(#"{"name": "p", "type": "pan", "action": {"scroll": {"pointsPerNotch": 40, "natrual": false}}}"#)
                .contains(#"action.scroll.natrual: unknown key "natrual" (did you mean "natural"?)"#))
        #expect(Self.sceneError(#"{"name": "p", "type": "pinch", "action": {"click": "rigth"}}"#)
                .contains(#"unknown button "rigth" (did you mean "right"?)"#))
        #expect(Self.sceneError(#"{"name": "p", "type": "tap", "action": {"click": "right", "on": "began"}}"#)
                .contains(#"a tap is discrete: it acts when "recognized""#))
        #expect(Self.sceneError(#"{"name": "p", "type": "pan", "action": {"zoom": {}}}"#).contains("zooms only on a pinch"))
        #expect(Self.sceneError(#"{"name": "p", "type": "tap", "action": {"keys": "a", "click": "left"}}"#).contains("one action per recognizer"))
        #expect(Self.sceneError(#"{"name": "p", "type": "tap", "actoin": {"keys": "a"}}"#).contains(#"(did you mean "action"?)"#))
        #expect(Self.sceneError("", keyboard: #""keyboard": {"layout": "xx-nonexistent"},"#).contains("keyboard: the keyboard layout \"xx-nonexistent\" does not compile"))
    }

    @Test("A scene line writes actions and the keyboard back, and reads back the same")
    func sceneLineRoundTrip() throws {
        let text = #"{"window": {"width": 800, "height": 480}, "keyboard": {"layout": "de"}, "devices": [{"name": "P*", "pointerArea": [0.5, 0, 0.5, 1]}], "views": [{"name": "v", "frame": [0, 0, 800, 480], "recognizers": [{"name": "menu", "type": "longPress", "action": {"click": "right"}}, {"name": "undo", "type": "swipe", "direction": ["left"], "action": {"keys": ["ctrl+z", "at"]}}, {"name": "scroll", "type": "pan", "action": {"scroll": {"deceleration": "fast"}}}, {"name": "zoom", "type": "pinch", "action": {"zoom": {"step": 1.25}}}, {"name": "end", "type": "pan", "action": {"click": "middle", "count": 2, "on": "ended"}}]}], "pencilButtons": {"2": {"keys": "ctrl+c"}}}"#
        let scene = try Scene.parse(text, file: "s", systemKeyboard: KeyboardNames())
        let line = try JSONParser.parse(String(decoding: SceneLine.encode(scene, clients: []), as: UTF8.self))
        var w = JSONWriter()
        w.value(line["scene"]!)
        let again = try Scene.parse(w.string, file: "again", systemKeyboard: KeyboardNames())
        #expect(again.actions.map(\.action) == scene.actions.map(\.action))
        #expect(scene.actions.count == 5)
        #expect(again.pencilButtonActions == scene.pencilButtonActions && again.pencilButtonActions[2] != nil)
        #expect(again.keyboardLayout == KeyboardNames(layout: "de"))
        #expect(again.devices[0].pointerArea == Rect(x: 0.5, y: 0, width: 0.5, height: 1))
    }

    // MARK: The pipeline

    /// Every device's writes in one ordered log.
    final class Log {
        var entries: [String] = []
    }

    /// A sink that describes each write as one log entry: "pointer: ABS_X 16384 ABS_Y 8192 | BTN_RIGHT 1 | BTN_RIGHT 0".
    final class DescribingSink: MirrorSink {
        let name: String
        let log: Log
        var fails = false
        init(_ name: String, _ log: Log) { self.name = name; self.log = log }
        func write(_ events: UnsafeBufferPointer<input_event>) throws {
            if fails { throw UinputError.writing(name: name, errno: ENODEV) }
            var reports: [String] = [], current: [String] = []
            for e in events {
                if e.type == UInt16(EV_SYN) { reports.append(current.joined(separator: " ")); current = []; continue }
                let n = libevdev_event_code_get_name(UInt32(e.type), UInt32(e.code)).map { String(cString: $0) } ?? "\(e.code)"
                current.append("\(n) \(e.value)")
            }
            log.entries.append("\(name): " + reports.joined(separator: " | "))
        }
    }

    /// A sink for the mirror: "mirror: down/move/cancel/up".
    final class MirrorLogSink: MirrorSink {
        let log: Log
        init(_ log: Log) { self.log = log }
        func write(_ events: UnsafeBufferPointer<input_event>) throws {
            var parts: [String] = []
            var palm = false
            for e in events where e.type == UInt16(EV_ABS) {
                if e.code == UInt16(ABS_MT_TOOL_TYPE) { palm = e.value == 2 }
                if e.code == UInt16(ABS_MT_TRACKING_ID) { parts.append(e.value >= 0 ? "down" : (palm ? "cancel" : "up")) }
            }
            log.entries.append("mirror: " + (parts.isEmpty ? "move" : parts.joined(separator: " ")))
        }
    }

    /// The pipeline with its action devices (and, with `passthrough`, the mirror) writing into one
    /// ordered log, `writes`; `actions` are the action lines.
    final class Rig: PipelineRig {
        let writes = Log()
        let keyboard: DescribingSink, pointer: DescribingSink, touchpad: DescribingSink
        var failures: [String] = []

        init(_ recognizers: String, passthrough: Bool = true, devices: String = "", layout: String = "") throws {
            let scene = try Scene.parse(#"{"window": {"width": 800, "height": 480}, \#(layout) \#(devices) "views": [{"name": "v", "frame": [0, 0, 800, 480], "multipleTouchEnabled": true, "recognizers": [\#(recognizers)]}]}"#,
                                        file: "test scene", passthrough: passthrough, systemKeyboard: KeyboardNames())
            keyboard = DescribingSink("keyboard", writes)
            pointer = DescribingSink("pointer", writes)
            touchpad = DescribingSink("touchpad", writes)
            super.init(scene: scene)
            if passthrough { passThrough(to: MirrorLogSink(writes)) }
            pipeline.setDeviceConfig(scene.deviceConfig(for: DeviceInfo(devnode: "", name: "Test Panel")), device: 0)
            pipeline.startActions(Actions(devices: ActionDevices(keyboard: keyboard, pointer: pointer, touchpad: touchpad), log: pipeline.log)) { [unowned self] e in
                failures.append("\(e)")
            }
        }

        var actions: [JSON] { lines("action") }

        func flickDown() {
            down(0, 400, 100); frame(1.0)
            for i in 1...10 { move(0, 400, 100 + Int32(i) * 12); frame(1.0 + Double(i) * 0.01) }
            up(0); frame(1.11)
        }

        /// What was written since the last look.
        func written() -> [String] {
            defer { writes.entries = [] }
            return writes.entries
        }
        /// The sum of the action lines' field `key` (scroll's dx, dy) with `state`, or of all.
        func sum(_ key: String, state: String? = nil) -> Int {
            actions.filter { state == nil || $0["state"]?.stringValue == state }.reduce(0) { $0 + Int($1[key]?.numberValue ?? 0) }
        }
    }

    @Test("AC3, AC7: a long press right-clicks where the finger is, after the mirror lost the touch; no left button, ever")
    func longPressRightClick() throws {
        let rig = try Rig(#"{"name": "menu", "type": "longPress", "action": {"click": "right"}}"#)
        rig.down(0, 200, 120); rig.frame(1.0)
        rig.pipeline.advance(to: 1.6)                           // 0.5 s: the press is long
        // 200/800 and 120/480 of the desktop, on 0…32767.
        #expect(rig.written() == ["mirror: down", "mirror: cancel",
                                  "pointer: ABS_X 8192 ABS_Y 8192 | BTN_RIGHT 1 | BTN_RIGHT 0"])
        rig.up(0); rig.frame(2.0)
        #expect(rig.written() == [])                            // the lift: nothing for the app, no second click
        #expect(rig.actions.count == 1)
        let l = rig.actions[0]
        #expect(l["event"]?.stringValue == "action" && l["recognizer"]?.stringValue == "menu" && l["state"]?.stringValue == "began")
        #expect(l["action"]?.stringValue == "click" && l["button"]?.stringValue == "right")
        #expect(l["x"]?.numberValue == 200 && l["y"]?.numberValue == 120 && l["device"]?.numberValue == 0 && l["time"]?.numberValue == 1.5)
    }

    @Test("AC2: a swipe types its chords in order, each pressed and released whole, on the keyboard")
    func swipeKeys() throws {
        let rig = try Rig(#"{"name": "copyPaste", "type": "swipe", "direction": ["left"], "action": {"keys": ["ctrl+c", "super+Left"]}}"#,
                          passthrough: false)
        rig.down(0, 600, 240); rig.frame(1.0)
        for i in 1...6 { rig.move(0, 600 - Int32(i) * 30, 240); rig.frame(1.0 + Double(i) * 0.016) }
        rig.up(0); rig.frame(1.2)
        #expect(rig.written() == ["keyboard: KEY_LEFTCTRL 1 | KEY_C 1 | KEY_C 0 | KEY_LEFTCTRL 0 | KEY_LEFTMETA 1 | KEY_LEFT 1 | KEY_LEFT 0 | KEY_LEFTMETA 0"])
        #expect(rig.actions.map { $0["keys"]?.stringValue ?? "" } == ["ctrl+c", "super+Left"])
        #expect(rig.actions[0]["codes"]?.arrayValue?.compactMap(\.stringValue) == ["KEY_LEFTCTRL", "KEY_C"])
        #expect(rig.actions[0]["state"]?.stringValue == "recognized")
    }

    @Test("AC1: \"on\": \"ended\" acts when a continuous gesture ends, not when it is cancelled")
    func onEnded() throws {
        let rig = try Rig(#"{"name": "menu", "type": "longPress", "action": {"keys": "Escape", "on": "ended"}}"#, passthrough: false)
        rig.down(0, 200, 120); rig.frame(1.0)
        rig.pipeline.advance(to: 1.6)
        #expect(rig.written() == [])
        rig.up(0); rig.frame(2.0)
        #expect(rig.written() == ["keyboard: KEY_ESC 1 | KEY_ESC 0"])
        rig.down(0, 200, 120); rig.frame(3.0)
        rig.pipeline.advance(to: 3.6)
        try rig.pipeline.setEnabled(patterns: ["menu"], enabled: false, at: 3.7)    // cancelled
        rig.up(0); rig.frame(4.0)
        #expect(rig.written() == [])
    }

    @Test("AC4: a pan scrolls in hi-res units, a notch each 120, the content following the finger")
    func scrollNotches() throws {
        let rig = try Rig(#"{"name": "scroll", "type": "pan", "action": {"scroll": {"deceleration": "none"}}}"#, passthrough: false)
        rig.down(0, 400, 100); rig.frame(1.0)
        rig.move(0, 400, 120); rig.frame(1.016)                 // began (past the pan's 10 pt)
        #expect(rig.written() == ["pointer: ABS_X 16384 ABS_Y 7509"])    // where the pan began: 110 pt (120 − its translation)
        for i in 1...10 { rig.move(0, 400, 120 + Int32(i) * 10); rig.frame(1.016 + Double(i) * 0.016) }
        rig.up(0); rig.frame(1.3)
        // 100 pt down at 50 pt a notch: 240 hi-res units up, two whole notches.
        #expect(rig.sum("dy") == 240 && rig.sum("dx") == 0)
        let w = rig.written()
        #expect(w.count == 10)
        #expect(w.filter { $0.contains("REL_WHEEL 1") }.count == 2)
        #expect(w[0] == "pointer: REL_WHEEL_HI_RES 24")
        #expect(!w.contains { $0.contains("BTN_") })
    }

    @Test("AC4: without natural scrolling, a finger moving right scrolls right")
    func scrollNotNatural() throws {
        let rig = try Rig(#"{"name": "scroll", "type": "pan", "action": {"scroll": {"natural": false, "pointsPerNotch": 20, "deceleration": "none"}}}"#, passthrough: false)
        rig.down(0, 100, 100); rig.frame(1.0)
        for i in 1...5 { rig.move(0, 100 + Int32(i) * 10, 100); rig.frame(1.0 + Double(i) * 0.016) }
        rig.up(0); rig.frame(1.2)
        #expect(rig.sum("dx") == 240)                            // 50 pt − the 10 that began it = 40 pt, 2 notches
        #expect(rig.sum("dy") == 0)
    }

    @Test("AC5: UIScrollView's deceleration: the whole travel is v₀/1000 · d/(1−d), then it rests")
    func decelerationMath() {
        let normal = ScrollDeceleration(velocity: Point(x: 0, y: 1000), rate: 0.998, start: 0)
        #expect(Swift.abs(normal.distance.y - 499) < 1e-9)
        #expect(Swift.abs(normal.offset(at: 0.001).y - 0.998) < 1e-9)         // the first millisecond
        #expect(Swift.abs(normal.offset(at: 1).y - 499 * (1 - pow(0.998, 1000))) < 1e-6)
        let fast = ScrollDeceleration(velocity: Point(x: -2000, y: 0), rate: 0.99, start: 5)
        #expect(Swift.abs(fast.distance.x + 198) < 1e-9)
        #expect(!fast.isAtRest(at: 5.2, within: 0.5) && fast.isAtRest(at: 5.7, within: 0.5))
    }

    @Test("AC5: after the lift the scroll coasts as UIScrollView does, and its lines say coasting")
    func coasting() throws {
        let rig = try Rig(#"{"name": "scroll", "type": "pan", "action": {"scroll": {}}}"#, passthrough: false)
        rig.flickDown()
        let followed = rig.sum("dy", state: "changed") + rig.sum("dy", state: "ended")
        let v = rig.actions.last.map { _ in 0 } ?? 0
        _ = v
        #expect(rig.pipeline.nextDeadline != nil)
        rig.pipeline.finish()
        let coasted = rig.sum("dy", state: "coasting")
        // The lift velocity was 1200 pt/s down: the content coasts 1200/1000 · 0.998/0.002 = 598.8 pt,
        // 1437 hi-res units at 50 pt a notch (to within one unit: fractions carry over).
        #expect(Swift.abs(Double(coasted) - 598.8 * 120 / 50) <= 1.5, "coasted \(coasted)")
        #expect(followed > 0 && coasted > 0)
        #expect(rig.pipeline.nextDeadline == nil)
        let times = rig.actions.filter { $0["state"]?.stringValue == "coasting" }.compactMap { $0["time"]?.numberValue }
        #expect(times.first! > 1.11 && times.last! < 1.11 + 10)
    }

    @Test("AC5: a finger landing anywhere stops the coasting at once")
    func landingStopsCoasting() throws {
        let rig = try Rig(#"{"name": "scroll", "type": "pan", "action": {"scroll": {}}}"#, passthrough: false)
        rig.flickDown()
        rig.pipeline.advance(to: 1.3)
        #expect(rig.pipeline.nextDeadline != nil)
        rig.down(1, 50, 50); rig.frame(1.305)
        let before = rig.actions.count
        #expect(rig.pipeline.nextDeadline == nil)
        rig.pipeline.advance(to: 3)
        #expect(rig.actions.count == before)
    }

    @Test("AC5: disabling the recognizer and unplugging its device stop the coasting")
    func disabledAndUnpluggedStopCoasting() throws {
        for stop in ["disable", "unplug"] {
            let rig = try Rig(#"{"name": "scroll", "type": "pan", "action": {"scroll": {}}}"#, passthrough: false)
            rig.flickDown()
            rig.pipeline.advance(to: 1.2)
            if stop == "disable" { try rig.pipeline.setEnabled(patterns: ["scroll"], enabled: false, at: 1.2) }
            else { rig.pipeline.setDeviceConfig(nil, device: 0) }
            let before = rig.actions.count
            rig.pipeline.finish()
            #expect(rig.actions.count <= before + 1, "\(stop)")
            #expect(rig.pipeline.nextDeadline == nil)
        }
    }

    @Test("AC5: a scene reload (SIGHUP) stops the coasting; the new scene's actions take over")
    func reloadStopsCoasting() throws {
        let rig = try Rig(#"{"name": "scroll", "type": "pan", "action": {"scroll": {}}}"#, passthrough: false)
        rig.flickDown()
        rig.pipeline.advance(to: 1.2)
        let next = try Scene.parse(#"{"window": {"width": 800, "height": 480}, "views": [{"name": "v", "frame": [0, 0, 800, 480], "recognizers": [{"name": "menu", "type": "longPress", "action": {"keys": "Escape"}}]}]}"#,
                                   file: "reloaded", systemKeyboard: KeyboardNames())
        rig.pipeline.replace(scene: next, at: 1.2)
        #expect(rig.pipeline.nextDeadline == nil)
        let before = rig.actions.count
        rig.down(0, 200, 120); rig.frame(2.0)
        rig.pipeline.advance(to: 2.6)
        #expect(rig.actions.count == before + 1 && rig.actions.last?["keys"]?.stringValue == "Escape")
    }

    @Test("AC6: a pinch zooms with ctrl + one notch each time the scale crosses a step")
    func zoomSteps() throws {
        let rig = try Rig(#"{"name": "zoom", "type": "pinch", "action": {"zoom": {}}}"#, passthrough: false)
        rig.down(0, 350, 240); rig.down(1, 450, 240); rig.frame(1.0)
        // The fingers spread to 1.5× their distance at began, in small steps, then close to 1/1.25.
        var t = 1.0
        for d in stride(from: 102, through: 150, by: 2) { t += 0.01; rig.move(0, 400 - Int32(d / 2), 240); rig.move(1, 400 + Int32(d / 2), 240); rig.frame(t) }
        let out = rig.sum("notches")
        rig.up(0); rig.up(1); rig.frame(t + 0.01)
        // The pinch began near 1.06 of the first distance: 150/106 = 1.415, four steps of 1.1 (1.4641 is five).
        #expect(out == 3 || out == 4, "notches \(out)")
        let w = rig.written()
        #expect(w.first == "pointer: ABS_X 16384 ABS_Y 16384")
        #expect(w.dropFirst().prefix(3) == ["keyboard: KEY_LEFTCTRL 1", "pointer: REL_WHEEL_HI_RES 120 REL_WHEEL 1", "keyboard: KEY_LEFTCTRL 0"])
    }

    @Test("pointerArea: a touch lands on its own output's part of the desktop")
    func pointerArea() throws {
        let rig = try Rig(#"{"name": "menu", "type": "longPress", "action": {"click": "left"}}"#, passthrough: false,
                          devices: #""devices": [{"name": "Test*", "pointerArea": [0.5, 0.25, 0.5, 0.5]}],"#)
        rig.down(0, 400, 240); rig.frame(1.0)
        rig.pipeline.advance(to: 1.6)
        // The middle of the panel: the middle of the right half's middle band.
        #expect(rig.written() == ["pointer: ABS_X 24575 ABS_Y 16384 | BTN_LEFT 1 | BTN_LEFT 0"])
        #expect(rig.pipeline.actions!.pointerPosition(Point(x: 0, y: 0), device: 0) == (16384, 8192))
        #expect(rig.pipeline.actions!.pointerPosition(Point(x: 800, y: 480), device: 0) == (32767, 24575))
    }

    @Test("AC8: a failed write turns actions off, says why, and the gestures go on")
    func failedWrite() throws {
        let rig = try Rig(#"{"name": "menu", "type": "longPress", "action": {"click": "right"}}"#, passthrough: false)
        rig.pointer.fails = true
        rig.down(0, 200, 120); rig.frame(1.0)
        rig.pipeline.advance(to: 1.6)
        #expect(rig.failures.count == 1 && rig.failures[0].contains("TouchBridge pointer") == false && rig.failures[0].contains("pointer"))
        #expect(rig.pipeline.actions == nil && rig.actions.isEmpty)
        rig.up(0); rig.frame(2.0)
        rig.down(0, 200, 120); rig.frame(3.0)
        rig.pipeline.advance(to: 3.6)
        #expect(rig.written() == [])
    }
}
