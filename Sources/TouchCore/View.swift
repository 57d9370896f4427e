/// A rectangular node of the scene that can receive touches and carry gesture recognizers (UIView).
///
/// Geometry follows UIKit with the default anchor point (0.5, 0.5): `bounds` is the view's own
/// coordinate space (its origin is the scroll offset, G3), `center` places the middle of `bounds` in the
/// superview, and `transform` turns and scales about that middle and its translation moves the view.
/// `frame` is derived (G1).
open class View: Responder, CustomStringConvertible {
    /// A name for logs, scene files and the socket protocol ("view" field).
    public final var name: String? {
        didSet { nameVersion = View.newNameVersion() }
    }

    /// A number that changes whenever `name` is set, and that no two views share: whoever keeps bytes
    /// made from a view's name (the daemon's lines) compares this number on every line instead of the
    /// string, which costs no counted reference.
    public private(set) final var nameVersion = View.newNameVersion()
    nonisolated(unsafe) private static var nameVersions = 0
    private static func newNameVersion() -> Int {
        nameVersions += 1
        return nameVersions
    }

    /// The view's own coordinate space; changing `origin` scrolls the subviews (G3).
    public final var bounds: Rect

    /// Where the middle of `bounds` sits in the superview's coordinate space.
    public final var center: Point

    /// Applied about the middle of `bounds` (the anchor point); never changes `bounds` or `center` (G2).
    public final var transform: AffineTransform = .identity

    /// Opacity. Hit-testing skips a view whose alpha is below 0.01 (H4).
    public final var alpha: Double = 1

    /// Hidden views and their subtrees are never hit (H2).
    public final var isHidden = false

    /// A view with interaction disabled, and its subtree, is never hit (H2). Default true (H11).
    public final var isUserInteractionEnabled = true

    /// Drawing only; has no effect on hit-testing (H6).
    public final var clipsToBounds = false

    /// When false (the default), the view hears only the first of several touches that start in it (T9).
    public final var isMultipleTouchEnabled = false

    /// While an exclusive view tracks a touch no other view in the window gets touches, and vice versa (T10).
    public final var isExclusiveTouch = false

    /// Grows (negative values) or shrinks (positive values) the area the default `point(inside:with:)`
    /// accepts, in the view's bounds space. Not in UIKit, where the same is done by overriding
    /// `point(inside:with:)` (H7); scene files use it to give small controls a 44×44 pt target.
    public final var touchInsets: EdgeInsets = .zero

    /// Not retained, as in UIKit: a view is owned by its superview, and a superview that goes away
    /// clears this in its subviews first (`deinit`, which compares references to itself: a checked
    /// `unowned` one may not be loaded then, and a `weak` one would put every view's reference counts
    /// in a side table).
    public private(set) unowned(unsafe) var superview: View?
    public final private(set) var subviews: [View] = []
    public final private(set) var gestureRecognizers: [GestureRecognizer] = []

    public init(frame: Rect) {
        let f = frame.standardized
        bounds = Rect(origin: .zero, size: f.size)
        center = Point(x: f.midX, y: f.midY)
        super.init()
    }

    public convenience init(name: String, frame: Rect) {
        self.init(frame: frame)
        self.name = name
    }

    /// The unretained back references to this view end with it.
    deinit {
        for v in subviews where v.superview === self { v.superview = nil }
        for r in gestureRecognizers where r.view === self { r.view = nil }
    }

    // MARK: Geometry (uikit-semantics G1, G2)

    /// The bounding box, in the superview's space, of `bounds` after `transform` about `center`; the
    /// transform's translation moves it (G1).
    /// Setting it is only meaningful with an identity transform: it sets `center` and `bounds.size`
    /// and leaves `bounds.origin` alone (G2).
    public final var frame: Rect {
        get {
            let t = transform
            let w = bounds.width, h = bounds.height
            let size = Size(width: abs(t.a) * w + abs(t.c) * h, height: abs(t.b) * w + abs(t.d) * h)
            return Rect(x: center.x + t.tx - size.width / 2, y: center.y + t.ty - size.height / 2,
                        width: size.width, height: size.height)
        }
        set {
            let f = newValue.standardized
            center = Point(x: f.midX, y: f.midY)
            bounds = Rect(origin: bounds.origin, size: f.size)
        }
    }

