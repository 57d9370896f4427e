import Testing
import TouchCore
import TouchInput
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol

/// The touchpad action and sliders as scripts (docs/actions.md "Touchpad" and "Sliders", uikit-semantics
/// AC9–AC12): a scene, the panel's frames, and one ordered log of what the mirror, the touchpad and
/// the lines say.
@Suite("Touchpad and sliders: the compositor's gestures with the fingers, values by a slide")
struct TouchpadTests {
    typealias Rig = ActionTests.Rig

    // MARK: Finger mapping and scale (AC9)

    static let region = Rect(x: 0, y: 0, width: 800, height: 480)

    @Test("AC9: three or four fingers are a row 18 mm apart, as libinput expects a hand; two keep their angle, 24 mm apart")
    func layout() {
        let scale = Point(x: 0.1, y: 0.1)
        let three = TouchpadFingers(touches: [Point(x: 100, y: 200), Point(x: 200, y: 200), Point(x: 300, y: 200)], fingers: 3, scale: scale, region: Self.region)
        #expect(three.layout == [Point(x: -18, y: 0), Point(x: 0, y: 0), Point(x: 18, y: 0)])
        // Stacked on the panel, one above the other: still a row (libinput reads the leftmost and rightmost).
        let column = TouchpadFingers(touches: [Point(x: 400, y: 100), Point(x: 400, y: 200), Point(x: 400, y: 300)], fingers: 3, scale: scale, region: Self.region)
        #expect(column.layout == three.layout)
        let two = TouchpadFingers(touches: [Point(x: 400, y: 100), Point(x: 400, y: 300)], fingers: 2, scale: scale, region: Self.region)
        #expect(two.layout == [Point(x: 0, y: -12), Point(x: 0, y: 12)])            // upright, as they touched
        let asFour = TouchpadFingers(touches: [Point(x: 400, y: 100), Point(x: 400, y: 300)], fingers: 4, scale: scale, region: Self.region)
        #expect(asFour.layout.map(\.x) == [-27, -9, 9, 27])
        // Fingers on top of each other: a row, not a point.
        let stacked = TouchpadFingers(touches: [Point(x: 10, y: 10), Point(x: 10.2, y: 10)], fingers: 2, scale: scale, region: Self.region)
        #expect(stacked.layout == [Point(x: -12, y: 0), Point(x: 12, y: 0)])
    }

    @Test("AC9: the centre lands where the touches are on the panel, so a swipe across it fits; travel times the scale moves it; a pinch spreads; the edges stop them")
    func positions() {
        let f = TouchpadFingers(touches: [Point(x: 0, y: 0), Point(x: 100, y: 0)], fingers: 2, scale: Point(x: 0.1, y: 0.05), region: Self.region)
        // x: the centre may go from 17 to 143 mm (5 mm margins, fingers 12 mm out); the panel's 800 pt are
        // 80 mm of it, centred: 40…120; the touches' centre, 50 pt in, is 45 mm. y: 24 mm of 5…105: 43.
        #expect(f.origin == Point(x: 45, y: 43))
        #expect(f.positions(translation: .zero) == [Point(x: 33, y: 43), Point(x: 57, y: 43)])
        #expect(f.positions(translation: Point(x: -200, y: 100)) == [Point(x: 13, y: 48), Point(x: 37, y: 48)])
        #expect(f.positions(translation: .zero, spread: 1.5) == [Point(x: 27, y: 43), Point(x: 63, y: 43)])
        // 1000 pt right is 100 mm: the right finger stops 5 mm from the pad's right edge (160 mm).
        #expect(f.positions(translation: Point(x: 1000, y: 0))[1].x == 155)
        // A travel from the panel's right edge to its left fits whole: 800 pt, 80 mm.
        let right = TouchpadFingers(touches: [Point(x: 790, y: 240), Point(x: 800, y: 240)], fingers: 2, scale: Point(x: 0.1, y: 0.1), region: Self.region)
        let across = right.positions(translation: Point(x: -795, y: 0))
        #expect(abs((across[0].x - right.positions(translation: .zero)[0].x) + 79.5) < 1e-9)
        #expect(TouchpadFingers.units(Point(x: 53, y: 45.0125)) == (2120, 1801))
    }

