/// Pencils above the screen (uikit-semantics HV1–HV4): each frame's `hover` is hit-tested as a touch
/// would be (HV2: hidden views, `isUserInteractionEnabled`, `touchInsets`, front-most window first), and
/// every enabled hover recognizer on the hit view and its superviews that allows pencils follows it.
/// A recognizer whose view the pencil left ends; so do all of a device's when its pencil goes out of
/// range or its tip touches down (the frame has no `hover` then).
extension Application {
    /// Before the frame's touches: the hovers the pencil left (or all of its device's, when it went
    /// out of range or touched down) end. Returns those it is over now, to follow after the touches.
    func leaveHover(_ frame: DigitizerFrame, at time: Double) -> [HoverGestureRecognizer] {
        let before = hovering[frame.device] ?? []
        var now: [HoverGestureRecognizer] = []
        if let hover = frame.hover, hover.location.isFinite {
            now = hoverRecognizers(at: hover.location, device: frame.device)
        }
        for w in windows { w.environment.time = Swift.max(w.environment.time, time) }
        let reason = frame.hover == nil ? (frame.contacts.isEmpty ? "out of range" : "touched down") : "left its view"
        // Innermost first: a pencil moving from a child to its parent ends the child's hover, while the
        // parent's goes on.
        for r in before where !now.contains(where: { $0 === r }) { r.stopFollowing(reason) }
        if now.isEmpty { hovering[frame.device] = nil } else { hovering[frame.device] = now }
        return now
    }

    /// After the frame's touches: the hovers the pencil is over begin or change.
    func followHover(_ frame: DigitizerFrame, _ now: [HoverGestureRecognizer]) {
        guard let hover = frame.hover else { return }
        for r in now where r.isActive && (r.hoverDevice == frame.device || !r.isFollowing) {
            r.follow(hover, device: frame.device)
        }
    }

    /// The hover recognizers that follow a pencil at `location` (screen points): those of the view the
    /// pencil would hit as a touch, and of its superviews, innermost first. One a pencil of another
    /// device already follows is left to it.
    private func hoverRecognizers(at location: Point, device: Int) -> [HoverGestureRecognizer] {
        guard !devicesWithoutRecognizers.contains(device) else { return [] }     // FO3
        for window in windows.reversed() {
            guard let hit = window.hitTest(window.convertFromSuperview(location), with: nil) else { continue }
            var found: [HoverGestureRecognizer] = []
            var view: View? = hit
            while let v = view {
                for case let r as HoverGestureRecognizer in v.gestureRecognizers
                where r.isActive && r.allowedTouchTypes.allows(.pencil) && (!r.isFollowing || r.hoverDevice == device) {
                    found.append(r)
                }
                view = v === window ? nil : v.superview
            }
            return found
        }
        return []
    }
}

extension HoverGestureRecognizer {
    /// Began or changed: following a pencil now.
    var isFollowing: Bool { storedState == .began || storedState == .changed }
}
