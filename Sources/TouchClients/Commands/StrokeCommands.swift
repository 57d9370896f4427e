import TouchCore
import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    /// `stroke record NAME --templates FILE` (docs/strokes.md): strokes drawn on the panel now, read
    /// from the daemon's touches topic, become templates NAME in FILE: each is drawn in the terminal as
    /// it is taken, with the template it is nearest to, and after `--count` of them (default 3) the file
    /// is written (made when missing, replaced whole).
    package static let strokeRecord = Command("stroke record", operands: "NAME",
        "draw a shape on the panel --count times (default 3): each stroke is shown as it is\ntaken, then they are added to the templates file as shape NAME", options: [
        .option("templates", "FILE", "the templates file (made when it does not exist)"),
        .option("count", "N", "how many strokes to take (default 3)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "the shape's name")
        let name = a.positional[0]
        guard StrokeTemplatesFile.isName(name) else { throw Arguments.Failure(description: "touchbridgectl stroke record: \(StrokeTemplatesFile.nameRule(name))") }
        guard let file = a["templates"] else {
            throw Arguments.Failure(description: "touchbridgectl stroke record: give --templates FILE, the file the strokes go to (made when missing)")
        }
        let count = try a.number("count").map(Int.init) ?? 3
        guard (1...50).contains(count) else { throw Arguments.Failure(description: "touchbridgectl stroke record: --count takes 1 to 50") }
        var drawings = Files.exists(file) ? try StrokeTemplatesFile.read(file, as: "--templates") : []
        let known = StrokeTemplateSet(drawings.isEmpty ? StrokeShapes.templates(.invariant) : drawings, orientation: .invariant)
        let loop = try EventLoop()
        let daemon = try DaemonConnection(path: try DaemonSocket.path(a), topics: ["touches"], loop: loop, reconnects: false)
        var collector = StrokeCollector()
        var taken: [[Point]] = []
        FileHandleStandardError.write("touchbridgectl stroke record: draw \(name) on the panel, \(count) times\n")
        daemon.onLine = { line in
            guard line.event == .touch, let json = line.json, let t = TouchLines.decode(json), let s = collector.take(t) else { return }
            let minimum = StrokeGestureRecognizer().minimumLength
            guard Protractor.pathLength(s.points) >= minimum else {
                return FileHandleStandardError.write("  too short (a stroke of \(Int(minimum)) pt or more): not taken\n")
            }
            taken.append(s.points)
            let v = Protractor.vector(s.points, orientation: .invariant)
            let near = known.best(v).map { "nearest \($0.name) \(StrokeGestureRecognizer.hundredths($0.score))" } ?? ""
            print("\(name) \(taken.count)/\(count): \(Int(Protractor.pathLength(s.points))) pt, \(s.points.count) frames\(near.isEmpty ? "" : "; " + near)")
            print(Self.sketch(s.points))
            if taken.count == count { loop.stop() }
        }
        try daemon.runOnce(loop)
        guard taken.count == count else {
            FileHandleStandardError.write("touchbridgectl stroke record: the daemon went away after \(taken.count) of \(count) strokes: nothing written\n")
            return 1
        }
        drawings += taken.map { (name, $0) }
        try Files.replaceAtomically(file, StrokeTemplatesFile.fileText(drawings))
        print("touchbridgectl stroke record: \(count) strokes of \(name) added to \(file)")
        return 0
    }

    /// `stroke shapes`: the built-in shapes as a templates file, to start one of your own from.
    package static let strokeShapes = Command("stroke shapes",
        "print the built-in shapes (\"templates\": \"builtin\") as a templates file", options: [
        .flag("sensitive", "the orientation-sensitive set (four arrows instead of one)"),
    ]) { a in
        try a.expect(0, "nothing")
        let set = StrokeShapes.templates(a.has("sensitive") ? .sensitive : .invariant)
        // In points: the unit box drawn 200 pt wide, as a stroke on a panel would be.
        print(StrokeTemplatesFile.fileText(set.map { ($0.name, $0.points.map { Point(x: $0.x * 200, y: $0.y * 200) }) }), terminator: "")
        return 0
    }

    /// A stroke in the terminal: 40 × 16 characters, `o` where it starts, `*` where it goes.
    static func sketch(_ points: [Point]) -> String {
        let w = 40, h = 16
        var grid = [[Character]](repeating: [Character](repeating: " ", count: w), count: h)
        let xs = points.map(\.x), ys = points.map(\.y)
        let minX = xs.min() ?? 0, minY = ys.min() ?? 0
        // Columns a point, the same both ways on the screen: a cell is twice as tall as it is wide.
        let scale = min(Double(w - 1) / max((xs.max() ?? 0) - minX, 1), Double(h - 1) * 2 / max((ys.max() ?? 0) - minY, 1))
        func cell(_ p: Point) -> (Int, Int) { (min(h - 1, Int((p.y - minY) * scale / 2)), min(w - 1, Int((p.x - minX) * scale))) }
        for p in Protractor.resample(points, 200) {
            let (r, c) = cell(p)
            grid[r][c] = "*"
        }
        if let first = points.first {
            let (r, c) = cell(first)
            grid[r][c] = "o"
        }
        return grid.map { "  " + String($0) }.joined(separator: "\n")
    }
}
