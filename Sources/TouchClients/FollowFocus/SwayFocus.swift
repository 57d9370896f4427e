import TouchProtocol
import TouchSystem

/// sway's (and i3's) focus, over its IPC socket (sway-ipc(7)): subscribed to `window`, `workspace` and
/// `shutdown` events, and the tree asked for at the start. A `window` event with `change` "focus" names
/// the window now focused; "title" of the focused window, its new title. A window closing, or a
/// workspace taking the focus, asks for the tree again: the focused node may then be an empty workspace,
/// which is no app. The app is a window's `app_id`, or under Xwayland its X11 class
/// (`window_properties.class`); its title is `name`.
final class SwayFocus: FollowFocus.Source {
    let name = "sway"
    private let socket: String
    private var ipc: SwayIPC?
    private weak var loop: EventLoop?
    /// The focused container's id (sway's `id`), to know a close or title of the focused window.
    private var focusedID: Int?

    init(socket: String) { self.socket = socket }

    func start(on loop: EventLoop, report: @escaping (Focus?) -> Void, lost: @escaping (String) -> Void) throws {
        let ipc = try SwayIPC(path: socket)
        guard ipc.send(SwayIPC.subscribe, #"["window","workspace","shutdown"]"#), ipc.send(SwayIPC.getTree, "") else {
            throw SocketError("sway's IPC socket \(socket): sway closed it")
        }
        self.ipc = ipc
        self.loop = loop
        func watchWritable() { loop.modify(ipc.fd, events: ipc.isWaiting ? [.readable, .writable] : .readable) }
        func askTree() -> Bool {
            guard ipc.send(SwayIPC.getTree, "") else { return false }
            watchWritable()
            return true
        }
        try loop.add(ipc.fd, events: .readable) { [unowned self] events in
            if events.contains(.writable) {
                guard ipc.flush() else { return lost("sway closed its IPC socket") }
                watchWritable()
            }
            guard events.contains(.readable) || events.contains(.closed) || events.contains(.hangup) else { return }
            guard let messages = ipc.receive() else { return lost("sway closed its IPC socket") }
            for m in messages {
                switch m.type {
                case SwayIPC.subscribe:
                    if m.payload?["success"]?.boolValue != true { return lost("sway did not accept the subscription to window events") }
                case SwayIPC.getTree:
                    guard let tree = m.payload else { continue }
                    let node = Self.focusedNode(tree)
                    focusedID = node?["id"]?.intValue
                    report(node.flatMap(Self.focus))
                case SwayIPC.windowEvent:
                    let container = m.payload?["container"]
                    switch m.payload?["change"]?.stringValue {
                    case "focus":
                        focusedID = container?["id"]?.intValue
                        report(container.flatMap(Self.focus))
                    case "title":
                        if let container, container["id"]?.intValue == focusedID { report(Self.focus(container)) }
                    case "close":
                        if container?["id"]?.intValue == focusedID, !askTree() { return lost("sway closed its IPC socket") }
                    default:
                        break
                    }
                case SwayIPC.workspaceEvent:
                    if m.payload?["change"]?.stringValue == "focus", !askTree() { return lost("sway closed its IPC socket") }
                case SwayIPC.shutdownEvent:
                    return lost("sway is shutting down")
                default:
                    break
                }
            }
        }
        watchWritable()
    }

    func stop() {
        if let ipc { loop?.remove(ipc.fd) }
        ipc = nil
        focusedID = nil
    }

    /// The node of the tree with `"focused": true` (depth first, tiled and floating children).
    static func focusedNode(_ node: JSON) -> JSON? {
        if node["focused"]?.boolValue == true { return node }
        for key in ["nodes", "floating_nodes"] {
            for child in node[key]?.arrayValue ?? [] {
                if let found = focusedNode(child) { return found }
            }
        }
        return nil
    }

    /// A window's focus: its app id, or its X11 class under Xwayland (nil for a workspace or an output:
    /// no window is focused).
    static func focus(_ node: JSON) -> Focus? {
        guard let type = node["type"]?.stringValue, type == "con" || type == "floating_con" else { return nil }
        let app = [node["app_id"]?.stringValue, node["window_properties"]?["class"]?.stringValue, node["window_properties"]?["instance"]?.stringValue]
            .compactMap { $0 }.first { !$0.isEmpty }
        return Focus.from(app: app, title: node["name"]?.stringValue)
    }
}
