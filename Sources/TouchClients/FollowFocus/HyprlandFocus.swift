import TouchProtocol
import TouchSystem

/// Hyprland's focus, from its two sockets in `$XDG_RUNTIME_DIR/hypr/$HYPRLAND_INSTANCE_SIGNATURE/`
/// (`/tmp/hypr/…` before Hyprland 0.40; the wiki's "IPC" page): the event socket, `.socket2.sock`,
/// says `activewindow>>CLASS,TITLE` a line whenever the active window changes (`activewindow>>,` when
/// none is), and the request socket, `.socket.sock`, answers `j/activewindow` with the active window
/// now, as JSON (`{}` when none), once at the start. The class is the Wayland app id, or the X11 class
/// under Xwayland. A class has no comma; a title may, so the line splits at its first.
final class HyprlandFocus: FollowFocus.Source {
    let name = "hyprland"
    let events: String, requests: String
    private var eventFD: FileDescriptor?, requestFD: FileDescriptor?
    private weak var loop: EventLoop?
    private var buffer: [UInt8] = [], reply: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16384)
    /// An event came before the request's answer: the answer is older, and is dropped.
    private var heardEvent = false
    /// A line longer than this is not Hyprland's (64 KiB); an answer larger than this neither (1 MiB).
    static let longestLine = 65536, largestReply = 1 << 20

    init(environment env: (String) -> String?) throws {
        guard let signature = env("HYPRLAND_INSTANCE_SIGNATURE") else {
            throw Arguments.Failure(description: "touchbridgectl follow-focus hyprland: HYPRLAND_INSTANCE_SIGNATURE is not set (run it in the Hyprland session)")
        }
        guard !signature.contains("/") else {
            throw Arguments.Failure(description: "touchbridgectl follow-focus hyprland: HYPRLAND_INSTANCE_SIGNATURE has a \"/\": not Hyprland's")
        }
        let runtime = env("XDG_RUNTIME_DIR").map { "\($0)/hypr/\(signature)" }
        let dir = runtime.flatMap { Files.exists("\($0)/.socket2.sock") ? $0 : nil } ?? "/tmp/hypr/\(signature)"
        events = "\(dir)/.socket2.sock"
        requests = "\(dir)/.socket.sock"
    }

    func start(on loop: EventLoop, report: @escaping (Focus?) -> Void, lost: @escaping (String) -> Void) throws {
        let fd: FileDescriptor
        do { fd = try UnixSocket.connect(to: try UnixSocketAddress(events), nonBlocking: true) } catch {
            throw SocketError("Hyprland's event socket \(events): \(error) (is Hyprland running?)")
        }
        eventFD = fd
        self.loop = loop
        heardEvent = false
        buffer = []
        try loop.add(fd) { [unowned self] _ in
            while true {
                switch chunk.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0, dontWait: true) }) {
                case .failure(let e): return lost("Hyprland's event socket: \(e)")
                case .success(0?): return lost("Hyprland closed its event socket")
                case .success(nil): return
                case .success(let n?):
                    buffer += chunk.prefix(n)
                    while let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: buffer[..<nl], as: UTF8.self)
                        buffer.removeSubrange(...nl)
                        if let f = Self.activeWindow(line) {
                            heardEvent = true
                            report(f)
                        }
                    }
                    guard buffer.count <= Self.longestLine else { return lost("Hyprland's event socket sent a line of over 64 KiB: not Hyprland's") }
                }
            }
        }
        ask(loop, report)
    }

    /// `j/activewindow` on the request socket: Hyprland answers and closes it. An answer that does not
    /// come leaves the focus to the next event (nothing waits on it).
    private func ask(_ loop: EventLoop, _ report: @escaping (Focus?) -> Void) {
        guard let fd = try? UnixSocket.connect(to: try UnixSocketAddress(requests), nonBlocking: false),
              (try? UnixSocket.sendAll(fd, Array("j/activewindow".utf8), to: "Hyprland's request socket")) != nil else { return }
        fd.setNonBlocking()
        requestFD = fd
        reply = []
        func done() {
            loop.remove(fd)
            fd.close()
            requestFD = nil
        }
        do {
            try loop.add(fd) { [unowned self] _ in
                while true {
                    switch chunk.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0, dontWait: true) }) {
                    case .success(nil): return
                    case .success(let n?) where n > 0 && reply.count + n <= Self.largestReply:
                        reply += chunk.prefix(n)
                    case .success(0?):
                        done()
                        guard !heardEvent, let json = try? JSONParser.parse(String(decoding: reply, as: UTF8.self)) else { return }
                        return report(Focus.from(app: json["class"]?.stringValue, title: json["title"]?.stringValue))
                    default:
                        return done()
                    }
                }
            }
        } catch { fd.close(); requestFD = nil }
    }

    func stop() {
        for fd in [eventFD, requestFD].compactMap({ $0 }) {
            loop?.remove(fd)
            fd.close()
        }
        eventFD = nil
        requestFD = nil
    }

    /// `activewindow>>CLASS,TITLE`: the focus it says (`.some(nil)`: no window is active); nil for
    /// every other line.
    static func activeWindow(_ line: String) -> Focus?? {
        let prefix = "activewindow>>"
        guard line.hasPrefix(prefix) else { return nil }
        let data = line.dropFirst(prefix.count)
        let comma = data.firstIndex(of: ",") ?? data.endIndex
        let title = comma < data.endIndex ? String(data[data.index(after: comma)...]) : nil
        return .some(Focus.from(app: String(data[..<comma]), title: title))
    }
}
