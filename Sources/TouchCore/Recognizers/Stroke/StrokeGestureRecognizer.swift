/// Recognizes a drawn shape (a circle, a check mark, a letter) among templates: the stroke of one
/// finger, or the centroid of `numberOfTouchesRequired` fingers moving together, matched when it lifts
/// (Protractor). Discrete, as UIKit's textbook "checkmark" recognizer. uikit-semantics ST1–ST7.
///
///     possible → recognized   the stroke ends (a finger lifts) long enough, and its best template
///                             scores at least `minimumScore`: `recognizedShape`, `score`
///     possible → failed       a finger more than required lands (ST2); the fingers stay within
///                             `allowableMovement` for `holdDuration`, a long press's (ST3); the stroke is
///                             shorter than `minimumLength` or its best score too low (ST5); cancellation
///
/// Once the fingers have moved, a pause fails nothing (ST4): people pause mid-stroke.
open class StrokeGestureRecognizer: GestureRecognizer {
    /// ST1: fingers that draw together (their centroid is the stroke); default 1.
    public final var numberOfTouchesRequired = 1
    /// ST5: how the stroke's orientation counts; default rotation-invariant.
    public final var orientation: Protractor.Orientation = .invariant {
        didSet {
            guard orientation != oldValue else { return }
            // The built-in shapes differ by orientation (ST6: one arrow, or four).
            if templateOrigin == "builtin" { useBuiltInShapes() } else { prepared = StrokeTemplateSet(drawings, orientation: orientation) }
        }
    }
    /// ST5: the lowest score (0–1) of a recognized stroke. 0.90, from our measured distributions
    /// (BENCHMARKS.md, "Strokes"): it keeps every drawing the matcher gets right (99.7 %, as at 0.75)
    /// and refuses about half of accidental curves and of shapes with no template; 0.95 refuses three
    /// quarters of them but loses 0.5 % of real drawings.
    public final var minimumScore = StrokeGestureRecognizer.defaultMinimumScore
    public static let defaultMinimumScore = 0.90
    /// ST5: the shortest stroke (points along its path) that is matched: shorter is a tap or a slip.
    public final var minimumLength = 60.0
    /// ST3: how far (pt) the fingers may stay from where they landed for `holdDuration` before the
    /// stroke fails: a long press's allowance and time, so a long press beside a stroke still works.
    public final var allowableMovement = 10.0
    public final var holdDuration = 0.5
    /// ST6: the shapes this recognizer takes (empty: every template's).
    public final var shapes: [String] = []

    /// The templates as drawn (points in any unit), several per name allowed; the built-in shapes
    /// (ST6) until others are given.
    public final var drawings: [(name: String, points: [Point])] = StrokeShapes.templates(.invariant) {
        didSet {
            prepared = StrokeTemplateSet(drawings, orientation: orientation)
            if !loadingBuiltIn { templateOrigin = nil }
        }
    }
    private var loadingBuiltIn = false

    /// The built-in shapes for the orientation (ST6), as `"templates": "builtin"` says.
    public final func useBuiltInShapes() {
        loadingBuiltIn = true
        drawings = StrokeShapes.templates(orientation)
        loadingBuiltIn = false
        templateOrigin = "builtin"
    }
    public final private(set) var prepared = StrokeTemplateSet(StrokeShapes.templates(.invariant), orientation: .invariant)
    /// Where the drawings came from, as a scene names it: "builtin", a file's name; nil when given
    /// inline or by code. A scene writes this back rather than the points.
    public final var templateOrigin: String? = "builtin"

    /// After recognition: the shape, its score, and its template drawn over the stroke (screen points).
    public final private(set) var recognizedShape: String?
    public final private(set) var score = 0.0
    public final private(set) var matchedTemplate: [Point] = []
    /// The stroke so far (screen points): the centroid of the fingers in each frame they moved.
    public final private(set) var stroke: [Point] = []

    override open var isDiscrete: Bool { true }

    private var fingers: [Touch] = []
    private var start: Point?
    private var moved = false
    private var centre: Point?

