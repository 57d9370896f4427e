import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

@Suite("Scene files")
struct SceneFileTests {
    let good = """
    {
      "window": {"width": 800, "height": 480},
      "devices": [{"name": "Wacom*", "rotation": 90, "flipX": true, "calibration": [1, 0, 0, 0, 1, 0], "grab": true},
                  {"vendorProduct": "056a:00e6", "devnode": "/dev/input/event4", "property": "ID_PATH=usb-1", "region": [400, 0, 400, 480]}],
      "views": [
        {"name": "list", "frame": [0, 0, 800, 400], "bounds": [0, 20, 800, 400], "multipleTouchEnabled": true,
         "recognizers": [
           {"name": "scroll", "type": "pan", "maximumNumberOfTouches": 2, "requireToFail": ["edge"], "cancelsTouchesInView": false},
           {"name": "zoom", "type": "pinch", "simultaneousWith": ["turn"]},
           {"name": "turn", "type": "rotation"},
           {"name": "edge", "type": "screenEdgePan", "edges": ["left", "right"]}
         ],
         "subviews": [
           {"name": "button", "frame": [10, 10, 24, 24], "touchInsets": [-10, -10, -10, -10], "exclusiveTouch": true,
            "recognizers": [{"name": "press", "type": "longPress", "minimumPressDuration": 0.8, "allowableMovement": 15,
                             "numberOfTapsRequired": 1, "numberOfTouchesRequired": 1, "delaysTouchesBegan": true}]}
         ]},
        {"name": "badge", "frame": [700, 400, 100, 80], "transform": [0, 1, -1, 0, 0, 0], "alpha": 0.5, "hidden": false,
         "userInteractionEnabled": true,
         "recognizers": [{"name": "double", "type": "tap", "numberOfTapsRequired": 2, "enabled": true, "delaysTouchesEnded": false},
                         {"name": "flick", "type": "swipe", "direction": ["up", "down"], "numberOfTouchesRequired": 2,
                          "simultaneousWith": "*"}]}
      ]
    }
    """

    @Test("A scene file builds the view tree, the recognizers with their options, and the device entries")
    func builds() throws {
        let s = try Scene.parse(good, file: "scene.json")
        #expect(s.window.bounds == Rect(x: 0, y: 0, width: 800, height: 480))
        #expect(s.views.map(\.name) == ["list", "button", "badge"])
        let list = s.views[0], button = s.views[1], badge = s.views[2]
        #expect(list.bounds.origin == Point(x: 0, y: 20) && list.isMultipleTouchEnabled)
        #expect(button.superview === list && button.isExclusiveTouch)
        #expect(s.window.hitTest(Point(x: 5, y: 5), with: nil) === button)       // grown by touchInsets, scrolled by 20
        #expect(s.window.hitTest(Point(x: 5, y: 25), with: nil) === list)
        #expect(badge.transform == AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0) && badge.alpha == 0.5)
        #expect(s.recognizers.map { $0.name ?? "" } == ["scroll", "zoom", "turn", "edge", "press", "double", "flick"])
        let scroll = s.recognizers[0] as! PanGestureRecognizer
        #expect(scroll.maximumNumberOfTouches == 2 && !scroll.cancelsTouchesInView)
        #expect((s.recognizers[3] as! ScreenEdgePanGestureRecognizer).edges == [.left, .right])
        let press = s.recognizers[4] as! LongPressGestureRecognizer
        #expect(press.minimumPressDuration == 0.8 && press.allowableMovement == 15 && press.numberOfTapsRequired == 1 && press.delaysTouchesBegan)
        #expect((s.recognizers[5] as! TapGestureRecognizer).numberOfTapsRequired == 2 && !s.recognizers[5].delaysTouchesEnded)
        let flick = s.recognizers[6] as! SwipeGestureRecognizer
        #expect(flick.direction == [.up, .down] && flick.numberOfTouchesRequired == 2)
        // Simultaneity as declared: the pair, and "*".
        let d = s.delegate
        #expect(d.gestureRecognizer(s.recognizers[1], shouldRecognizeSimultaneouslyWith: s.recognizers[2]))
        #expect(d.gestureRecognizer(s.recognizers[2], shouldRecognizeSimultaneouslyWith: s.recognizers[1]))
        #expect(!d.gestureRecognizer(s.recognizers[0], shouldRecognizeSimultaneouslyWith: s.recognizers[1]))
        #expect(d.gestureRecognizer(flick, shouldRecognizeSimultaneouslyWith: scroll))
        #expect(s.devices.count == 2)
        #expect(s.devices[0].selector.name == "Wacom*" && s.devices[0].rotation == .clockwise90 && s.devices[0].flipX && s.devices[0].grab)
        #expect(s.devices[1].selector.vendorProduct?.vendor == 0x056a && s.devices[1].selector.property?.key == "ID_PATH")
        #expect(s.devices[1].region == Rect(x: 400, y: 0, width: 400, height: 480) && s.devices[0].region == nil)
        #expect(Scene.typeName(flick) == "swipe" && Scene.typeName(s.recognizers[3]) == "screenEdgePan")
    }

