import TouchCore
import TouchInput
import TouchScene

/// Where the fingers of one gesture are on the `TouchBridge touchpad` (uikit-semantics AC9): a layout
/// fixed when they land, carried by the gesture's travel times the scale and spread by a pinch's
/// scale, in millimetres on the pad.
///
/// The layout keeps the shape the touches had when the gesture began (or, when another number of
/// fingers is played, a row), but not its size: it is sized so that the fingers sit a mean 12 mm from
/// their centre, as fingers held together do on a touchpad (18 mm apart in a row of three). The
/// panel's own spread — a few hundred points — times a scale of hundredths of a millimetre a point
/// would put the fingers on top of each other, where libinput cannot tell a swipe from a pinch.
package struct TouchpadFingers: Equatable {
    /// Each finger's place about the centre when they landed (mm, y down).
    package let layout: [Point]
    /// Millimetres on the pad a point of travel on the panel, per axis.
    package let scale: Point
    /// Where the layout's centre lands: the middle of the pad, far from the edges where libinput looks
    /// for thumbs and palms.
    package static let origin = Point(x: ActionDeviceDescription.touchpadWidth / 2, y: ActionDeviceDescription.touchpadHeight / 2)
    /// The mean distance of the fingers from their centre (mm).
    package static let radius = 12.0
    /// No finger is played nearer an edge of the pad than this (mm): travel beyond it is lost.
    package static let margin = 5.0

    /// `touches`: where the gesture's touches are as it begins (window points); `fingers`: how many to
    /// play (2…4); `scale`: mm a point, per axis.
    package init(touches: [Point], fingers: Int, scale: Point) {
        precondition(TouchpadOptions.fingerRange.contains(fingers), "a touchpad gesture has 2…4 fingers (ActionSchema.checkTouchpad)")
        self.scale = scale
        var shape: [Point]
        if touches.count == fingers {
            let c = touches.reduce(Point.zero, +) / Double(touches.count)
            shape = touches.map { $0 - c }
        } else {
            shape = (0..<fingers).map { Point(x: Double($0) - Double(fingers - 1) / 2, y: 0) }
        }
        let mean = shape.reduce(0) { $0 + $1.length } / Double(fingers)
        // Fingers on top of each other (a tap's worth of spread): a row instead.
        if mean < 1 {
            shape = (0..<fingers).map { Point(x: Double($0) - Double(fingers - 1) / 2, y: 0) }
        }
        let size = shape.reduce(0) { $0 + $1.length } / Double(fingers)
        layout = shape.map { $0 * (Self.radius / size) }
    }

    /// The fingers (mm on the pad) after the gesture travelled `translation` (window points, since the
    /// fingers landed) with its spread `spread` times what it was then (a pinch's scale; 1 otherwise).
    package func positions(translation: Point, spread: Double = 1) -> [Point] {
        let centre = Self.origin + Point(x: translation.x * scale.x, y: translation.y * scale.y)
        let w = ActionDeviceDescription.touchpadWidth, h = ActionDeviceDescription.touchpadHeight
        return layout.map { p in
            let q = centre + p * spread
            return Point(x: min(max(q.x, Self.margin), w - Self.margin), y: min(max(q.y, Self.margin), h - Self.margin))
        }
    }

    /// A position's device units (ABS_MT_POSITION_X/Y at the pad's resolution).
    package static func units(_ mm: Point) -> (x: Int32, y: Int32) {
        let r = Double(ActionDeviceDescription.touchpadResolution)
        return (Int32((mm.x * r).rounded()), Int32((mm.y * r).rounded()))
    }

    /// The default scale (TouchpadOptions.defaultTravel) for a device whose region of the window is
    /// `region`: a swipe across it travels GNOME's workspace distance.
    package static func defaultScale(region: Rect) -> Point {
        Point(x: TouchpadOptions.defaultTravel.x / max(region.width, 1), y: TouchpadOptions.defaultTravel.y / max(region.height, 1))
    }
}
