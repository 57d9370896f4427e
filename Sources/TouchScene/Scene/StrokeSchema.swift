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
        }, alwaysInFiles: true),
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
        }),
        RecognizerProperty(key: "orientation", read: { g, v, p, r in
            let word = try r.reader.string(v, p)
            guard let o = Protractor.Orientation(rawValue: word) else {
                let names = Protractor.Orientation.allCases.map(\.rawValue)
                throw r.reader.error(p, "must be \(names.map { "\"\($0)\"" }.joined(separator: " or "))\(DidYouMean.hint(word, in: names)), not \"\(word)\"")
            }
            (g as! StrokeGestureRecognizer).orientation = o
        }, write: { g, w in w.key(string: "orientation"); w.string((g as! StrokeGestureRecognizer).orientation.rawValue) }),
        .int("touches", \StrokeGestureRecognizer.numberOfTouchesRequired, min: 1),
        RecognizerProperty(key: "minimumScore", read: { g, v, p, r in
            let n = try r.reader.number(v, p)
            guard (0...1).contains(n) else { throw r.reader.error(p, "must be from 0 to 1 (a template's cosine), found \(n)") }
            (g as! StrokeGestureRecognizer).minimumScore = n
        }, write: { g, w in w.key(string: "minimumScore"); w.number((g as! StrokeGestureRecognizer).minimumScore) }),
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

/// The templates' JSON: `{"templates": {NAME: [[[x, y], …], …]}}` in a file, the inner object inline.
package enum StrokeTemplatesFile {
    /// A shape's name: letters, digits and `_`, at most 64 (it goes into bind's keys and MQTT topics).
    package static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" }
    }

    package static func nameRule(_ s: String) -> String {
        "\"\(s)\": a shape's name has letters, digits and _ only (at most 64)"
    }

    /// A strokes file's drawings; errors name the file (`what` says who asked for it).
    package static func read(_ path: String, as what: String) throws -> [(name: String, points: [Point])] {
        let text: String
        do { text = try Files.readText(path) } catch {
            throw ConfigError(file: path, line: nil, path: "", message: "cannot read the templates (\(what)): \(error)")
        }
        var parser = JSONParser(text)
        let json: JSON
        do { json = try parser.parse() } catch let e as JSONSyntaxError {
            throw ConfigError(file: path, line: e.line, path: "", message: "column \(e.column): \(e.message)")
        }
        let r = ConfigReader(file: path, lines: parser.lines)
        let top = try r.object(json, "", allowed: [StrokeSchema.templatesKey])
        guard let t = top.first(where: { $0.0 == StrokeSchema.templatesKey })?.1 else {
            throw r.error("", "missing \"templates\": {\"NAME\": [[[x, y], …], …]}")
        }
        return try drawings(t, StrokeSchema.templatesKey, r)
    }

    /// `{NAME: [STROKE, …]}` read at `path`.
    package static func drawings(_ json: JSON, _ path: String, _ r: ConfigReader) throws -> [(name: String, points: [Point])] {
        guard let members = json.objectValue else { throw r.error(path, "must be \"builtin\", a file's name, or {\"NAME\": [[[x, y], …], …]}") }
        var out: [(String, [Point])] = []
        for (name, strokes) in members {
            let p = r.join(path, name)
            guard isName(name) else { throw r.error(p, nameRule(name)) }
            guard let list = strokes.arrayValue, !list.isEmpty else { throw r.error(p, "must be a list of strokes, each a list of [x, y]") }
            for (i, stroke) in list.enumerated() {
                let sp = "\(p)[\(i)]"
                guard let pts = stroke.arrayValue, pts.count >= 2 else { throw r.error(sp, "must be a list of two or more [x, y] points") }
                var points: [Point] = []
                points.reserveCapacity(pts.count)
                for (k, pt) in pts.enumerated() {
                    let xy = try r.numbers(pt, "\(sp)[\(k)]", count: 2, what: "[x, y]")
                    points.append(Point(x: xy[0], y: xy[1]))
                }
                guard Protractor.pathLength(points) > 0 else { throw r.error(sp, "has no length: its points are all one") }
                out.append((name, points))
            }
        }
        return out
    }

    /// Writes `{NAME: [STROKE, …]}`, names in their first order, points to 0.1.
    package static func write(_ drawings: [(name: String, points: [Point])], _ w: inout JSONWriter) {
        var order: [String] = []
        var byName: [String: [[Point]]] = [:]
        for d in drawings {
            if byName[d.name] == nil { order.append(d.name) }
            byName[d.name, default: []].append(d.points)
        }
        w.beginObject()
        for name in order {
            w.key(string: name)
            w.beginArray()
            for stroke in byName[name]! {
                w.beginArray()
                for p in stroke { w.numbers([(p.x * 10).rounded() / 10, (p.y * 10).rounded() / 10]) }
                w.endArray()
            }
            w.endArray()
        }
        w.endObject()
    }

    /// A whole file's text: `{"templates": {…}}`, a stroke a line (a file a person can read and diff).
    package static func fileText(_ drawings: [(name: String, points: [Point])]) -> String {
        var order: [String] = []
        var byName: [String: [[Point]]] = [:]
        for d in drawings {
            if byName[d.name] == nil { order.append(d.name) }
            byName[d.name, default: []].append(d.points)
        }
        var out = "{\"templates\": {\n"
        for (k, name) in order.enumerated() {
            var w = JSONWriter()
            w.string(name)
            out += "  " + w.string + ": [\n"
            let strokes = byName[name]!
            for (i, stroke) in strokes.enumerated() {
                var sw = JSONWriter()
                sw.beginArray()
                for p in stroke { sw.numbers([(p.x * 10).rounded() / 10, (p.y * 10).rounded() / 10]) }
                sw.endArray()
                out += "    " + sw.string + (i < strokes.count - 1 ? ",\n" : "\n")
            }
            out += "  ]" + (k < order.count - 1 ? ",\n" : "\n")
        }
        return out + "}}\n"
    }
}
