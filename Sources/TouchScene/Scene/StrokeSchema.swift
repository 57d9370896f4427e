import TouchCore
import TouchProtocol
import TouchSystem

/// A stroke recognizer's scene keys (docs/scenes.md, uikit-semantics ST1–ST6) and its templates'
/// files (docs/strokes.md).
///
///     {"name": "draw", "type": "stroke", "templates": "builtin" | "strokes.json" | {NAME: [STROKE, …]},
///      "shapes": ["circle", "check"], "orientation": "invariant" | "sensitive", "touches": 1,
///      "minimumScore": 0.85, "minimumLength": 60}
///
/// A templates file is `{"templates": {NAME: [STROKE, …], …}}`, a STROKE `[[x, y], …]` in any unit
/// (touchbridgectl stroke learn writes window points); a name is letters, digits and `_`.
package enum StrokeSchema {
    package static let templatesKey = "templates", builtIn = "builtin"
    /// The scene line's word on a stroke: its templates' shape names. Not a file's key: read past.
    package static let templateNamesKey = "templateNames"

    package static let properties: [RecognizerProperty] = [
        RecognizerProperty(key: templatesKey, read: { g, v, p, r in
            let s = g as! StrokeGestureRecognizer
            if let name = v.stringValue {
                if name == builtIn { return s.useBuiltInShapes() }
                guard let directory = r.filesDirectory else {
                    throw r.reader.error(p, "a templates file is read only from a scene file on disk: here give the templates inline, or \"builtin\"")
                }
                let path = name.hasPrefix("/") ? name : directory + "/" + name
                s.drawings = try StrokeTemplatesFile.read(path, as: r.reader.file + ": " + p)
                s.templateOrigin = name
            } else {
                s.drawings = try StrokeTemplatesFile.drawings(v, p, r.reader)         // inline: written back whole
            }
        }, write: { g, w in
            let s = g as! StrokeGestureRecognizer
            w.key(string: templatesKey)
            if let origin = s.templateOrigin { w.string(origin) } else { StrokeTemplatesFile.write(s.drawings, &w) }
        }, alwaysInFiles: true, form: .json),
        RecognizerProperty(key: "shapes", read: { g, v, p, r in
            let names = try r.reader.strings(v, p)
            for (i, n) in names.enumerated() where !StrokeTemplatesFile.isName(n) {
                throw r.reader.error("\(p)[\(i)]", StrokeTemplatesFile.nameRule(n))
            }
            (g as! StrokeGestureRecognizer).shapes = names
        }, write: { g, w in
            let s = g as! StrokeGestureRecognizer
            guard !s.shapes.isEmpty else { return }
            w.key(string: "shapes")
            w.beginArray()
            for n in s.shapes { w.string(n) }
            w.endArray()
        }, form: .strings),
        RecognizerProperty(key: "orientation", read: { g, v, p, r in
            let word = try r.reader.string(v, p)
            guard let o = Protractor.Orientation(rawValue: word) else {
                let names = Protractor.Orientation.allCases.map(\.rawValue)
                throw r.reader.error(p, "must be \(names.map { "\"\($0)\"" }.joined(separator: " or "))\(DidYouMean.hint(word, in: names)), not \"\(word)\"")
            }
            (g as! StrokeGestureRecognizer).orientation = o
        }, write: { g, w in w.key(string: "orientation"); w.string((g as! StrokeGestureRecognizer).orientation.rawValue) },
           form: .choice(Protractor.Orientation.allCases.map(\.rawValue))),
        .int("touches", \StrokeGestureRecognizer.numberOfTouchesRequired, min: 1),
        RecognizerProperty(key: "minimumScore", read: { g, v, p, r in
            let n = try r.reader.number(v, p)
            guard (0...1).contains(n) else { throw r.reader.error(p, "must be from 0 to 1 (a template's cosine), found \(n)") }
            (g as! StrokeGestureRecognizer).minimumScore = n
        }, write: { g, w in w.key(string: "minimumScore"); w.number((g as! StrokeGestureRecognizer).minimumScore) },
           form: .number(min: 0, max: 1)),
        .nonNegative("minimumLength", \StrokeGestureRecognizer.minimumLength),
    ]

    /// Across the keys: templates to match, and every shape named among them.
    package static func check(_ g: GestureRecognizer) -> String? {
        guard let s = g as? StrokeGestureRecognizer else { return nil }
        let names = s.prepared.names
        guard !names.isEmpty else { return "no templates: give \"templates\" (\"builtin\", a file, or the strokes inline)" }
        for shape in s.shapes where !names.contains(shape) {
            return "shapes: \"\(shape)\" is no template's name\(DidYouMean.hint(shape, in: names)); the templates are \(names.joined(separator: ", "))"
        }
        return nil
    }
}
