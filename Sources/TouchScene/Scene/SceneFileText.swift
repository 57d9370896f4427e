import TouchProtocol
import TouchSystem

/// A scene file's text as the project writes scenes (scenes/*.json; the editor's Save, `scene format`):
/// each object's keys in its schema's order — the top level's, a view's, each recognizer type's, an
/// action's, a device entry's — and the layout people read: the top level a key a line, each view a
/// line of its own keys with its recognizers one a line beneath it and its subviews indented under
/// them, everything else on one line with a space after each colon and comma.
///
///     {
///       "window": {"width": 1280, "height": 800},
///       "views": [
///         {"name": "screen", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": true,
///          "recognizers": [
///            {"name": "doubleTap", "type": "tap", "numberOfTapsRequired": 2}
///          ]}
///       ]
///     }
///
/// It works on the JSON as written, not on a parsed scene: what a person wrote stays (a default said
/// out loud, an unknown key the checker will name), only its order and layout change. Formatting the
/// text it wrote gives the same bytes.
package enum SceneFileText {
    /// A list on one line longer than this (columns) is broken a member a line.
    package static let width = 120

    package static func format(_ scene: JSON) -> String {
        guard let members = scene.objectValue else { return inline(scene) + "\n" }
        guard !members.isEmpty else { return "{}\n" }
        var lines: [String] = []
        for (k, v) in ordered(members, SceneSchema.topLevel) {
            let key = "  " + quoted(k) + ": "
            switch k {
            case SceneSchema.views: lines.append(key + views(v, indent: 2))
            case SceneSchema.devices: lines.append(key + list(v, indent: 2, column: key.count, entry: device))
            default: lines.append(key + inline(orderedValue(k, v)))
            }
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    // MARK: Views

    /// `[` and a view a line at `indent` + 2, `]` under the opening line's indent.
    static func views(_ json: JSON, indent: Int) -> String {
        guard let list = json.arrayValue, !list.isEmpty else { return inline(json) }
        let pad = String(repeating: " ", count: indent + 2)
        return "[\n" + list.map { pad + view($0, indent: indent + 2) }.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "]"
    }

    /// A view whose `{` is at column `indent`: its own keys on that line, its recognizers and subviews
    /// under it, one column in.
    static func view(_ json: JSON, indent: Int) -> String {
        guard let members = json.objectValue else { return inline(json) }
        let own = ordered(members, ViewSchema.allowed)
        let plain = own.filter { $0.0 != ViewSchema.recognizersKey && $0.0 != ViewSchema.subviewsKey }
        let head = "{" + plain.map { quoted($0.0) + ": " + inline($0.1) }.joined(separator: ", ")
        let inner = String(repeating: " ", count: indent + 1)
        var parts: [String] = []
        for (k, v) in own where k == ViewSchema.recognizersKey || k == ViewSchema.subviewsKey {
            guard let items = v.arrayValue, !items.isEmpty else {
                parts.append(inner + quoted(k) + ": " + inline(v))
                continue
            }
            let itemPad = String(repeating: " ", count: indent + 3)
            let body = k == ViewSchema.recognizersKey
                ? items.map { itemPad + wrapped(recognizer($0), column: indent + 3) }
                : items.map { itemPad + view($0, indent: indent + 3) }
            parts.append(inner + quoted(k) + ": [\n" + body.joined(separator: ",\n") + "\n" + inner + "]")
        }
        guard !parts.isEmpty else { return head + "}" }
        return head + (plain.isEmpty ? "\n" : ",\n") + parts.joined(separator: ",\n") + "}"
    }

    // MARK: Orders

    /// A recognizer's keys in its type's order (an unknown type: the name and the type first).
    static func recognizer(_ json: JSON) -> JSON {
        guard let members = json.objectValue else { return json }
        let type = json[RecognizerSchema.typeKey]?.stringValue ?? ""
        let keys = RecognizerSchema.named(type)?.allowedKeys ?? [RecognizerSchema.nameKey, RecognizerSchema.typeKey]
        return .object(ordered(members, keys).map { k, v in
            switch k {
            case RecognizerSchema.actionKey: (k, v.arrayValue.map { .array($0.map(action)) } ?? action(v))
            default: (k, v)
            }
        })
    }

    /// An action: its kind, then what modifies it; an options object in its kind's order.
    static func action(_ json: JSON) -> JSON {
        guard let members = json.objectValue else { return json }
        return .object(ordered(members, ActionSchema.allowedKeys).map { k, v in
            guard let options = v.objectValue, let order = ActionSchema.optionKeys(of: k) else { return (k, v) }
            return (k, .object(ordered(options, order)))
        })
    }

    static func device(_ json: JSON) -> JSON {
        json.objectValue.map { .object(ordered($0, DeviceSchema.schema.names)) } ?? json
    }

    /// The top level's other objects in their schemas' order.
    static func orderedValue(_ key: String, _ json: JSON) -> JSON {
        guard let members = json.objectValue else { return json }
        switch key {
        case SceneSchema.window: return .object(ordered(members, [SceneSchema.width, SceneSchema.height]))
        case SceneSchema.keyboard: return .object(ordered(members, KeyboardSchema.schema.names))
        case SceneSchema.display: return .object(ordered(members, DisplaySchema.schema.names))
        case SceneSchema.pencilButtons: return .object(ordered(members, SceneSchema.buttons).map { ($0.0, action($0.1)) })
        default: return json
        }
    }

    /// `members` with the keys of `order` first, in that order, then the rest as they were.
    static func ordered(_ members: [(String, JSON)], _ order: [String]) -> [(String, JSON)] {
        let known = order.compactMap { k in members.first { $0.0 == k } }
        return known + members.filter { m in !order.contains(m.0) }
    }

    // MARK: Text

    /// A list on one line that starts at `column`, or, past `width`, a member a line at `indent` + 2
    /// (one member: on the line, wrapped).
    static func list(_ json: JSON, indent: Int, column: Int, entry: (JSON) -> JSON) -> String {
        guard let items = json.arrayValue else { return inline(json) }
        let one = "[" + items.map { inline(entry($0)) }.joined(separator: ", ") + "]"
        guard column + one.count > width else { return one }
        if items.count == 1 { return "[" + wrapped(entry(items[0]), column: column + 1) + "]" }
        let pad = String(repeating: " ", count: indent + 2)
        return "[\n" + items.map { pad + wrapped(entry($0), column: indent + 2) }.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "]"
    }

    /// An object whose `{` is at `column` on one line, or, past `width`, broken before each member
    /// whose value is long (a list of apps), the next line one column in: `{"name": "*", "passthrough":
    /// true,` then `"passthroughApps": […]}` under it.
    static func wrapped(_ json: JSON, column: Int) -> String {
        let one = inline(json)
        guard column + one.count > width, let members = json.objectValue, members.count > 1 else { return one }
        let pad = String(repeating: " ", count: column + 1)
        var lines: [String] = [], current: [String] = []
        for (k, v) in members {
            let value = inline(v)
            if value.count > 40 && !current.isEmpty {
                lines.append(current.joined(separator: ", "))
                current = []
            }
            current.append(quoted(k) + ": " + value)
        }
        lines.append(current.joined(separator: ", "))
        return "{" + lines.joined(separator: ",\n" + pad) + "}"
    }

    /// One line: a space after each colon and comma outside strings.
    package static func inline(_ json: JSON) -> String {
        switch json {
        case .array(let items): "[" + items.map(inline).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { quoted($0.0) + ": " + inline($0.1) }.joined(separator: ", ") + "}"
        default: json.text
        }
    }

    static func quoted(_ s: String) -> String { JSON.string(s).text }
}
