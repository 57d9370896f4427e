import Testing
import TouchClients
import TouchProtocol
@testable import TouchBridgeFuzzing

/// The WebSocket layer without a socket: wslay over a memory transport (the fuzz target's), the
/// handshake's key, the upgrade's decisions, and TUIO 2.0's packing.
@Suite("WebSocket: wslay's frames over memory, the handshake, the doors' decisions")
struct WebSocketTests {
    /// A client's frame, masked as RFC 6455 wants.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        let mask: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        precondition(payload.count < 126)
        return [(fin ? 0x80 : 0) | opcode, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    @Test("The RFC's example key gets the RFC's accept value")
    func acceptKey() {
        #expect(WebSocketConnection.acceptKey("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("A fragmented text message arrives whole; a ping is answered with a pong; a close with a close")
    func frames() throws {
        let t = Fuzz.MemoryTransport(limit: 4096)
        let c = try WebSocketConnection(transport: t, backlog: 2048)
        var got: [String] = []
        c.onMessage = { _, text, bytes in if text { got.append(String(decoding: bytes, as: UTF8.self)) } }
        let text = Array(#"{"set":{"recognizers":["tap"],"enabled":false}}"#.utf8)
        let input = Self.frame(1, Array(text[..<10]), fin: false) + Self.frame(0, Array(text[10...])) + Self.frame(9, Array("hi".utf8))
        for b in input { [b].withUnsafeBytes { c.received($0) } }       // a byte at a time
        #expect(got == [String(decoding: text, as: UTF8.self)])
        #expect(t.output == [0x8a, 0x02] + Array("hi".utf8), "the pong, unmasked (a server's frames are)")
        t.output = []
        Self.frame(8, [0x03, 0xe8]).withUnsafeBytes { c.received($0) }
        #expect(t.output == [0x88, 0x02, 0x03, 0xe8])
        #expect(t.closing, "the connection ends once the close is sent")
    }

    @Test("A client that falls behind the backlog is sent a close frame with the reason, and nothing more")
    func backlog() throws {
        let t = Fuzz.MemoryTransport(limit: 4096)
        let c = try WebSocketConnection(transport: t, backlog: 1000)
        let line = [UInt8](repeating: 0x41, count: 300)
        var sent = 0
        while line.withUnsafeBytes({ c.send($0, text: true) }) { sent += 1; c.pump() }
        #expect(sent == 4)
        #expect(c.state == .closing)
        let close = t.output.suffix(from: 4 * 304)
        #expect(Array(close.prefix(4)) == [0x88, UInt8(close.count - 2), 0x03, 0xf0], "1008")
        #expect(String(decoding: close.dropFirst(4), as: UTF8.self).hasPrefix("too far behind: 1216 bytes"))
        #expect(!line.withUnsafeBytes { c.send($0, text: true) })
    }

    @Test("An Origin may connect when allowed or the listener's own; none is not a page")
    func origins() {
        #expect(WebSocketBridge.originAllowed("https://Kiosk.example/", host: "127.0.0.1:7681", allowOrigins: ["https://kiosk.example"]))
        #expect(WebSocketBridge.originAllowed("http://127.0.0.1:7681", host: "127.0.0.1:7681", allowOrigins: []))
        #expect(!WebSocketBridge.originAllowed("http://127.0.0.1:7682", host: "127.0.0.1:7681", allowOrigins: []))
        #expect(!WebSocketBridge.originAllowed("null", host: "127.0.0.1:7681", allowOrigins: ["https://kiosk.example"]))
    }

    @Test("A control client may send set commands only")
    func control() {
        #expect((try? WebSocketBridge.controlCommand(Array(#"{"set":{"display":"off"}}"#.utf8)).get())?.name == "set")
        for refused in [#"{"scene":{"views":[]}}"#, #"{"subscribe":["touches"]}"#, "", "not json"] {
            guard case .failure(let r) = WebSocketBridge.controlCommand(Array(refused.utf8)) else { Issue.record("\(refused) passed"); continue }
            #expect(!r.message.isEmpty)
        }
    }

    @Test("TUIO 2.0: width in the upper 16 bits, height in the lower; a device's source NAME:DEVICE@HOST")
    func tuio2() throws {
        let s = try TUIOSender(targets: [], source: "touchbridge@kiosk", profiles: [.v2_0])
        s.window = (1280, 800)
        #expect(s.dimension == Int32(1280 << 16 | 800))
        #expect(s.source(device: 2) == "touchbridge:2@kiosk")
        #expect(s.source(device: nil) == "touchbridge@kiosk")
    }
}