    @Test("Errors name the file, the line, the JSON path and the problem", arguments: [
        (#"{"window": {"width": 800, "height": 480}, "views": [{"name": "a", "frame": [0, 0, 1, 1], "recognizers": [{"name": "t", "type": "tap", "numberOfTaps": 2}]}]}"#,
         #"s.json:1: views[0].recognizers[0].numberOfTaps: unknown key "numberOfTaps" (did you mean "numberOfTapsRequired"?); allowed: name, type, enabled, cancelsTouchesInView, delaysTouchesBegan, delaysTouchesEnded, allowedTouchTypes, requireToFail, simultaneousWith, numberOfTapsRequired, numberOfTouchesRequired, apps, exceptApps, action"#),
        ("{\"window\": {\"width\": 800, \"height\": 480},\n \"views\": [\n {\"name\": \"a\", \"frame\": [0, 0, 1, 1],\n \"recognizers\": [{\"name\": \"t\", \"type\": \"tap\", \"numberOfTapsRequired\": 0}]}]}",
         "s.json:4: views[0].recognizers[0].numberOfTapsRequired: must be an integer ≥ 1, found 0"),
        (#"{"window": {"width": 800}}"#, "s.json:1: window: missing \"height\""),
        (#"{"views": []}"#, "s.json:1: missing \"window\": {\"width\": W, \"height\": H}"),
        (#"{"window": {"width": 8, "height": 4}, "views": [{"name": "a", "frame": [0, 0, 1]}]}"#,
         "s.json:1: views[0].frame: must be an array of 4 numbers [x, y, width, height], found [0,0,1]"),
        (#"{"window": {"width": 8, "height": 4}, "views": [{"name": "a", "frame": [0, 0, 1, 1], "recognizers": [{"name": "t", "type": "tapp"}]}]}"#,
         #"s.json:1: views[0].recognizers[0].type: unknown recognizer type "tapp" (did you mean "tap"?); one of tap, longPress, pan, screenEdgePan, swipe, pinch, rotation, hover, stroke"#),
        (#"{"window": {"width": 8, "height": 4}, "views": [{"name": "a", "frame": [0, 0, 1, 1], "recognizers": [{"name": "t", "type": "tap", "requireToFail": ["dbl"]}]}]}"#,
         "s.json:1: views[0].recognizers[0].requireToFail[0]: no recognizer is named \"dbl\""),
        (#"{"window": {"width": 8, "height": 4}, "views": [{"name": "a", "frame": [0, 0, 1, 1], "recognizers": [{"name": "t", "type": "tap"}, {"name": "t", "type": "pan"}]}]}"#,
         "s.json:1: views[0].recognizers[1].name: \"t\" is already the name of views[0].recognizers[0]; recognizer names must be unique"),
        (#"{"window": {"width": 8, "height": 4}, "devices": [{"rotation": 45}]}"#, "s.json:1: devices[0].rotation: must be 0, 90, 180 or 270, found 45"),
        (#"{"window": {"width": 8, "height": 4}, "devices": [{"vendorProduct": "wacom"}]}"#,
         "s.json:1: devices[0].vendorProduct: must be \"vvvv:pppp\" in hexadecimal, e.g. \"056a:00e6\""),
        (#"{"window": {"width": 8, "height": 4}, "views": [{"name": "a", "frame": [0, 0, 1, 1], "transform": [0, 0, 0, 0, 1, 1]}]}"#,
         "s.json:1: views[0].transform: is not invertible (a·d − b·c = 0): the view could never be hit"),
        (#"{"window": {"width": 8, "height": 4}, "views": [{"name": "a", "frame": [0, 0, 1, 1], "recognizers": [{"name": "e", "type": "screenEdgePan", "edges": ["north"]}]}]}"#,
         "s.json:1: views[0].recognizers[0].edges[0]: unknown edge \"north\"; one of top, left, bottom, right, all"),
        (#"{"window": {"width": 8, "height": 4}, "views": [{"name": "a", "frame": [0, 0, 1, 1], "hidden": "yes"}]}"#,
         "s.json:1: views[0].hidden: must be true or false, found a string"),
        (#"{"window": {"width": 8, "height": 4}, "colour": "red"}"#,
         "s.json:1: colour: unknown key \"colour\"; allowed: window, devices, views, keyboard, pencilButtons, display"),
        ("{\"window\": {\"width\": 8, \"height\": 4},\n\"views\": [}", "s.json:2: column 11: unexpected character '}', expected a value"),
    ])
    func errors(text: String, message: String) {
        do {
            _ = try Scene.parse(text, file: "s.json")
            Issue.record("no error for \(text)")
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test("The built-in scene has every kind of recognizer on one full-window view named screen")
    func builtIn() {
        let s = Scene.builtIn()
        #expect(s.views.map(\.name) == ["screen"] && s.views[0].frame == s.window.bounds)
        #expect(Set(s.recognizers.map(Scene.typeName)) == ["tap", "longPress", "pan", "screenEdgePan", "swipe", "pinch", "rotation"])
        #expect(s.recognizers.compactMap(\.name) == ["doubleTap", "tap", "twoFingerTap", "longPress", "edgeLeft", "edgeRight",
                                                     "edgeTop", "edgeBottom", "swipeLeft", "swipeRight", "swipeUp", "swipeDown",
                                                     "pan", "pinch", "rotation"])
        var d = DeviceDescription(name: "x")
        d.addAbs(AbsCode.mtPositionX, AbsInfo(minimum: 0, maximum: 2999, resolution: 10))    // 300 mm
        d.addAbs(AbsCode.mtPositionY, AbsInfo(minimum: 0, maximum: 1999, resolution: 10))    // 200 mm
        #expect(Scene.builtIn(for: d).window.bounds.size == Size(width: 1925, height: 1283))
    }

    @Test("A panel whose resolution does not fit its range gets the default window, not a 0 × 0 pt or a ten-metre one")
    func implausibleSize() {
        for (range, resolution): (Int32, Int32) in [(2, 17900), (799, 1000), (65535, 1), (4095, 0)] {
            var d = DeviceDescription(name: "odd")
            d.addAbs(AbsCode.x, AbsInfo(minimum: 0, maximum: range, resolution: resolution))
            d.addAbs(AbsCode.y, AbsInfo(minimum: 0, maximum: range, resolution: resolution))
            #expect(Scene.physicalSize(of: d) == nil)
            #expect(Scene.builtIn(for: d).window.bounds.size == Scene.defaultWindowSize)
        }
        #expect(Scene.physicalSize(of: .panel(name: "10 cm", width: 999, height: 499, resolution: 10)) == Size(width: 642, height: 321))
    }
}

@Suite("JSON")
struct JSONTests {
    @Test("Parses every kind of value, with escapes and surrogate pairs; rejects trailing text and bad syntax")
    func parse() throws {
        let j = try JSONParser.parse(#"{"a": [1, -2.5e2, true, false, null], "s": "x\"\\\/\n\u00e9\ud83d\ude00"}"#)
        #expect(j["a"] == .array([.number(1), .number(-250), .bool(true), .bool(false), .null]))
        #expect(j["s"]?.stringValue == "x\"\\/\né😀")
        for bad in ["{", "[1,]", "{\"a\" 1}", "01x", "\"\\x\"", "[1] 2", "{\"a\":1,\"a\":2}", "nul"] {
            #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(bad) }
        }
    }

    @Test("Writes compact JSON; numbers to 6 decimals without trailing zeros; non-finite as null")
    func write() {
        var w = JSONWriter()
        w.beginObject()
        w.key("i"); w.int(-42)
        w.key("n"); w.number(12.5)
        w.key("t"); w.number(1351148442.000001)
        w.key("z"); w.number(3)
        w.key("neg"); w.number(-0.0000004)
        w.key("nan"); w.number(.nan)
        w.key("s"); w.string("a\"b\n\u{1}")
        w.key("a"); w.beginArray(); w.bool(true); w.null(); w.endArray()
        w.endObject()
        #expect(w.string == #"{"i":-42,"n":12.5,"t":1351148442.000001,"z":3,"neg":0,"nan":null,"s":"a\"b\n\u0001","a":[true,null]}"#)
        #expect(JSON.object([("k", .array([.number(0.1), .string("é")]))]).text == #"{"k":[0.1,"é"]}"#)
    }

    /// The writer forms digits two at a time; this is the plain definition it must agree with:
    /// round to millionths, the integer part, then the fraction without trailing zeros.
    static func reference(_ v: Double) -> String {
        let n = Int64((v * 1_000_000).rounded())
        var text = (n < 0 ? "-" : "") + String(n.magnitude / 1_000_000)
        var frac = String(n.magnitude % 1_000_000)
        guard frac != "0" else { return text }
        frac = String(repeating: "0", count: 6 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        text += "." + frac
        return text
    }

    @Test("Numbers and integers agree with the plain definition across magnitudes, signs and digit counts")
    func numbersAgree() {
        var seed: UInt64 = 42
        var values: [Double] = [0, 1, -1, 9, 10, 99, 100, 101, 0.5, -0.5, 0.05, 0.000001, 0.0000005, 123456789.123456,
                                -98765.4321, 1e9, -1e9 - 0.25, 4096, 1280.000001, 0.1 + 0.2,
                                // where the whole part changes its number of digits, rounding included
                                9.9999995, 99.9999996, 999.5, 1000, 9999.9999996, 10000.01, -10.000001, 0.100001]
        for _ in 0..<2000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let mantissa = Double(seed >> 11) / Double(1 << 53) - 0.5
            let exponent = Int((seed >> 3) % 15) - 6          // |v| < 5e8: the fixed-point range
            var scale = 1.0
            for _ in 0..<abs(exponent) { scale = exponent < 0 ? scale / 10 : scale * 10 }
            values.append(mantissa * scale)
        }
        for v in values {
            var w = JSONWriter()
            w.number(v)
            #expect(w.string == JSONTests.reference(v), "\(v)")
        }
        for i in [0, 7, -7, 10, 99, -100, 12345, Int.max, Int.min + 1, Int.min] {
            var w = JSONWriter()
            w.int(i)
            #expect(w.string == String(i))
        }
    }
}

@Suite("The installed default scene")
struct InstalledSceneTests {
    @Test("scenes/default.json (installed as /etc/touchbridge/scene.json) is the built-in scene")
    func sameAsBuiltIn() throws {
        let file = Built.root + "/scenes/default.json"
        #expect(try Files.readText(file) == Scene.builtInJSON())
        let s = try Scene.load(path: file)
        #expect(s.recognizers.compactMap(\.name) == Scene.builtIn().recognizers.compactMap(\.name))
    }

    @Test("allowedTouchTypes (P5): read by name with a did-you-mean, written back only when not every type")
    func allowedTouchTypes() throws {
        func scene(_ types: String) throws -> Scene {
            try Scene.parse(#"{"window": {"width": 8, "height": 4}, "views": [{"name": "v", "frame": [0, 0, 8, 4], "recognizers": [{"name": "ink", "type": "pan", "allowedTouchTypes": \#(types)}]}]}"#, file: "s.json")
        }
        #expect(try scene(#"["pencil"]"#).recognizers[0].allowedTouchTypes == .pencil)
        #expect(try scene(#"["direct", "pencil"]"#).recognizers[0].allowedTouchTypes == [.direct, .pencil])
        #expect(throws: ConfigError.self) { try scene(#"["pencel"]"#) }
        do { _ = try scene(#"["pencel"]"#) } catch {
            #expect("\(error)".contains(#"allowedTouchTypes[0]: unknown touch type "pencel" (did you mean "pencil"?)"#))
        }
        do { _ = try scene("[]") } catch { #expect("\(error)".contains("needs at least one touch type")) }
        let line = String(decoding: SceneLine.encode(try scene(#"["pencil"]"#), clients: []), as: UTF8.self)
        #expect(line.contains(#""allowedTouchTypes":["pencil"]"#))
        let plain = String(decoding: SceneLine.encode(try scene(#"["direct", "indirect", "pencil", "indirectPointer"]"#), clients: []), as: UTF8.self)
        #expect(!plain.contains("allowedTouchTypes"))
    }
}
