/// Follows a pencil above its view (UIHoverGestureRecognizer). uikit-semantics HV1–HV4.
///
///     possible → began (the pencil comes over the view) → changed* (it moves, tilts, nears)
///              → ended (it leaves the view, goes out of range, or its tip touches down) → possible
///
/// It takes no touches and no part in touch sequences: the application drives it from each frame's
/// `hover` (Application+Hover.swift). Over nested views, every hover recognizer on the hit-test view and
/// on its superviews follows the pencil, each ending when the pencil leaves its own view.
open class HoverGestureRecognizer: GestureRecognizer {
    public override init() {
        super.init()
        followsHover = true
    }

    /// 0 with the tip at the surface … 1 at the edge of the pen's range (ABS_DISTANCE); 0 when the
    /// device does not say (HV4).
    public internal(set) var zOffset: Double = 0
    /// The device whose pencil it follows while began or changed (the last one after it ended).
    public internal(set) var hoverDevice: Int?
    var hoverLocation: Point = .zero
    public internal(set) var pose = PencilPose.upright

    /// Radians: π/2 upright (UIHoverGestureRecognizer.altitudeAngle).
    public var altitudeAngle: Double { pose.altitudeAngle }
    /// The eraser end is the one above the screen.
    public var isEraser: Bool { pose.isEraser }

    /// Where the pencil is over, in `view`'s space (nil: the window's).
    open override func location(in view: View?) -> Point {
        screenToView(hoverLocation, view)
    }

    /// A hover has no touches.
    open override var numberOfTouches: Int { 0 }

    /// The direction the pencil's cap points, as a unit vector in `view`'s space (nil: the window's).
    public func azimuthUnitVector(in view: View?) -> Point {
        pose.azimuth(at: hoverLocation) { screenToView($0, view) }
    }

    /// The azimuth as an angle in `view`'s space, radians in (−π, π], 0 along +x, clockwise on screen.
    public func azimuthAngle(in view: View?) -> Double {
        let v = azimuthUnitVector(in: view)
        return TouchMath.atan2(v.y, v.x)
    }

    /// The pencil over the view moved to `hover` (began the first time).
    func follow(_ hover: Hover, device: Int) {
        hoverDevice = device
        hoverLocation = hover.location
        zOffset = hover.zOffset
        pose = hover.pose
        transitionOutsideSequences(to: storedState == .possible ? .began : .changed, cause: "hover")
    }

    /// The pencil left the view, went out of range or touched down (`reason`): ended, then reset.
    func stopFollowing(_ reason: String) {
        guard storedState == .began || storedState == .changed else { return }
        transitionOutsideSequences(to: .ended, cause: "hover", reason: reason)
        transitionOutsideSequences(to: .possible, cause: "hover", reason: reason)
    }

    /// Disabled while following: cancelled (C6), then reset.
    func cancelFollowing() {
        guard storedState == .began || storedState == .changed else { return }
        transitionOutsideSequences(to: .cancelled, cause: "hover", reason: GestureEnvironment.disabledInput)
        transitionOutsideSequences(to: .possible, cause: "hover", reason: GestureEnvironment.disabledInput)
    }
}