    @Test("AC9: the fingers land a step back that libinput's start threshold takes: (n − 1.2) mm against a swipe's motion, (n − 0.8) mm in for a pinch")
    func landingStep() throws {
        let three = TouchpadFingers(touches: [Point(x: 200, y: 240), Point(x: 300, y: 240), Point(x: 400, y: 240)], fingers: 3, scale: Point(x: 0.1, y: 0.1), region: Self.region)
        let back = try #require(three.landing(pinch: false, direction: Point(x: 500, y: 0)))
        let start = three.positions(translation: .zero)
        for (l, s) in zip(back, start) { #expect(abs(l.x - (s.x - 1.8)) < 1e-9 && l.y == s.y) }
        #expect(three.landing(pinch: false, direction: .zero) == nil)
        let two = TouchpadFingers(touches: [Point(x: 300, y: 240), Point(x: 500, y: 240)], fingers: 2, scale: Point(x: 0.1, y: 0.1), region: Self.region)
        let pinch = try #require(two.landing(pinch: true, direction: .zero))
        let at = two.positions(translation: .zero)
        #expect(abs((pinch[1].x - pinch[0].x) - ((at[1].x - at[0].x) - 2.4)) < 1e-9)
    }

    @Test("AC9: the default scale makes a swipe across the region GNOME's workspace (76 mm) or overview (57 mm) on libinput's reading")
    func defaultScale() {
        let s = TouchpadFingers.defaultScale(region: Rect(x: 0, y: 0, width: 800, height: 480))
        #expect(abs(s.x * 800 - TouchpadOptions.defaultTravel.x) < 1e-9 && abs(s.y * 480 - TouchpadOptions.defaultTravel.y) < 1e-9)
        // GNOME's 400 and 300 units times a multiplier of 0.5, at libinput's 10.52 units a millimetre
        // (1000 dpi normalized, the touchpad slowdown 0.2968, the plateau 0.9; the lab: 4.21 per 0.4 mm).
        #expect(abs(TouchpadOptions.libinputUnitsPerMillimetre - 4.21 / 0.4) < 0.01)
        #expect(abs(TouchpadOptions.defaultTravel.x - 76.07) < 0.01 && abs(TouchpadOptions.defaultTravel.y - 57.05) < 0.01)
    }

    // MARK: Playing a gesture (AC9–AC11)

    /// Three fingers 100 pt apart at y 240, dragged right by `step` pt a frame, 60 a second.
    static func threeFingerDrag(_ rig: Rig, steps: Int, step: Int32 = 10, lift: Bool = true, start: Double = 1.0) -> Double {
        for (i, x) in [200, 300, 400].enumerated() { rig.down(Int32(i), Int32(x), 240) }
        rig.frame(start)
        var t = start
        for k in 1...steps {
            t = start + Double(k) / 60
            for (i, x) in [200, 300, 400].enumerated() { rig.move(Int32(i), Int32(x) + Int32(k) * step, 240) }
            rig.frame(t)
        }
        if lift {
            t += 1.0 / 60
            for i in 0..<3 { rig.up(Int32(i)) }
            rig.frame(t)
        }
        return t
    }

    static func fingers(_ l: JSON) -> [Point] {
        (l["fingers"]?.arrayValue ?? []).map { p in Point(x: p.arrayValue![0].numberValue!, y: p.arrayValue![1].numberValue!) }
    }

    @Test("AC9, AC7: a three-finger pan lands three fingers after the mirror's cancel, moves them by its travel times the scale, and lifts them when it ends")
    func threeFingerPan() throws {
        let rig = try Rig(#"{"name": "workspaces", "type": "pan", "minimumNumberOfTouches": 3, "maximumNumberOfTouches": 3, "action": {"touchpad": {"scale": 0.05}}}"#)
        let end = Self.threeFingerDrag(rig, steps: 30)
        let written = rig.written()
        // The mirror had the fingers until the pan began; its cancel goes before the touchpad's first frame.
        let firstPad = try #require(written.firstIndex { $0.hasPrefix("touchpad:") })
        #expect(written[..<firstPad].last == "mirror: cancel cancel cancel")
        #expect(written[firstPad].hasPrefix("touchpad: ABS_MT_SLOT 0 ABS_MT_TRACKING_ID 1 ABS_MT_POSITION_X "))
        // The landing, then its step in a write of its own (a later kernel timestamp).
        #expect(written[firstPad].hasSuffix("BTN_TOUCH 1 BTN_TOOL_TRIPLETAP 1"))
        #expect(written[firstPad + 1].hasPrefix("touchpad: ABS_MT_SLOT 0 ABS_MT_POSITION_X ") && !written[firstPad + 1].contains("|"))
        #expect(written.last == "touchpad: ABS_MT_SLOT 0 ABS_MT_TRACKING_ID -1 ABS_MT_SLOT 1 ABS_MT_TRACKING_ID -1 ABS_MT_SLOT 2 ABS_MT_TRACKING_ID -1 BTN_TOUCH 0 BTN_TOOL_TRIPLETAP 0")
        #expect(!written[(firstPad + 1)...].contains { $0.hasPrefix("mirror") })
        let lines = rig.actions
        #expect(lines.allSatisfy { $0["action"]?.stringValue == "touchpad" && $0["recognizer"]?.stringValue == "workspaces" })
        #expect(lines.first?["state"]?.stringValue == "began" && Self.fingers(lines[0]).count == 3 && lines[1]["state"]?.stringValue == "began")
        #expect(lines.last?["state"]?.stringValue == "ended" && Self.fingers(lines.last!) == [])
        #expect(abs(lines.last!["time"]!.numberValue! - end) < 1e-6)
        // They land 1.8 mm back (leftwards: the drag goes right), step to where the pan began, keep
        // their row and move as the pan did after it began: 300 pt less the 10 pt it took to begin,
        // at 0.05 mm a point. On the 480 pt tall panel's middle, at 0.05 mm a point, y is 55 mm.
        let landed = Self.fingers(lines[0]), first = Self.fingers(lines[1]), last = Self.fingers(lines[lines.count - 2])
        #expect(abs((first[0].x - landed[0].x) - 1.8) <= 0.025 && landed.map(\.y) == first.map(\.y))
        #expect(first.map(\.y) == [55, 55, 55] && first[1].x - first[0].x == 18)
        #expect(abs((last[0].x - first[0].x) - (300 - 10) * 0.05) <= 0.025)
        #expect(last.map(\.y) == [55, 55, 55])
        // One line a frame that moved them, each its own frame's time (the landing and its step share one).
        let times = lines.compactMap { $0["time"]?.numberValue }
        #expect(times == times.sorted() && Set(times).count == times.count - 1)
    }

    @Test("AC10: a flick over within 250 ms keeps its fingers down until 250 ms after they landed, so libinput sees no tap")
    func quickFlickHolds() throws {
        let rig = try Rig(#"{"name": "workspaces", "type": "pan", "minimumNumberOfTouches": 3, "maximumNumberOfTouches": 3, "action": {"touchpad": {}}}"#,
                          passthrough: false)
        let end = Self.threeFingerDrag(rig, steps: 5, step: 20)
        let landed = try #require(rig.actions.first?["time"]?.numberValue)
        #expect(end - landed < 0.25)
        #expect(!rig.written().contains { $0.contains("BTN_TOUCH 0") })        // still down
        #expect(abs(rig.pipeline.nextDeadline! - (landed + 0.25)) < 1e-6)
        rig.pipeline.advance(to: landed + 0.3)
        #expect(rig.written() == ["touchpad: ABS_MT_SLOT 0 ABS_MT_TRACKING_ID -1 ABS_MT_SLOT 1 ABS_MT_TRACKING_ID -1 ABS_MT_SLOT 2 ABS_MT_TRACKING_ID -1 BTN_TOUCH 0 BTN_TOOL_TRIPLETAP 0"])
        #expect(abs(rig.actions.last!["time"]!.numberValue! - (landed + 0.25)) < 1e-6 && rig.actions.last?["state"]?.stringValue == "ended")
        #expect(rig.pipeline.nextDeadline == nil)
    }

    @Test("AC11: a cancelled gesture lifts one finger, and the others 120 ms later (libinput then ends it cancelled)")
    func cancelLiftsOneFirst() throws {
        let rig = try Rig(#"{"name": "workspaces", "type": "pan", "minimumNumberOfTouches": 3, "maximumNumberOfTouches": 3, "action": {"touchpad": {}}}"#,
                          passthrough: false)
        _ = Self.threeFingerDrag(rig, steps: 30, lift: false)
        _ = rig.written()
        try rig.pipeline.setEnabled(patterns: ["workspaces"], enabled: false, at: 2.0)
        #expect(rig.written() == ["touchpad: ABS_MT_SLOT 2 ABS_MT_TRACKING_ID -1 BTN_TOOL_TRIPLETAP 0 BTN_TOOL_DOUBLETAP 1"])
        #expect(abs(rig.pipeline.nextDeadline! - 2.12) < 1e-9)
        rig.pipeline.advance(to: 2.1)
        #expect(rig.written() == [])
        rig.pipeline.advance(to: 2.2)
        #expect(rig.written() == ["touchpad: ABS_MT_SLOT 0 ABS_MT_TRACKING_ID -1 ABS_MT_SLOT 1 ABS_MT_TRACKING_ID -1 BTN_TOUCH 0 BTN_TOOL_DOUBLETAP 0"])
        let tail = rig.actions.suffix(2)
        #expect(tail.map { $0["state"]?.stringValue } == ["cancelled", "cancelled"])
        #expect(tail.map { Self.fingers($0).count } == [2, 0])
        #expect(abs(tail.last!["time"]!.numberValue! - 2.12) < 1e-6)
    }

    @Test("AC10: a scene replaced mid-gesture lifts the fingers; so do actions stopping (SIGTERM)")
    func replacedAndStopped() throws {
        let scene = #"{"name": "workspaces", "type": "pan", "minimumNumberOfTouches": 3, "maximumNumberOfTouches": 3, "action": {"touchpad": {}}}"#
        let rig = try Rig(scene, passthrough: false)
        _ = Self.threeFingerDrag(rig, steps: 30, lift: false)
        _ = rig.written()
        rig.pipeline.replace(scene: try Scene.parse(#"{"window": {"width": 800, "height": 480}, "views": []}"#, file: "empty", systemKeyboard: KeyboardNames()), at: 2.0)
        #expect(rig.written().last?.hasSuffix("BTN_TOUCH 0 BTN_TOOL_DOUBLETAP 0") == true)

        let other = try Rig(scene, passthrough: false)
        _ = Self.threeFingerDrag(other, steps: 30, lift: false)
        _ = other.written()
        other.pipeline.stopActions()
        #expect(other.written().last?.contains("BTN_TOUCH 0") == true)
    }

    @Test("AC9: a two-finger swipe played as three lands when recognized and follows its touches until they lift")
    func swipeAsThree() throws {
        let rig = try Rig(#"{"name": "next", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 2, "action": {"touchpad": {"fingers": 3, "scale": 0.1}}}"#,
                          passthrough: false)
        rig.down(0, 600, 200); rig.down(1, 600, 280); rig.frame(1.0)
        for k in 1...12 {
            rig.move(0, 600 - Int32(k) * 20, 200); rig.move(1, 600 - Int32(k) * 20, 280)
            rig.frame(1.0 + Double(k) / 60)
        }
        rig.up(0); rig.up(1); rig.frame(1.3)
        let lines = rig.actions
        let land = try #require(lines.first)
        #expect(land["state"]?.stringValue == "recognized" && Self.fingers(land).count == 3)
        let beforeLift = Self.fingers(lines[lines.count - 2])
        #expect(beforeLift.count == 3)
        #expect(Self.fingers(lines.last!) == [] && lines.last?["state"]?.stringValue == "ended")
        let travel = beforeLift[0].x - Self.fingers(lines[1])[0].x
        // From where it was recognized to the last frame, at 0.1 mm a point, leftwards: every frame
        // after the recognition moved the touches 20 pt (the landing a step to the right of it).
        #expect(abs((Self.fingers(land)[0].x - Self.fingers(lines[1])[0].x) - 1.8) <= 0.025)
        let frames = Double(lines.count - 3)
        #expect(abs(travel - (-20 * frames * 0.1)) < 0.03)
    }

    @Test("AC9: a pinch spreads its fingers by its own scale")
    func pinchSpread() throws {
        let rig = try Rig(#"{"name": "zoom", "type": "pinch", "action": {"touchpad": {}}}"#, passthrough: false)
        rig.down(0, 300, 240); rig.down(1, 500, 240); rig.frame(1.0)
        for k in 1...20 {
            rig.move(0, 300 - Int32(k) * 5, 240); rig.move(1, 500 + Int32(k) * 5, 240)
            rig.frame(1.0 + Double(k) / 60)
        }
        let lines = rig.actions
        // The landing is 2.4 mm narrower; the step spreads them to where the pinch's scale counts from.
        let landed = Self.fingers(lines[0]), first = Self.fingers(lines[1]), last = Self.fingers(lines.last!)
        #expect(abs((first[1].x - first[0].x) - (landed[1].x - landed[0].x) - 2.4) <= 0.05)
        let pinch = try #require(rig.scene.recognizers.first as? PinchGestureRecognizer)
        let padScale = (last[1].x - last[0].x) / (first[1].x - first[0].x)
        #expect(abs(padScale - pinch.scale) / pinch.scale < 0.01)
        #expect(pinch.scale > 1.3)
    }

    @Test("AC9: what a touchpad action needs is said when the scene is read")
    func sceneErrors() throws {
        func error(_ recognizer: String) -> String {
            do { _ = try Rig(recognizer, passthrough: false); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"name": "e", "type": "screenEdgePan", "edges": ["left"], "action": {"touchpad": {}}}"#).contains("give \"fingers\""))
        #expect(error(#"{"name": "p", "type": "pan", "minimumNumberOfTouches": 3, "action": {"touchpad": {}}}"#).contains("3 or more touches"))
        #expect(error(#"{"name": "t", "type": "tap", "action": {"touchpad": {}}}"#).contains("only from a pan, a screenEdgePan, a swipe or a pinch"))
        #expect(error(#"{"name": "p", "type": "pan", "action": {"touchpad": {"fingers": 5}}}"#).contains("must be 2, 3 or 4"))
        #expect(error(#"{"name": "p", "type": "pan", "action": {"touchpad": {"scale": 0}}}"#).contains("greater than 0"))
        #expect(error(#"{"name": "e", "type": "screenEdgePan", "edges": ["left"], "action": {"touchpad": {"fingers": 3}}}"#) == "")
        // The scene line writes it back as read.
        let rig = try Rig(#"{"name": "e", "type": "screenEdgePan", "edges": ["left"], "action": {"touchpad": {"fingers": 3, "scale": 0.02}}}"#, passthrough: false)
        let line = String(decoding: rig.pipeline.sceneLine(), as: UTF8.self)
        #expect(line.contains(#""action":{"touchpad":{"scale":0.02,"fingers":3}}"#))
    }

    // MARK: Sliders (AC12)

    @Test("AC12: a value grows 1:1 with the finger's travel up the view, clamped, from where the last slide left it")
    func sliderAlongY() throws {
        let rig = try Rig(#"{"name": "volume", "type": "pan", "action": {"value": {"from": 0, "to": 1, "along": "y"}}}"#, passthrough: false)
        // The view is 480 pt tall: 240 pt up is half the range.
        rig.down(0, 400, 400); rig.frame(1.0)
        for k in 1...25 { rig.move(0, 400, 400 - Int32(k) * 10); rig.frame(1.0 + Double(k) / 60) }
        rig.up(0); rig.frame(1.5)
        let values = rig.actions.compactMap { $0["value"]?.numberValue }
        #expect(rig.actions.allSatisfy { $0["action"]?.stringValue == "value" })
        // 250 pt of travel, the first 10 taken by the pan's hysteresis: 240 / 480.
        #expect(values.last == 0.5)
        #expect(values == values.sorted() && Set(values).count == values.count)       // one line a change
        // The next slide starts at 0.5; 400 pt more up would be 1.33: clamped to 1.
        rig.down(0, 400, 450); rig.frame(2.0)
        for k in 1...41 { rig.move(0, 400, 450 - Int32(k) * 10); rig.frame(2.0 + Double(k) / 60) }
        rig.up(0); rig.frame(3.0)
        #expect(rig.actions.last?["value"]?.numberValue == 1)
        #expect(rig.actions.compactMap { $0["value"]?.numberValue }.filter { $0 == 1 }.count == 1)
    }

    @Test("AC12: along x it grows rightwards; from > to runs the other way; values are in range always")
    func sliderAlongX() {
        var o = ValueOptions()
        o.along = .x
        o.from = 100
        o.to = 0
        #expect(o.value(from: 100, translation: Point(x: 200, y: -50), length: 400) == 50)
        #expect(o.value(from: 50, translation: Point(x: -1000, y: 0), length: 400) == 100)
        #expect(o.value(from: 50, translation: Point(x: 1000, y: 0), length: 400) == 0)
        o.along = .y
        o.from = 0
        o.to = 1
        #expect(o.value(from: 0.2, translation: Point(x: 0, y: -100), length: 400) == 0.45)
        #expect(o.value(from: 0.2, translation: Point(x: 500, y: 100), length: 400) == 0)
    }

    @Test("AC12: a backlight slider starts from the brightness now and sets it, at most once a frame")
    func backlightSlider() throws {
        let rig = try Rig(#"{"name": "brightness", "type": "pan", "action": {"value": {"target": "backlight"}}}"#, passthrough: false)
        var set: [Double] = []
        rig.pipeline.actions?.brightness = { _ in 0.3 }
        rig.pipeline.actions?.setBrightness = { _, v in set.append(v) }
        rig.down(0, 400, 400); rig.frame(1.0)
        for k in 1...13 { rig.move(0, 400, 400 - Int32(k) * 10); rig.frame(1.0 + Double(k) / 60) }
        rig.up(0); rig.frame(1.5)
        #expect(set.last == 0.55)                              // 0.3 + 120 / 480
        #expect(set == rig.actions.compactMap { $0["value"]?.numberValue })
    }
}
