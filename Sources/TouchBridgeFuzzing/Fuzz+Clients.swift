import TouchClients
import TouchProtocol
import TouchSystem

/// The fuzz targets of the daemon's clients (Fuzz.swift lists what each checks): what a broker or an
/// administrator hands `touchbridgectl mqtt`, and what a client sends `touchbridgectl websocket`.
extension Fuzz {
    // MARK: mqtt

    /// What a broker or an administrator can hand `touchbridgectl mqtt`: the bytes as its configuration
    /// file, and as a message on its command topic. Either is accepted or refused with a message; nothing
    /// else (no crash, no hang). A configuration that names a password file reads it, as the bridge does.
    public static func mqtt(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        do {
            let c = try MQTTConfig.parse(text, file: "fuzz.json", hostname: "fuzz")
            check(!c.prefix.isEmpty && (0...1).contains(c.qos) && c.queueLimit >= 1, "a configuration out of its bounds: \(c)")
            check(c.password.map { !c.summary.contains($0) } ?? true, "the summary shows the password")
        } catch {
            check(!"\(error)".isEmpty, "a configuration error without a message")
        }
        // The command topic's least privilege, for each way a message can arrive: a control command
        // only, never over 16 KiB, never retained, a scene only when allowed and never with an action.
        let payload = Array(data)
        for (retained, allowScenes) in [(false, false), (false, true), (true, false), (true, true)] {
            switch MQTTBridge.command(payload, retained: retained, allowScenes: allowScenes) {
            case .success(let command?):
                check(command.isControl, "a non-control command passed on: \(command)")
                check(!retained, "a retained command passed on: \(command)")
                check(payload.count <= MQTTBridge.maximumCommandBytes, "a command of \(payload.count) bytes passed on")
                if case .scene(_, let views) = command {
                    check(allowScenes, "a scene passed on without allowScenes")
                    check(MQTTBridge.firstAction(in: views) == nil, "a scene with an action passed on")
                }
            case .success(nil): break
            case .failure(let refusal): check(!refusal.message.isEmpty, "a refused command without a message")
            }
        }
    }

    // MARK: websocket

    /// A transport that keeps what the connection writes, up to `limit` bytes.
    final class MemoryTransport: WebSocketTransport {
        let limit: Int
        var output: [UInt8] = []
        var dropped = false
        var closing = false
        init(limit: Int) { self.limit = limit }
        func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard output.count + bytes.count <= limit else { return false }
            output += bytes
            return true
        }
        var waiting: Int { output.count }
        func flush(closeAfter: Bool) { if closeAfter { closing = true } }
        func drop() { dropped = true }
    }

    static let fuzzToken = "00112233445566778899aabbccddeeff"

    public static func websocket(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))
        let head = end.map { Array(bytes[..<$0.lowerBound]) } ?? bytes
        let rest = end.map { Array(bytes[$0.upperBound...]) } ?? []
        for token in [nil, fuzzToken] {
            switch HTTPServer.admit(head, listening: "127.0.0.1", token: token, cookieName: "touchbridge_token_7681") {
            case .refused(let status, let body):
                check(status.hasPrefix("4") && !body.isEmpty, "a refusal without a 4xx status and a reason: \(status)")
            case .admitted(let request, _):
                check(request.method == "GET" || request.method == "HEAD", "a \(request.method) admitted")
                check(request.header("host").map { HTTPServer.hostIsAllowed($0, listening: "127.0.0.1") } ?? false, "a foreign Host admitted")
                if let token {
                    let given = request.query("token") ?? request.cookie("touchbridge_token_7681")
                    check(given == token, "admitted without the token")
                }
                switch WebSocketBridge.upgrade(request, allowOrigins: ["https://kiosk.example"], listening: "127.0.0.1:7681") {
                case .success(let s):
                    check(s.key.utf8.count == 24 && WebSocketConnection.acceptKey(s.key).utf8.count == 28, "a bad key upgraded")
                    if let o = request.header("origin") {
                        check(WebSocketBridge.originAllowed(o, host: request.header("host") ?? "", allowOrigins: ["https://kiosk.example"]), "a foreign Origin upgraded: \(o)")
                    }
                    if case .lines(let topics) = s.kind { check(!topics.isEmpty, "a lines client of no topic") }
                case .failure(let r):
                    check(!r.body.isEmpty, "an upgrade refused without a reason")
                }
            }
        }
        // What follows the head as a client's frames, with --control off and on.
        for control in [false, true] {
            let t = MemoryTransport(limit: 16 * 1024 + 1024)
            guard let c = try? WebSocketConnection(transport: t, backlog: 16 * 1024) else { return check(false, "no wslay context") }
            var messages = 0
            c.onMessage = { c, text, message in
                messages += 1
                guard control, text else { return c.close(code: 1008, reason: "this bridge takes no frames") }
                let answer: [UInt8]
                switch WebSocketBridge.controlCommand(Array(message)) {
                case .success(let command):
                    check(command.isControl && command.name == "set", "a \(command.name) command passed on")
                    answer = OkLine.encode(command: "set")
                case .failure(let refusal):
                    check(!refusal.message.isEmpty, "a refusal without a message")
                    answer = ErrorLine.encode(refusal.message)
                }
                answer.withUnsafeBytes { _ = c.send($0, text: true) }
            }
            // In pieces whose sizes the input's own bytes pick, as TCP may cut them.
            var i = 0
            while i < rest.count && !t.dropped {
                let n = min(rest.count - i, 1 + Int(rest[i] % 97))
                rest[i..<(i + n)].withUnsafeBytes { c.received($0) }
                i += n
            }
            check(t.output.count <= t.limit, "the output outgrew its bound")
            if !control && messages > 0 && !t.dropped { check(c.state == .closing && c.closeSent, "a client's frame left the connection open") }
        }
    }
}
