import TouchSystem

/// The focused window as the compositor says it (docs/focus.md): its app id (the X11 class under
/// Xwayland), its title, and who said so.
public struct Focus: Equatable, Sendable {
    public var app: String
    public var title: String?
    /// The follower's source (`sway`, `hyprland`, `wlr`, `kwin`, `gnome`), or a script's word.
    public var source: String?
    /// Cleared when the connection that set it closes, however it ends (a follower's: never a stale app).
    public var whileConnected: Bool

    public init(app: String, title: String? = nil, source: String? = nil, whileConnected: Bool = false) {
        self.app = app
        self.title = title
        self.source = source
        self.whileConnected = whileConnected
    }

    /// What a peer may say, at most (bytes): an app id, a window title, a source's name.
    public static let maximumApp = 256, maximumTitle = 1024, maximumSource = 64

    /// A compositor's words as the daemon takes them: the app id and the title cut to their maxima at a
    /// character's end (a title can be any length; the daemon refuses one over its bound). Nil for an
    /// empty app id: no window is focused.
    public static func from(app: String?, title: String?) -> Focus? {
        guard let app, !app.isEmpty else { return nil }
        return Focus(app: clipped(app, maximumApp), title: title.map { clipped($0, maximumTitle) })
    }

    /// `s` cut to at most `bytes` bytes of UTF-8, whole characters only.
    public static func clipped(_ s: String, _ bytes: Int) -> String {
        guard s.utf8.count > bytes else { return s }
        var n = 0, end = s.startIndex
        for i in s.indices {
            let next = s.index(after: i)
            n += s[i..<next].utf8.count
            if n > bytes { break }
            end = next
        }
        return String(s[..<end])
    }
}

/// `{"event":"focus","time":T,"app":A,"title":T,"source":S}` (topic `focus`): the focus was learnt or
/// changed; `"app": null` when it was cleared (none known). A new subscriber first gets the current one.
package enum FocusLine {
    package static func encode(_ focus: Focus?, time: Double) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("focus")
        w.key("time"); w.number(time)
        w.key("app")
        if let focus { w.string(focus.app) } else { w.null() }
        if let t = focus?.title { w.key("title"); w.string(t) }
        if let s = focus?.source { w.key("source"); w.string(s) }
        w.endObject()
        return w.bytes
    }
}

extension FocusLine {
    public struct Decoded: Equatable, Sendable {
        public var time: Double
        /// nil: no focus known.
        public var app: String?
        public var title: String?
        public var source: String?
    }

    public static func decode(_ json: JSON) -> Decoded? {
        guard json["event"]?.stringValue == "focus" else { return nil }
        return Decoded(time: json["time"]?.numberValue ?? 0, app: json["app"]?.stringValue, title: json["title"]?.stringValue,
                       source: json["source"]?.stringValue)
    }
}
