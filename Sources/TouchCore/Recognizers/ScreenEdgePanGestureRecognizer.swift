/// A pan that starts at an edge of the window and moves away from it (UIScreenEdgePanGestureRecognizer).
/// Continuous. uikit-semantics SEP1–SEP2.
///
///     possible → failed       `edges` is empty (the default), the first finger began outside every
///                             edge region, or its first `hysteresis` of travel is not away from the edge
///     otherwise as a pan, with only the first finger counted (later fingers are ignored)
open class ScreenEdgePanGestureRecognizer: PanGestureRecognizer {
    /// SEP1: the edges the pan may start from; default none, so the recognizer never fires until set.
    public final var edges: RectEdge = []
    /// SEP2: the depth (pt) of the region along each edge where the finger must land. UIKit's private
    /// `edgeRegionSize` is undocumented; the reference suggests 20–26 pt, 24 pt is used.
    public final var edgeRegionSize = 24.0
    /// SEP2: half-angle (radians) around the inward direction that the first movement must lie in.
    /// UIKit's private `edgeAngleWindow` is undocumented; π/3 accepts a thumb's arc and rejects a
    /// slide along the edge.
    public final var edgeAngleWindow = Double.pi / 3

    /// The edge the gesture started from (one edge, or empty before a finger landed in a region).
    public final private(set) var touchedEdge: RectEdge = []

    private var startLocation = Point.zero
    private var hasFirstTouch = false

    override public init() {
        super.init()
        maximumNumberOfTouches = 1
    }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        // SEP1: only the first touch of the gesture is used; every later one is ignored.
        var ordered = touches.sorted { $0.identifier < $1.identifier }
        if hasFirstTouch {
            for t in ordered { ignore(t, for: event) }
            return
        }
        let first = ordered.removeFirst()
        for t in ordered { ignore(t, for: event) }
        hasFirstTouch = true
        super.touchesBegan([first], with: event)
        guard !edges.isEmpty, let window = first.window else {
            fail(because: edges.isEmpty ? "no edges set" : "not in a window")
            return
        }
        let p = first.location(in: window), b = window.bounds
        var best: (RectEdge, Double)?
        for (edge, distance) in [(RectEdge.top, p.y - b.minY), (.left, p.x - b.minX),
                                 (.bottom, b.maxY - p.y), (.right, b.maxX - p.x)]
        where edges.contains(edge) && distance >= 0 && distance < edgeRegionSize {
            if distance < (best?.1 ?? .infinity) { best = (edge, distance) }
        }
        guard let (edge, _) = best else {
            fail(because: "began \(Self.format(min(p.x - b.minX, p.y - b.minY, b.maxX - p.x, b.maxY - p.y))) pt from the nearest edge (within \(Self.format(edgeRegionSize)) pt of \(edges.description))")
            return
        }
        touchedEdge = edge
        startLocation = first.screenLocation
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        if state == .possible, let t = touches.first {
            let d = t.screenLocation - startLocation
            if abs(d.x) >= hysteresis || abs(d.y) >= hysteresis {
                let inward: Point
                switch touchedEdge {
                case .left: inward = Point(x: 1, y: 0)
                case .right: inward = Point(x: -1, y: 0)
                case .top: inward = Point(x: 0, y: 1)
                default: inward = Point(x: 0, y: -1)
                }
                let along = d.x * inward.x + d.y * inward.y
                let across = abs(d.x * inward.y - d.y * inward.x)
                if along <= 0 || TouchMath.atan2(across, along) > edgeAngleWindow {
                    fail(because: along <= 0 ? "moved toward the edge" : "moved along the edge, not away from it")
                    return
                }
            }
        }
        super.touchesMoved(touches, with: event)
    }

    override open func reset() {
        super.reset()
        touchedEdge = []
        startLocation = .zero
        hasFirstTouch = false
    }
}
