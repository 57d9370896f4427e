import TouchCore
import TouchProtocol
import TouchSystem

/// The scene format as data, for a program that builds its forms from it (the scene editor's page,
/// `GET /schema`): every recognizer type with its properties, their forms and defaults; the actions,
/// the recognizers each acts on and their options; the keys of a view, a device entry, the display and
/// the keyboard. It is read from the schema's own tables at run time, so a key added there is in the
/// editor with no change to the page.
///
///     {"recognizerTypes": [{"type": "tap", "discrete": true,
///                           "properties": [{"key": "numberOfTapsRequired", "form": "integer", "min": 1, "default": 1}, …]}, …],
///      "commonProperties": […], "links": ["requireToFail", "simultaneousWith"], "scopes": ["apps", "exceptApps"],
///      "actions": [{"key": "scroll", "recognizers": ["pan", "screenEdgePan"], "options": […], "default": {…}}, …],
///      "moments": […], "buttons": […], "view": […], "device": […], "display": […], "keyboard": […], "topLevel": […]}
package enum SchemaDescription {
    package static func json(recognizerTypes: [RecognizerSchema] = RecognizerSchema.all) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("recognizerTypes"); w.beginArray()
        for schema in recognizerTypes {
            let fresh = schema.make()
            w.beginObject()
            w.key("type"); w.staticString(schema.kind.name)
            w.key("discrete"); w.bool(fresh.isDiscrete)
            w.key("properties"); w.beginArray()
            for p in schema.properties { property(p.key, p.form, defaultOf(p, fresh), &w) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        let fresh = TapGestureRecognizer()
        w.key("commonProperties"); w.beginArray()
        for p in RecognizerSchema.common { property(p.key, p.form, defaultOf(p, fresh), &w) }
        w.endArray()
        w.key("links"); strings([RecognizerSchema.requireToFailKey, RecognizerSchema.simultaneousKey], &w)
        w.key("scopes"); strings([RecognizerSchema.appsKey, RecognizerSchema.exceptAppsKey], &w)
        w.key("actions"); w.beginArray()
        for kind in ActionSchema.kinds {
            w.beginObject()
            w.key("key"); w.string(kind.name)
            if let r = kind.recognizers { w.key("recognizers"); strings(r.map { $0.name.description }, &w) }
            w.key("pencilButtons"); w.bool(kind.onPencilButton)
            switch kind.name {
            case "keys": w.key("form"); w.staticString("chords")
            case "click":
                w.key("form"); w.staticString("choice")
                w.key("choices"); strings(PointerButton.allCases.map(\.rawValue), &w)
            default:
                let (options, value) = optionsOf(kind.name)
                w.key("form"); w.staticString("options")
                w.key("options"); w.beginArray()
                for o in options { property(o.key, o.form, value[o.key], &w) }
                w.endArray()
            }
            w.endObject()
        }
        w.endArray()
        w.key("moments"); strings(Action.Moment.allCases.map(\.rawValue), &w)
        w.key("view"); w.beginArray()
        for k in ViewSchema.keys where !k.derived && k.key != ViewSchema.recognizersKey && k.key != ViewSchema.subviewsKey {
            property(k.key, k.form, nil, &w, required: k.missing != nil)
        }
        w.endArray()
        config("device", DeviceSchema.schema, DeviceConfig(), &w)
        config("display", DisplaySchema.schema, DisplayConfig(), &w)
        config("keyboard", KeyboardSchema.schema, KeyboardNames(), &w)
        w.key("topLevel"); strings(SceneSchema.topLevel, &w)
        w.endObject()
        return w.bytes
    }

    /// What a fresh recognizer writes for `p`: its default (nil where a file leaves it out).
    static func defaultOf(_ p: RecognizerProperty, _ g: GestureRecognizer) -> JSON? {
        written { w in
            w.beginObject()
            p.write(g, &w)
            w.endObject()
        }[p.key]
    }

    /// An action kind's options and the defaults it writes.
    static func optionsOf(_ kind: String) -> ([(key: String, form: ValueForm)], JSON) {
        switch kind {
        case "scroll": options(ActionSchema.scroll, ScrollOptions())
        case "zoom": options(ActionSchema.zoom, ActionSchema.defaultZoomStep)
        case "touchpad": options(ActionSchema.touchpad, TouchpadOptions())
        case "value": options(ActionSchema.slider, ValueOptions())
        default: ([], .object([]))
        }
    }

    /// A schema's keys with their forms, and what `value` writes (the defaults, for a fresh value).
    static func options<V>(_ schema: ConfigSchema<V>, _ value: V) -> ([(key: String, form: ValueForm)], JSON) {
        (schema.keys.map { (key: $0.key, form: $0.form) }, written { schema.write(value, &$0) })
    }

    static func config<V>(_ name: StaticString, _ schema: ConfigSchema<V>, _ value: V, _ w: inout JSONWriter) {
        let (keys, defaults) = options(schema, value)
        w.key(name); w.beginArray()
        for k in keys { property(k.key, k.form, defaults[k.key], &w) }
        w.endArray()
    }

    /// What `body` writes, read back as JSON (an empty object when it is none).
    static func written(_ body: (inout JSONWriter) -> Void) -> JSON {
        var w = JSONWriter()
        body(&w)
        var parser = JSONParser(bytes: w.bytes, recordsLines: false)
        return (try? parser.parse()) ?? .object([])
    }

    /// `{"key": K, "form": F, …the form's bounds or choices, "default": D}`.
    static func property(_ key: String, _ form: ValueForm, _ value: JSON?, _ w: inout JSONWriter, required: Bool = false) {
        w.beginObject()
        w.key("key"); w.string(key)
        w.key("form")
        switch form {
        case .bool: w.staticString("bool")
        case .integer(let min, let max):
            w.staticString("integer")
            w.key("min"); w.int(min)
            if let max { w.key("max"); w.int(max) }
        case .number(let min, let max):
            w.staticString("number")
            if let min { w.key("min"); w.number(min) }
            if let max { w.key("max"); w.number(max) }
        case .string: w.staticString("string")
        case .choice(let words): w.staticString("choice"); w.key("choices"); strings(words, &w)
        case .names(let words): w.staticString("names"); w.key("choices"); strings(words, &w)
        case .strings: w.staticString("strings")
        case .numbers(let n): w.staticString("numbers"); w.key("count"); w.int(n)
        case .json: w.staticString("json")
        }
        if required { w.key("required"); w.bool(true) }
        if let value { w.key("default"); w.value(value) }
        w.endObject()
    }

    static func strings(_ list: [String], _ w: inout JSONWriter) {
        w.beginArray()
        for s in list { w.string(s) }
        w.endArray()
    }
}
