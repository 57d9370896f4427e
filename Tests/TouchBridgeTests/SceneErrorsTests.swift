import Testing
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// A scene with several mistakes is reported as a compiler reports a file: every error it can, in one
/// pass, each with its line and path, in the order of the file.
@Suite("Scene errors, all at once")
struct ConfigErrorsTests {
    func errors(_ text: String) -> [String] {
        do { _ = try Scene.parse(text, file: "s.json", systemKeyboard: KeyboardNames()); return [] } catch let e as ConfigErrors {
            return e.lines
        } catch {
            return ["\(error)"]
        }
    }

    @Test("Two mistakes in two views are reported together, in the file's order")
    func two() {
        let lines = errors("""
        {"window": {"width": 100, "height": 100},
         "views": [
          {"name": "a", "frame": [0, 0, 10, 10], "recognizers": [{"name": "t", "type": "tapp"}]},
          {"name": "b", "frame": [0, 0, 10, 10], "alpha": 2}
         ]}
        """)
        #expect(lines == [#"s.json:3: views[0].recognizers[0].type: unknown recognizer type "tapp" (did you mean "tap"?); one of tap, longPress, pan, screenEdgePan, swipe, pinch, rotation, hover, stroke"#,
                          "s.json:4: views[1].alpha: must be between 0 and 1, found 2.0",
                          "2 errors in s.json"])
    }

    @Test("A recognizer whose definition failed is not a second error where it is named")
    func noCascade() {
        let lines = errors("""
        {"window": {"width": 100, "height": 100},
         "views": [{"name": "a", "frame": [0, 0, 10, 10], "recognizers": [
           {"name": "t", "type": "tap", "numberOfTapsRequired": 0},
           {"name": "p", "type": "pan", "requireToFail": ["t"]},
           {"name": "q", "type": "pan", "requireToFail": ["nobody"]}]}]}
        """)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("s.json:3: views[0].recognizers[0].numberOfTapsRequired"))
        #expect(lines[1].hasPrefix(#"s.json:5: views[0].recognizers[2].requireToFail[0]: no recognizer is named "nobody""#))
    }

    @Test("One error is itself; a JSON syntax error stops at once; 20 at most")
    func limits() {
        do { _ = try Scene.parse(#"{"window": {"width": 0, "height": 1}, "views": []}"#, file: "s.json") } catch let e as ConfigError {
            #expect(e.path == "window.width")
        } catch { Issue.record("not a ConfigError: \(error)") }
        #expect(errors(#"{"window": {"width": 1, "height": 1}, "views": [,]}"#).count == 1)
        let many = (0..<30).map { #"{"name": "v\#($0)", "frame": [0, 0, 1]}"# }.joined(separator: ",\n")
        let lines = errors(#"{"window": {"width": 1, "height": 1}, "views": [\#n\#(many)]}"#)
        #expect(lines.count == ConfigErrors.limit + 1)
        #expect(lines.last == "20 or more errors in s.json (the first 20 shown)")
    }
}
