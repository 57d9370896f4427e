import TouchCore
import TouchProtocol
import TouchSystem

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

/// Strokes from touch lines (`stroke learn` offline, `stroke record` live): one stroke a touch sequence
/// of a device (its first finger down to its last lift), the centroid of its fingers in each frame, as
/// a stroke recognizer takes them (ST1). A sequence with a cancelled touch (a palm, a device gone) is
/// no stroke.
package struct StrokeCollector {
    private struct Sequence {
        var down: [Int: Point] = [:]
        var inFrame: [Int: Point] = [:]
        var frameTime: Double?
        var points: [Point] = []
        var cancelled = false
    }
    private var sequences: [Int: Sequence] = [:]

    package init() {}

    /// Takes a touch line; returns the stroke a finished sequence made, and its device.
    package mutating func take(_ t: TouchLines.Decoded) -> (device: Int, points: [Point])? {
        var finished: (Int, [Point])?
        var s = sequences[t.device] ?? Sequence()
        if let time = s.frameTime, time != t.time { finished = close(&s, device: t.device) }
        s.frameTime = t.time
        let p = Point(x: t.x, y: t.y)
        s.inFrame[t.id] = p
        switch t.phase {
        case "began", "moved", "stationary": s.down[t.id] = p
        case "cancelled": s.cancelled = true; s.down[t.id] = nil
        default: s.down[t.id] = nil
        }
        // The last finger lifted: no other line can belong to this frame (every touch down is in each
        // frame's lines), so the stroke ends now, not when a later line comes.
        if s.down.isEmpty, finished == nil { finished = close(&s, device: t.device) }
        sequences[t.device] = s
        return finished.map { (device: $0.0, points: $0.1) }
    }

    /// The frames not yet closed: a sequence's last frame ends with the lines.
    package mutating func flush() -> [(device: Int, points: [Point])] {
        var out: [(device: Int, points: [Point])] = []
        for device in sequences.keys.sorted() {
            var s = sequences[device]!
            if let f = close(&s, device: device) { out.append((f.0, f.1)) }
            sequences[device] = s
        }
        return out
    }

    /// Ends a frame: its centroid joins the stroke; when no finger is left down, the stroke is done.
    private mutating func close(_ s: inout Sequence, device: Int) -> (Int, [Point])? {
        guard !s.inFrame.isEmpty else { return nil }
        var c = Point.zero
        for p in s.inFrame.values { c += p }
        c = c / Double(s.inFrame.count)
        if c != s.points.last { s.points.append(c) }
        s.inFrame = [:]
        s.frameTime = nil
        guard s.down.isEmpty else { return nil }
        let done = s.cancelled ? nil : (device, s.points)
        s = Sequence()
        return done
    }
}