    // MARK: Tree

    /// The window this view is in, or nil.
    public final var window: Window? {
        var v: View? = self
        while let current = v {
            if let w = current as? Window { return w }
            v = current.superview
        }
        return nil
    }

    /// The view's superview; a root view has none. `Window` overrides this to answer its application.
    override open var next: Responder? { superview }

    /// Adds `view` in front of the other subviews, moving it from its old superview if it had one.
    /// Adding a view to itself or to one of its own descendants would make a cycle and is refused.
    public final func addSubview(_ view: View) {
        insertSubview(view, at: subviews.count)
    }

    /// Inserts `view` at `index` (0 is the back); the index is clamped to the valid range.
    public final func insertSubview(_ view: View, at index: Int) {
        guard !view.isAncestor(of: self) else {
            assertionFailure("addSubview: \(view) is \(self) or one of its ancestors")
            return
        }
        if view.superview === self, let old = subviews.firstIndex(where: { $0 === view }) {
            subviews.remove(at: old)
        } else {
            view.removeFromSuperview()
        }
        subviews.insert(view, at: Swift.max(0, Swift.min(index, subviews.count)))
        view.superview = self
    }

    /// Detaches the view from its superview. Touches that already began on it keep it as their view (T4).
    public final func removeFromSuperview() {
        guard let s = superview else { return }
        s.subviews.removeAll { $0 === self }
        superview = nil
    }

    /// True when `self` is `view` or an ancestor of it.
    public final func isAncestor(of view: View) -> Bool {
        var v: View? = view
        while let current = v {
            if current === self { return true }
            v = current.superview
        }
        return false
    }

    /// True when `self` is `view` or one of its descendants (UIView.isDescendant(of:)).
    public final func isDescendant(of view: View) -> Bool { view.isAncestor(of: self) }

    // MARK: Gesture recognizers

    /// Attaches `recognizer`, detaching it from any other view first (a recognizer has one view).
    public final func addGestureRecognizer(_ recognizer: GestureRecognizer) {
        if recognizer.view === self { return }
        recognizer.view?.removeGestureRecognizer(recognizer)
        gestureRecognizers.append(recognizer)
        recognizer.view = self
    }

    /// Detaches `recognizer`. A recognizer removed in the middle of a gesture is withdrawn from the
    /// gesture environment and reset, without an action.
    public final func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
        guard recognizer.view === self else { return }
        recognizer.environment?.withdraw(recognizer)
        gestureRecognizers.removeAll { $0 === recognizer }
        recognizer.view = nil
    }

    /// Asked before a recognizer attached to this view or to an ancestor leaves `possible` (S5).
    /// Return false to make it fail. UIKit's controls use this to win inside their bounds (X6).
    open func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool { true }

    // MARK: Hit-testing (uikit-semantics H1–H10; the algorithm is in HitTesting.swift)

    /// The farthest descendant of this view (or the view itself) that contains `point`, given in this
    /// view's bounds space, or nil (H2). Overrides must have no side effects: UIKit may call it more
    /// than once for one touch (H1).
    open func hitTest(_ point: Point, with event: Event?) -> View? {
        defaultHitTest(point, with: event)
    }

    /// Whether `point`, in this view's bounds space, is inside the view (H5): `bounds` grown or shrunk
    /// by `touchInsets`, half-open on the max edges. Override for other touch areas (H7, H9).
    open func point(inside point: Point, with event: Event?) -> Bool {
        let area = touchInsets == .zero ? bounds : bounds.inset(by: touchInsets)
        return area.contains(point)
    }

    open var description: String {
        let typeName = String(describing: type(of: self))
        if let name { return "\(typeName)(\(name))" }
        return "\(typeName)\(frame)"
    }
}
