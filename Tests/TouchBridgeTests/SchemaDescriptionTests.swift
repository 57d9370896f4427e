import Testing
import TouchCore
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// The scene format as data for the editor (SchemaDescription): it is the schema's tables, read at run
/// time, so the page holds no copy of them.
@Suite("The schema described for the editor")
struct SchemaDescriptionTests {
    static func described(_ types: [RecognizerSchema] = RecognizerSchema.all) throws -> JSON {
        var p = JSONParser(bytes: SchemaDescription.json(recognizerTypes: types), recordsLines: false)
        return try p.parse()
    }

    @Test("Every recognizer type and every property is described, with its form and default, in the schema's order")
    func recognizers() throws {
        let d = try Self.described()
        let types = try #require(d["recognizerTypes"]?.arrayValue)
        #expect(types.compactMap { $0["type"]?.stringValue } == RecognizerSchema.typeNames)
        for (t, schema) in zip(types, RecognizerSchema.all) {
            #expect(t["properties"]?.arrayValue?.compactMap { $0["key"]?.stringValue } == schema.properties.map(\.key))
        }
        let tap = types[0]["properties"]!.arrayValue!
        #expect(tap[0] == .object([("key", .string("numberOfTapsRequired")), ("form", .string("integer")), ("min", .number(1)), ("default", .number(1))]))
        let swipe = try #require(types.first { $0["type"]?.stringValue == "swipe" })
        #expect(swipe["discrete"] == .bool(true))
        #expect(swipe["properties"]?.arrayValue?.first?["choices"] == .array(["right", "left", "up", "down"].map(JSON.string)))
        #expect(d["commonProperties"]?.arrayValue?.compactMap { $0["key"]?.stringValue } == RecognizerSchema.common.map(\.key))
    }

    @Test("A property added to the schema is in the description: the page needs no change for it")
    func addedProperty() throws {
        var tap = RecognizerSchema.all[0]
        tap = RecognizerSchema(kind: tap.kind, make: tap.make, properties: tap.properties + [
            .int("maximumTapInterval", \TapGestureRecognizer.numberOfTapsRequired, min: 1),
        ])
        let d = try Self.described([tap])
        let keys = d["recognizerTypes"]?.arrayValue?[0]["properties"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
        #expect(keys?.last == "maximumTapInterval")
    }

    @Test("Each action lists the recognizer types its reader takes, and its options with their defaults")
    func actions() throws {
        let d = try Self.described()
        let actions = try #require(d["actions"]?.arrayValue)
        #expect(actions.compactMap { $0["key"]?.stringValue } == ActionSchema.kindNames)
        let sample: [String: String] = ["keys": #""ctrl+z""#, "click": #""right""#, "scroll": "{}", "zoom": "{}", "touchpad": #"{"fingers": 3}"#, "value": "{}"]
        for a in actions {
            let key = a["key"]!.stringValue!
            let listed = a["recognizers"]?.arrayValue?.compactMap(\.stringValue) ?? RecognizerSchema.typeNames
            for type in RecognizerSchema.typeNames {
                let recognizer = type == "stroke" ? #"{"name": "r", "type": "stroke", "templates": "builtin""# : #"{"name": "r", "type": "\#(type)""#
                let text = #"{"window": {"width": 100, "height": 100}, "keyboard": {"layout": "us"}, "views": [{"name": "v", "frame": [0, 0, 100, 100], "recognizers": [\#(recognizer), "action": {"\#(key)": \#(sample[key]!)}}]}]}"#
                let takes = (try? Scene.parse(text, file: "t", systemKeyboard: KeyboardNames())) != nil
                #expect(takes == listed.contains(type), "\(key) on a \(type)")
            }
        }
        let scroll = try #require(actions.first { $0["key"]?.stringValue == "scroll" })
        #expect(scroll["options"]?.arrayValue?.map { $0["default"] } == [.number(50), .bool(true), .string("normal")])
        #expect(scroll["options"]?.arrayValue?[2]["choices"] == .array(["normal", "fast", "none"].map(JSON.string)))
    }

    @Test("The view's, a device entry's, the display's and the keyboard's keys are described")
    func others() throws {
        let d = try Self.described()
        #expect(d["view"]?.arrayValue?.compactMap { $0["key"]?.stringValue } == ViewSchema.keys.filter { !$0.derived && $0.key != "recognizers" && $0.key != "subviews" }.map(\.key))
        #expect(d["view"]?.arrayValue?[1] == .object([("key", .string("frame")), ("form", .string("numbers")), ("count", .number(4)), ("required", .bool(true))]))
        #expect(d["device"]?.arrayValue?.compactMap { $0["key"]?.stringValue } == DeviceSchema.schema.names)
        #expect(d["display"]?.arrayValue?.first { $0["key"]?.stringValue == "dimTo" }?["default"] == .number(0.1))
        #expect(d["topLevel"]?.arrayValue?.compactMap(\.stringValue) == SceneSchema.topLevel)
    }
}
