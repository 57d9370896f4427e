import Glibc

/// Where a recognizer takes part (docs/focus.md, FO1): a scene's `"apps"` makes it active only while
/// one of those apps is focused, `"exceptApps"` only while none of them is. Patterns are shell patterns
/// (`org.mozilla.*`) on the focused window's app id (its X11 class under Xwayland), without regard to
/// case: a Wayland app id is `firefox` where its X11 class is `Firefox`.
package struct AppScope: Equatable, Sendable {
    package var apps: [String] = []
    package var exceptApps: [String] = []

    package init(apps: [String] = [], exceptApps: [String] = []) {
        self.apps = apps
        self.exceptApps = exceptApps
    }

    package var isEmpty: Bool { apps.isEmpty && exceptApps.isEmpty }

    /// Whether a recognizer of this scope takes part while `app` is focused (nil: no focus known, when
    /// one with `apps` does not and one with only `exceptApps` does).
    package func allows(_ app: String?) -> Bool {
        if !apps.isEmpty {
            guard let app, apps.contains(where: { Self.matches($0, app) }) else { return false }
        }
        if let app, exceptApps.contains(where: { Self.matches($0, app) }) { return false }
        return true
    }

    /// fnmatch(3) with FNM_CASEFOLD (1 << 4 in glibc).
    package static func matches(_ pattern: String, _ app: String) -> Bool {
        fnmatch(pattern, app, 1 << 4) == 0
    }
}
