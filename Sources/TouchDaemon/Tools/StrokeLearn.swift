import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    /// `stroke learn NAME RECORDING… --templates FILE` (docs/strokes.md): every touch sequence of the
    /// recordings, played through the pipeline offline as the daemon would (the scene's mapping, or the
    /// built-in scene's), becomes a template NAME in FILE; the file is made when it does not exist and
    /// replaced whole, never half written.
    package static let strokeLearn = Command("stroke learn", operands: "NAME RECORDING...",
        "add the strokes of recordings (every touch sequence in them) to a templates file as\nshape NAME, for a \"stroke\" recognizer's \"templates\"", options: [
        .option("templates", "FILE", "the templates file (made when it does not exist)"),
        .option("scene", "FILE", "map the recordings as this scene does (default: the built-in scene)"),
        .option("desc", "FILE", "the device description for a recording of E: lines only"),
    ]) { a in
        guard a.positional.count >= 2 else { try a.expect(2, "a shape's name and at least one recording"); return 2 }
        let name = a.positional[0]
        guard StrokeTemplatesFile.isName(name) else {
            throw Arguments.Failure(description: "touchbridgectl stroke learn: \(StrokeTemplatesFile.nameRule(name))")
        }
        guard let file = a["templates"] else {
            throw Arguments.Failure(description: "touchbridgectl stroke learn: give --templates FILE, the file the strokes go to (made when missing)")
        }
        var drawings = Files.exists(file) ? try StrokeTemplatesFile.read(file, as: "--templates") : []
        let scene = try a["scene"].map { try Scene.load(path: $0) }
        let log = Logger(program: "touchbridgectl stroke learn", level: .warning)
        var said: [String] = []
        for path in a.positional.dropFirst() {
            let recording = try loadWhole(path, description: a["desc"], allowTruncated: false)
            try recording.requireEvents()
            var collector = StrokeCollector()
            var all: [[Point]] = []
            try OfflineReplay.play(recording, scene: scene, options: OfflineReplay.Options(topics: .touches), log: log) { bytes in
                guard let json = try? JSONParser.parse(String(decoding: bytes, as: UTF8.self)), let t = TouchLines.decode(json),
                      let s = collector.take(t) else { return }
                all.append(s.points)
            }
            all += collector.flush().map(\.points)
            // A tap, or a slip: nothing a stroke recognizer would match (ST5).
            let minimum = StrokeGestureRecognizer().minimumLength
            let strokes = all.filter { Protractor.pathLength($0) >= minimum }
            let short = all.count - strokes.count
            drawings += strokes.map { (name, $0) }
            said.append("\(strokes.count) from \(Files.baseName(path))" + (short > 0 ? " (\(short) too short, left out)" : ""))
        }
        guard drawings.contains(where: { $0.name == name }) else {
            throw Arguments.Failure(description: "touchbridgectl stroke learn: no stroke of \(StrokeGestureRecognizer().minimumLength) pt or more in \(a.positional.dropFirst().joined(separator: ", ")): nothing written")
        }
        try Files.replaceAtomically(file, StrokeTemplatesFile.fileText(drawings))
        var counts: [(String, Int)] = []
        for d in drawings {
            if let i = counts.firstIndex(where: { $0.0 == d.name }) { counts[i].1 += 1 } else { counts.append((d.name, 1)) }
        }
        print("touchbridgectl stroke learn: \(name): \(said.joined(separator: ", ")); \(file) has \(counts.map { "\($0.0) \($0.1)" }.joined(separator: ", "))")
        return 0
    }
}
