/// Recognizes a quick straight movement in a direction (UISwipeGestureRecognizer). Discrete: it is
/// recognized during the movement, before the lift, and only once. uikit-semantics SW1–SW2.
///
///     possible → recognized   every required finger has moved far enough in one allowed direction
///                             and stayed close enough to its line
///     possible → failed       too few or too many fingers, movement against the direction, too much
///                             sideways movement, a lift before recognition, cancellation
///
/// The thresholds are BackBoard's (BKSwipeGestureRecognizer, the same ivars as UIKit's): with
/// t = min(time since the finger landed, 0.5 s), the finger must have moved at least
/// 50·(1 − 0.94·t) pt along the direction and at most 200·(1 − 0.98·t) pt across it. A slow swipe needs
/// precision but little distance, a fast one distance but little precision.
open class SwipeGestureRecognizer: GestureRecognizer {
    /// UISwipeGestureRecognizer.Direction, with UIKit's raw values.
    public struct Direction: NamedOptions, Hashable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let right = Direction(rawValue: 1 << 0)
        public static let left = Direction(rawValue: 1 << 1)
        public static let up = Direction(rawValue: 1 << 2)
        public static let down = Direction(rawValue: 1 << 3)

        /// The directions' names, in the order they are listed: right, left, up, down.
        public static let named: [(name: String, value: Direction)] = [("right", .right), ("left", .left), ("up", .up), ("down", .down)]

        public var description: String { names.isEmpty ? "none" : names.joined(separator: "|") }

        /// The unit vector of a single direction (y down).
        var unitVector: Point {
            switch self {
            case .right: Point(x: 1, y: 0)
            case .left: Point(x: -1, y: 0)
            case .up: Point(x: 0, y: -1)
            default: Point(x: 0, y: 1)
            }
        }
    }

    /// SW1: default `.right`.
    public final var direction: Direction = .right
    /// SW1: default 1.
    public final var numberOfTouchesRequired = 1

    /// SW2: the minimum movement along the direction (pt) of an instant swipe.
    public final var minimumPrimaryMovement = 50.0
    /// SW2: the maximum movement across the direction (pt) of an instant swipe.
    public final var maximumSecondaryMovement = 200.0
    /// SW2: the time (s) after which the thresholds stop shrinking.
    public final var maximumDuration = 0.5
    /// SW2: how fast the thresholds shrink: 1 − 0.06 and 1 − 0.02 per second.
    public final var primaryMovementDecay = 0.94
    public final var secondaryMovementDecay = 0.98
    /// SW2: a finger is judged once it has moved this far (pt) from where it landed.
    public final var evaluationDistance = 10.0

    /// The single direction the swipe was recognized in (empty before).
    public final private(set) var recognizedDirection: Direction = []

    override open var isDiscrete: Bool { true }

    private var fingers: [(touch: Touch, start: Point, time: Double)] = []

    override public init() { super.init() }

    override open func touchesBegan(_ touches: Set<Touch>, with event: Event) {
        super.touchesBegan(touches, with: event)
        for t in touches.sorted(by: { $0.identifier < $1.identifier }) {
            fingers.append((t, t.screenLocation, event.timestamp))
        }
        if fingers.count > numberOfTouchesRequired { fail(because: "\(fingers.count) fingers, \(numberOfTouchesRequired) required") }
    }

    override open func touchesMoved(_ touches: Set<Touch>, with event: Event) {
        super.touchesMoved(touches, with: event)
        var agreed: Direction?
        var allSucceeded = true
        for f in fingers {
            let d = f.touch.screenLocation - f.start
            guard d.length > evaluationDistance else { allSucceeded = false; continue }
            if fingers.count < numberOfTouchesRequired {
                fail(because: "moved with \(fingers.count) of \(numberOfTouchesRequired) fingers")     // SW2
                return
            }
            let t = min(event.timestamp - f.time, maximumDuration)
            let minPrimary = minimumPrimaryMovement * (1 - t * primaryMovementDecay)
            let maxSecondary = maximumSecondaryMovement * (1 - t * secondaryMovementDecay)
            var anyPossible = false
            var success: Direction?
            var bestPrimary = 0.0
            for dir in [Direction.right, .left, .up, .down] where direction.contains(dir) {
                let u = dir.unitVector
                let primary = d.x * u.x + d.y * u.y
                let secondary = abs(d.x * u.y - d.y * u.x)
                if primary < 0 || secondary > maxSecondary { continue }      // against, or too far off
                anyPossible = true
                if primary >= minPrimary && primary > bestPrimary {           // the best-aligned direction
                    success = dir
                    bestPrimary = primary
                }
            }
            guard anyPossible else {
                fail(because: "moved \(Self.format(d.x)), \(Self.format(d.y)) pt: against \(direction.description) or too far across it")
                return
            }
            if let s = success, agreed == nil || agreed == s {
                agreed = s
            } else {
                allSucceeded = false
            }
        }
        if allSucceeded, let dir = agreed, fingers.count == numberOfTouchesRequired {
            recognizedDirection = dir
            state = .recognized
        }
    }

    override open func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        super.touchesEnded(touches, with: event)
        fail(because: "lifted before it was fast or far enough")     // SW2
    }

    override open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
        super.touchesCancelled(touches, with: event)
        fail(because: "touches cancelled")
    }

    override open func reset() {
        super.reset()
        fingers = []
        recognizedDirection = []
    }

    /// Where the swipe started: the centroid of the fingers' landing points.
    override open func location(in view: View?) -> Point {
        guard !fingers.isEmpty else { return super.location(in: view) }
        var sum = Point.zero
        for f in fingers { sum += f.start }
        return screenToView(sum / Double(fingers.count), view)
    }
}
