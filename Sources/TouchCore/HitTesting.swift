/// UIKit's default hit-testing (uikit-semantics H2), used by `View.hitTest(_:with:)`.
///
/// 1. A hidden view, one with interaction disabled, or one with alpha below 0.01 answers nil, before
///    `point(inside:with:)` is asked (H2.1, H4); so does its whole subtree.
/// 2. A view that does not contain the point answers nil (H2.2). Because children are only asked when
///    their parent contains the point, a child's area outside its parent is never hit, whatever
///    `clipsToBounds` says (H6).
/// 3. Subviews are asked front to back, i.e. from the last to the first (H8); the point is converted
///    into each one's bounds space through the inverse of its transform, so rotated views are hit on
///    their true shape (H5).
/// 4. Otherwise the view itself is the answer.
extension View {
    /// Alpha below this makes a view transparent to touches (H4: alpha 0.01 itself is hittable).
    static let minimumHittableAlpha = 0.01

    /// Whether the view can take part in hit-testing at all (H2.1).
    var isHitTestable: Bool {
        !isHidden && isUserInteractionEnabled && !(alpha < View.minimumHittableAlpha)
    }

    func defaultHitTest(_ point: Point, with event: Event?) -> View? {
        guard isHitTestable, self.point(inside: point, with: event) else { return nil }
        var i = subviews.count
        while i > 0 {
            i -= 1
            let sub = subviews[i]
            // A subview whose transform cannot be inverted has no area to hit (G4).
            guard sub.transform.isIdentity || sub.transform.isInvertible else { continue }
            if let hit = sub.hitTest(sub.convertFromSuperview(point), with: event) { return hit }
        }
        return self
    }
}
