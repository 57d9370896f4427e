/// Conversion of points and rectangles between views (uikit-semantics G4, G5).
///
/// One step up: p_super = center + T(p − mid(bounds)), where mid(bounds) = bounds.origin + ½·bounds.size
/// is the anchor point (0.5, 0.5) and T is `transform` whole: its linear part and its translation (tx, ty),
/// which moves the view as UIKit's does (G4). A step down is its inverse.
/// A conversion lifts the point to the root of the source's tree and lowers it into the target; every
/// step is affine, so the path does not change the result (G5). `nil` means window coordinates: the
/// bounds space of the root of the view's tree, which is the window when the view is in one.
extension View {
    /// The middle of `bounds`: where the anchor point (0.5, 0.5) sits in the view's own space.
    var anchorInBounds: Point {
        Point(x: bounds.origin.x + bounds.size.width / 2, y: bounds.origin.y + bounds.size.height / 2)
    }

    /// This view's bounds space → its superview's bounds space (G4).
    func convertToSuperview(_ p: Point) -> Point {
        if transform.isIdentity { return center + (p - anchorInBounds) }
        return center + (p - anchorInBounds).applying(transform)
    }

    /// The superview's bounds space → this view's bounds space (the inverse of G4).
    func convertFromSuperview(_ p: Point) -> Point {
        if transform.isIdentity { return anchorInBounds + (p - center) }
        return anchorInBounds + (p - center).applying(transform.inverted())
    }

    /// The root of this view's tree (the window, when the view is in one).
    var rootView: View {
        var v = self
        while let s = v.superview { v = s }
        return v
    }

    /// This view's bounds space → the root's bounds space.
    func convertToRoot(_ p: Point) -> Point {
        var p = p
        var v = self
        while let s = v.superview {
            p = v.convertToSuperview(p)
            v = s
        }
        return p
    }

    /// The root's bounds space → this view's bounds space.
    func convertFromRoot(_ p: Point) -> Point {
        var chain: [View] = []
        var v = self
        while let s = v.superview {
            chain.append(v)
            v = s
        }
        var p = p
        for view in chain.reversed() { p = view.convertFromSuperview(p) }
        return p
    }

    /// Converts `point` from this view's bounds space to `view`'s (nil: window coordinates).
    /// Views in different trees (two windows) meet in the screen space their roots are placed in.
    public func convert(_ point: Point, to view: View?) -> Point {
        let inRoot = convertToRoot(point)
        guard let view else { return inRoot }
        let root = rootView, targetRoot = view.rootView
        if root === targetRoot { return view.convertFromRoot(inRoot) }
        let onScreen = root.convertToSuperview(inRoot)
        return view.convertFromRoot(targetRoot.convertFromSuperview(onScreen))
    }

    /// Converts `point` from `view`'s bounds space (nil: window coordinates) to this view's.
    public func convert(_ point: Point, from view: View?) -> Point {
        guard let view else { return convertFromRoot(point) }
        return view.convert(point, to: self)
    }

    /// Converts `rect` to `view`'s space: the bounding box of its four converted corners (G5).
    public func convert(_ rect: Rect, to view: View?) -> Rect {
        guard !rect.isNull else { return rect }
        return Rect.boundingBox(of: rect.corners.map { convert($0, to: view) })
    }

    /// Converts `rect` from `view`'s space: the bounding box of its four converted corners (G5).
    public func convert(_ rect: Rect, from view: View?) -> Rect {
        guard !rect.isNull else { return rect }
        return Rect.boundingBox(of: rect.corners.map { convert($0, from: view) })
    }

    /// Converts a displacement (no translation) from window coordinates into this view's space,
    /// as `translation(in:)` and `velocity(in:)` need (PAN4, PAN5).
    func convertVectorFromWindow(_ v: Point) -> Point {
        convert(v, from: nil) - convert(Point.zero, from: nil)
    }

    /// Screen points (where digitizers report and windows are placed) → `window` → `view`'s bounds
    /// space (nil: the window's own). Without a window, `view`'s root stands in for it.
    @inline(__always)       // a static method of a class called out of line needs the class's metadata first
    static func convertFromScreen(_ p: Point, window: Window?, to view: View?) -> Point {
        guard let window else { return view?.convert(p, from: nil) ?? p }
        let inWindow = window.convertFromSuperview(p)
        guard let view else { return inWindow }
        return view === window ? inWindow : view.convert(inWindow, from: window)
    }

    /// The inverse of `convertFromScreen`: `view`'s space (nil: the window's) → screen points.
    static func convertToScreen(_ p: Point, window: Window?, from view: View?) -> Point {
        guard let window else { return view?.convert(p, to: nil) ?? p }
        let inWindow = view.map { $0 === window ? p : $0.convert(p, to: window) } ?? p
        return window.convertToSuperview(inWindow)
    }
}

extension Window {
    /// A point in screen points (the space frames report in) in the window's own space (T5).
    public func convertFromScreen(_ p: Point) -> Point {
        View.convertFromScreen(p, window: self, to: nil)
    }
}
