import Testing
import TouchCore
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// Scene files as the project writes them (SceneFileText: the editor's Save, `scene format`).
@Suite("Scene files written as the project writes them")
struct SceneFileTextTests {
    static func format(_ text: String) throws -> String {
        var p = JSONParser(text)
        return SceneFileText.format(try p.parse())
    }

    @Test("Every scene the project ships, and the built-in ones, come back byte for byte")
    func roundTrip() throws {
        for name in ["default", "gnome", "kde", "kiosk", "sway"] {
            let text = try Files.readText(Built.root + "/scenes/\(name).json")
            #expect(try Self.format(text) == text, "scenes/\(name).json")
        }
        for passthrough in [false, true] {
            let text = Scene.builtInJSON(passthrough: passthrough)
            #expect(try Self.format(text) == text)
        }
    }

    @Test("Keys go in the schema's order, whatever the order written; what was written stays")
    func order() throws {
        let messy = #"""
        {"views": [{"recognizers": [{"action": {"on": "ended", "keys": "alt+Left"}, "edges": ["left"], "type": "screenEdgePan", "name": "back", "enabled": true},
                                     {"type": "pan", "name": "scroll", "action": {"scroll": {"deceleration": "fast", "pointsPerNotch": 40}}}],
                    "frame": [0, 0, 10, 10], "name": "v", "subviews": [{"frame": [1, 1, 2, 2], "name": "inner"}]}],
         "display": {"offAfter": 60, "dimAfter": 30}, "window": {"height": 480, "width": 800}}
        """#
        let expected = #"""
        {
          "window": {"width": 800, "height": 480},
          "views": [
            {"name": "v", "frame": [0, 0, 10, 10],
             "recognizers": [
               {"name": "back", "type": "screenEdgePan", "enabled": true, "edges": ["left"], "action": {"keys": "alt+Left", "on": "ended"}},
               {"name": "scroll", "type": "pan", "action": {"scroll": {"pointsPerNotch": 40, "deceleration": "fast"}}}
             ],
             "subviews": [
               {"name": "inner", "frame": [1, 1, 2, 2]}
             ]}
          ],
          "display": {"dimAfter": 30, "offAfter": 60}
        }

        """#
        let text = try Self.format(messy)
        #expect(text == expected)
        #expect(try Self.format(text) == text)
        _ = try Scene.parse(text, file: "formatted", systemKeyboard: KeyboardNames())
    }

    @Test("A long entry wraps before its long lists, under its brace; a long device list goes an entry a line")
    func wrapping() throws {
        let apps = (1...12).map { "\"org.example.app\($0)\"" }.joined(separator: ", ")
        let text = try Self.format(#"{"window": {"width": 10, "height": 10}, "devices": [{"name": "a", "passthrough": true, "passthroughApps": [\#(apps)]}, {"name": "b"}], "views": []}"#)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[2] == "  \"devices\": [")
        #expect(lines[3] == "    {\"name\": \"a\", \"passthrough\": true,")
        #expect(lines[4].hasPrefix("     \"passthroughApps\": [\"org.example.app1\""))
        #expect(lines[5] == "    {\"name\": \"b\"}")
        #expect(text.contains("\"views\": []"))
    }
}
