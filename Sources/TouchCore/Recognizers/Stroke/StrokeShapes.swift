/// The built-in shapes (`"templates": "builtin"`), drawn here by code as a person draws them on a
/// screen: in a unit box, y down, from where the pen starts, in the direction most people go, and the
/// other way too where both are common (a circle, a triangle, a rectangle). Nothing is copied from a
/// data set. uikit-semantics ST6.
///
/// Rotated copies of one shape cannot be told apart rotation-invariant, so the arrows are one `arrow`
/// there and four (`arrowRight`, `arrowLeft`, `arrowUp`, `arrowDown`) orientation-sensitive.
public enum StrokeShapes {
    /// The shapes' names, for messages and docs (the arrows as both modes name them).
    public static let names: [String] = ["circle", "check", "caret", "v", "triangle", "rectangle", "zigzag", "star", "pigtail",
                                         "x", "C", "S", "Z", "L", "question", "arrow", "arrowRight", "arrowLeft", "arrowUp", "arrowDown"]

    /// The built-in templates for `orientation`: each name with one or more drawings.
    public static func templates(_ orientation: Protractor.Orientation) -> [(name: String, points: [Point])] {
        var out: [(String, [Point])] = []
        func add(_ name: String, _ points: [Point], bothWays: Bool = false) {
            out.append((name, points))
            if bothWays { out.append((name, points.reversed())) }
        }
        add("circle", arc(from: -Double.pi / 2, turn: -2 * Double.pi), bothWays: true)     // from the top, either way round
        add("check", line([(0, 0.55), (0.35, 1), (1, 0)]))
        add("caret", line([(0, 1), (0.5, 0), (1, 1)]))
        add("v", line([(0, 0), (0.5, 1), (1, 0)]))
        add("triangle", line([(0.5, 0), (0, 0.87), (1, 0.87), (0.5, 0)]), bothWays: true)
        add("rectangle", line([(0, 0), (0, 0.7), (1, 0.7), (1, 0), (0, 0)]), bothWays: true)
        add("zigzag", line([(0, 0), (0.25, 1), (0.5, 0), (0.75, 1), (1, 0)]))
        add("star", line([(0.5, 0), (0.2, 0.95), (0.98, 0.35), (0.02, 0.35), (0.8, 0.95), (0.5, 0)]))
        // A line down and a small loop at its end, the pig's tail.
        add("pigtail", line([(0.1, 0), (0.35, 0.65)]) + arc(center: Point(x: 0.55, y: 0.7), radius: 0.2, from: Double.pi, turn: -2 * Double.pi).dropFirst())
        // An x in one stroke: one diagonal, up the side, the other diagonal.
        add("x", line([(0, 0), (1, 1), (1, 0), (0, 1)]))
        add("C", arc(center: Point(x: 0.5, y: 0.5), radius: 0.5, from: -Double.pi / 4, turn: -1.5 * Double.pi))
        // S: the top bowl counterclockwise from its upper right, then the bottom bowl clockwise.
        // Each bowl turns 240°: the top one from 30° above its right to its bottom, the bottom one from its
        // top round its right to 30° below its left.
        add("S", arc(center: Point(x: 0.5, y: 0.27), radius: 0.27, from: -Double.pi / 6, turn: -4 * Double.pi / 3)
            + arc(center: Point(x: 0.5, y: 0.73), radius: 0.27, from: -Double.pi / 2, turn: 4 * Double.pi / 3).dropFirst())
        add("Z", line([(0, 0), (1, 0), (0, 1), (1, 1)]))
        add("L", line([(0, 0), (0, 1), (0.6, 1)]))
        // A question mark's hook: over the top from the left, down the right, in to the middle, down.
        add("question", arc(center: Point(x: 0.5, y: 0.3), radius: 0.3, from: Double.pi, turn: 1.5 * Double.pi) + line([(0.5, 0.6), (0.5, 0.9)]).dropFirst())
        // An arrow to the right: the shaft, then the head's two strokes.
        let arrow = line([(0, 0.5), (1, 0.5), (0.72, 0.25), (1, 0.5), (0.72, 0.75)])
        switch orientation {
        case .invariant:
            add("arrow", arrow)
        case .sensitive:
            for (name, turns) in [("arrowRight", 0), ("arrowDown", 1), ("arrowLeft", 2), ("arrowUp", 3)] {
                add(name, arrow.map { rotatedQuarter($0, turns) })
            }
        }
        return out
    }

    /// A polyline through unit-box points, with points every 0.05 along it (a finger's frames).
    static func line(_ corners: [(Double, Double)]) -> [Point] {
        var out: [Point] = []
        for (a, b) in zip(corners, corners.dropFirst()) {
            let p = Point(x: a.0, y: a.1), q = Point(x: b.0, y: b.1)
            let steps = max(1, Int((p.distance(to: q) / 0.05).rounded(.up)))
            if out.isEmpty { out.append(p) }
            for i in 1...steps { out.append(p + (q - p) * (Double(i) / Double(steps))) }
        }
        return out
    }

    /// An arc about `center` from the angle `from`, turning `turn` radians (negative: counterclockwise on
    /// the screen, y down), 48 points a full turn.
    static func arc(center: Point = Point(x: 0.5, y: 0.5), radius: Double = 0.5, from: Double, turn: Double) -> [Point] {
        let steps = max(2, Int((abs(turn) / (2 * Double.pi) * 48).rounded(.up)))
        return (0...steps).map { i in
            let a = from + turn * Double(i) / Double(steps)
            return Point(x: center.x + radius * TouchMath.cos(a), y: center.y + radius * TouchMath.sin(a))
        }
    }

    /// `p` turned clockwise on the screen by `turns` quarters about the unit box's middle.
    static func rotatedQuarter(_ p: Point, _ turns: Int) -> Point {
        var q = p
        for _ in 0..<turns { q = Point(x: 1 - q.y, y: q.x) }
        return q
    }
}
