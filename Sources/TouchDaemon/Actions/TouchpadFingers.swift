import TouchCore
import TouchInput
import TouchScene

/// Where the fingers of one gesture are on the `TouchBridge touchpad` (uikit-semantics AC9): a layout
/// fixed when they land, placed where the touches are on the panel, carried by the gesture's travel
/// times the scale and spread by a pinch's scale, in millimetres on the pad.
///
/// The layout is a touchpad hand's, not the panel's: libinput reads a three- or four-finger gesture
/// from its leftmost and rightmost fingers, assuming a row (three fingers stacked on the panel, one
/// above the other, would be one x to it: no gesture at all), so three or four fingers are a row 18 mm
/// apart; two keep the angle the touches had, 24 mm apart, so that a pinch turns as they do. The
/// panel's own spread — hundreds of points — times the scale would put them on top of each other.
package struct TouchpadFingers: Equatable {
    /// Each finger's place about the centre (mm, y down).
    package let layout: [Point]
    /// Millimetres on the pad a point of travel on the panel, per axis.
    package let scale: Point
    /// Where the centre lands: the touches' place in the device's region, on the pad.
    package let origin: Point

    /// The mean distance of two fingers from their centre, and a row's spacing (mm).
    package static let radius = 12.0, spacing = 18.0
    /// No finger is played nearer an edge of the pad than this (mm): travel beyond it is lost.
    package static let margin = 5.0
    static let width = ActionDeviceDescription.touchpadWidth, height = ActionDeviceDescription.touchpadHeight

    /// `touches`: where the gesture's touches are as it begins (window points); `fingers`: how many to
    /// play (2…4); `scale`: mm a point, per axis; `region`: the device's region of the window.
    package init(touches: [Point], fingers: Int, scale: Point, region: Rect) {
        precondition(TouchpadOptions.fingerRange.contains(fingers) && !touches.isEmpty, "a touchpad gesture has 2…4 fingers (ActionSchema.checkTouchpad)")
        self.scale = scale
        let c = touches.reduce(Point.zero, +) / Double(touches.count)
        if fingers == 2, touches.count == 2, (touches[1] - touches[0]).length >= 1 {
            let half = (touches[1] - touches[0]) * (Self.radius / (touches[1] - touches[0]).length)
            layout = [half * -1, half]
        } else {
            let gap = fingers == 2 ? 2 * Self.radius : Self.spacing
            layout = (0..<fingers).map { Point(x: (Double($0) - Double(fingers - 1) / 2) * gap, y: 0) }
        }
        // The centre lands where the touches are in the region, on the pad, so that a travel across
        // the whole panel fits on the pad from wherever it starts (when the scale lets it: else in
        // proportion).
        let reach = Point(x: layout.map { abs($0.x) }.max() ?? 0, y: layout.map { abs($0.y) }.max() ?? 0)
        func place(_ v: Double, _ lo: Double, _ length: Double, size: Double, reach: Double, scale: Double) -> Double {
            let low = Self.margin + reach, high = size - Self.margin - reach
            let f = min(max((v - lo) / max(length, 1), 0), 1)
            let travel = scale * length
            guard high > low else { return size / 2 }
            return travel <= high - low ? low + (high - low - travel) / 2 + f * travel : low + f * (high - low)
        }
        origin = Point(x: place(c.x, region.minX, region.width, size: Self.width, reach: reach.x, scale: scale.x),
                       y: place(c.y, region.minY, region.height, size: Self.height, reach: reach.y, scale: scale.y))
    }

    /// The fingers (mm on the pad) after the gesture travelled `translation` (window points, since the
    /// fingers landed) with its spread `spread` times what it was then (a pinch's scale; 1 otherwise).
    package func positions(translation: Point, spread: Double = 1) -> [Point] {
        let centre = origin + Point(x: translation.x * scale.x, y: translation.y * scale.y)
        return layout.map { p in
            let q = centre + p * spread
            return Point(x: min(max(q.x, Self.margin), Self.width - Self.margin), y: min(max(q.y, Self.margin), Self.height - Self.margin))
        }
    }

    /// Where the fingers land, a frame before they are where `positions` puts them (AC9). libinput
    /// starts a gesture only once its fingers have moved (n − 1) mm from where they landed, and drops
    /// the motion until then: a real touchpad loses that much of every gesture. Landing a little back,
    /// the daemon spends it on motion of its own: a swipe's fingers land (n − 1.2) mm behind, against
    /// `direction` (the gesture's motion, window points), and step forward before the first frame of
    /// the gesture's own travel, which then starts the gesture and is reported whole; a pinch's land
    /// (n − 0.8) mm nearer their centre and step out, which starts the pinch right there, at the
    /// spread its scale counts from. Nil: land where they are (no direction known).
    package func landing(pinch: Bool, direction: Point) -> [Point]? {
        let threshold = Double(layout.count - 1)          // libinput's move threshold, mm
        let start = positions(translation: .zero)
        if pinch {
            let inward = threshold + 0.2
            return layout.map { p in p.length > inward ? (origin + p * ((p.length - inward) / p.length)) : origin + p }
        }
        let d = Point(x: direction.x * scale.x, y: direction.y * scale.y)
        guard d.length > 0 else { return nil }
        let back = d * ((threshold - 0.2) / d.length)
        return start.map { $0 - back }
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