    override public init() { super.init() }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        for t in touches.sorted(by: { $0.identifier < $1.identifier }) { fingers.append(t) }
        if fingers.count > numberOfTouchesRequired || (start != nil && !touches.isEmpty) {
            fail(because: "\(fingers.count) fingers, \(numberOfTouchesRequired) draw")     // ST2
            return
        }
        if fingers.count == numberOfTouchesRequired {
            let c = centroidOfFingers()
            start = c
            stroke = [c]
            deadline = event.timestamp + holdDuration                                     // ST3
        }
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        guard let start, fingers.count == numberOfTouchesRequired else { return }
        let c = centroidOfFingers()
        if c != stroke.last { stroke.append(c) }
        if !moved, c.distance(to: start) > allowableMovement {
            moved = true                                                                  // ST4: no time limit from now on
            deadline = nil
        }
    }

    override open func deadlineReached(at time: Double) {
        guard state == .possible, !moved else { return }
        fail(because: "held within \(Self.format(allowableMovement)) pt for \(Self.format(holdDuration)) s: a press, not a stroke")     // ST3
    }

    override open func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        super.touchesEnded(touches, with: event)
        guard state == .possible else { return }
        guard start != nil else {
            fail(because: "lifted with \(fingers.count) of \(numberOfTouchesRequired) fingers")
            return
        }
        evaluate()                                                                        // ST5: the first lift ends the stroke
    }

    override open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
        super.touchesCancelled(touches, with: event)
        fail(because: "touches cancelled")
    }

    override open func reset() {
        super.reset()
        fingers = []
        start = nil
        moved = false
        stroke = []
        centre = nil
        recognizedShape = nil
        score = 0
        matchedTemplate = []
    }

    /// ST5: the stroke against the templates.
    private func evaluate() {
        let length = Protractor.pathLength(stroke)
        guard length >= minimumLength else {
            fail(because: "a stroke of \(Self.format(length)) pt, \(Self.format(minimumLength)) needed")
            return
        }
        let v = Protractor.vector(stroke, orientation: orientation)
        centre = v.centroid
        guard let best = prepared.best(v, among: shapes) else {
            fail(because: shapes.isEmpty ? "no templates" : "no templates of \(shapes.joined(separator: ", "))")
            return
        }
        guard best.score >= minimumScore else {
            fail(because: "best \(best.name) \(Self.hundredths(best.score)), below \(Self.hundredths(minimumScore))")
            return
        }
        recognizedShape = best.name
        score = best.score
        matchedTemplate = prepared.drawn(best, over: v)
        state = .recognized
    }

    /// A score as two decimals ("0.85").
    public static func hundredths(_ v: Double) -> String {
        let n = Int((v * 100).rounded())
        return "\(n / 100).\(n % 100 < 10 ? "0" : "")\(n % 100)"
    }

    private func centroidOfFingers() -> Point {
        var s = Point.zero
        for f in fingers { s += f.screenLocation }
        return s / Double(max(1, fingers.count))
    }

    /// The stroke's centroid once it is matched; before, where the fingers are.
    override open func location(in view: View?) -> Point {
        if let centre { return screenToView(centre, view) }
        if let last = stroke.last { return screenToView(last, view) }
        return super.location(in: view)
    }
}

/// Templates prepared for matching with one orientation (ST5, ST6).
public struct StrokeTemplateSet: Sendable {
    public struct Template: Sendable {
        public let name: String
        public let vector: Protractor.Vector
    }

    /// A stroke's best template: its index, name, score and the rotation that fits it.
    public struct Match: Sendable {
        public let index: Int
        public let name: String
        public let score: Double
        public let rotation: Double
    }

    public let templates: [Template]
    public let orientation: Protractor.Orientation

    public init(_ drawings: [(name: String, points: [Point])], orientation: Protractor.Orientation) {
        self.orientation = orientation
        templates = drawings.filter { Protractor.pathLength($0.points) > 0 }
            .map { Template(name: $0.name, vector: Protractor.vector($0.points, orientation: orientation)) }
    }

    /// The templates' names, each once, in order.
    public var names: [String] {
        var seen = Set<String>(), out: [String] = []
        for t in templates where seen.insert(t.name).inserted { out.append(t.name) }
        return out
    }

    /// The template nearest to `v` (the nearest neighbour), among the names in `shapes` (empty: all).
    public func best(_ v: Protractor.Vector, among shapes: [String] = []) -> Match? {
        let limit = Protractor.rotationLimit(orientation)
        var best: Match?
        for (i, t) in templates.enumerated() where shapes.isEmpty || shapes.contains(t.name) {
            let (score, rotation) = Protractor.similarity(v.values, t.vector.values, limit: limit)
            if best == nil || score > best!.score { best = Match(index: i, name: t.name, score: score, rotation: rotation) }
        }
        return best
    }

    /// The matched template drawn over the stroke `v` was made from: in the stroke's place, size and
    /// turn (screen points), for a visualizer.
    public func drawn(_ m: Match, over v: Protractor.Vector) -> [Point] {
        let values = templates[m.index].vector.values
        // The stroke was turned by v.rotation, then by m.rotation onto the template: back by both.
        let back = -(v.rotation + m.rotation)
        let s = TouchMath.sin(back), c = TouchMath.cos(back)
        return stride(from: 0, to: values.count - 1, by: 2).map { i in
            let x = values[i] * v.magnitude, y = values[i + 1] * v.magnitude
            return Point(x: v.centroid.x + x * c - y * s, y: v.centroid.y + x * s + y * c)
        }
    }
}
