import Testing
@testable import TouchClients
@testable import TouchProtocol

/// What `touchbridgectl tuio` tells TUIO clients of the touches topic (docs/tuio.md), as scripts:
/// touch lines in, frames out.
@Suite("TUIO sessions: one session a touch, never reused; velocities from frame to frame")
struct TUIOTests {
    /// A touch line of device 0 on an 800 × 400 window.
    static func touch(_ id: Int, _ phase: String, _ x: Double, _ y: Double, at t: Double, device: Int = 0) -> TouchLines.Decoded {
        TouchLines.Decoded(time: t, device: device, id: id, phase: phase, x: x, y: y, view: nil, tapCount: 1, type: "direct")
    }

    static func frame(_ s: inout TUIOSessions, at t: Double, device: Int = 0, _ lines: [TouchLines.Decoded]) -> TUIOSessions.Frame {
        s.begin(time: t, device: device)
        for l in lines { s.apply(l, width: 800, height: 400) }
        return s.end()
    }

    @Test("A touch is one session from began to ended; ids count up and are not reused")
    func sessions() {
        var s = TUIOSessions()
        var f = Self.frame(&s, at: 1.0, [Self.touch(7, "began", 400, 200, at: 1.0)])
        #expect(f.alive.map(\.session) == [1] && f.changed.map(\.session) == [1] && f.isChange)
        #expect(f.changed[0].x == 0.5 && f.changed[0].y == 0.5)
        f = Self.frame(&s, at: 1.01, [Self.touch(7, "moved", 408, 200, at: 1.01), Self.touch(8, "began", 0, 0, at: 1.01)])
        #expect(f.alive.map(\.session) == [1, 2])
        // 8 pt of 800 in 10 ms: 0.01 of the width in 0.01 s, 1 a second.
        #expect(abs(f.changed[0].vx - 1.0) < 1e-9 && f.changed[0].vy == 0)
        f = Self.frame(&s, at: 1.02, [Self.touch(7, "ended", 408, 200, at: 1.02)])
        #expect(f.alive.map(\.session) == [2] && f.changed.isEmpty && f.isChange)
        f = Self.frame(&s, at: 1.03, [Self.touch(7, "began", 100, 100, at: 1.03)])   // the daemon's id again
        #expect(f.alive.map(\.session) == [2, 3])
    }

    @Test("A began for a touch already down ends its session and begins another; lines of unknown touches are ignored")
    func beganTwice() {
        var s = TUIOSessions()
        _ = Self.frame(&s, at: 1.0, [Self.touch(1, "began", 10, 10, at: 1.0)])
        let f = Self.frame(&s, at: 1.1, [Self.touch(1, "began", 500, 10, at: 1.1), Self.touch(9, "moved", 1, 1, at: 1.1)])
        #expect(f.alive.map(\.session) == [2] && f.changed.map(\.session) == [2])
        #expect(f.changed[0].vx == 0)                     // a new session starts at rest
    }

    @Test("A removed device's sessions end; everything ends when the daemon goes")
    func removal() {
        var s = TUIOSessions()
        _ = Self.frame(&s, at: 1.0, [Self.touch(1, "began", 10, 10, at: 1.0)])
        _ = Self.frame(&s, at: 1.0, device: 1, [Self.touch(1, "began", 20, 20, at: 1.0, device: 1)])
        #expect(s.alive.map(\.device) == [0, 1])
        #expect(s.remove(device: 1) && !s.remove(device: 1))
        #expect(s.alive.map(\.session) == [1])
        s.removeAll()
        #expect(s.isEmpty)
    }

    @Test("--udp takes HOST:PORT and [IPv6]:PORT")
    func targets() throws {
        #expect(try TUIOBridge.target("127.0.0.1:3333") == TUIOSender.Target(host: "127.0.0.1", port: 3333))
        #expect(try TUIOBridge.target("[::1]:3334") == TUIOSender.Target(host: "::1", port: 3334))
        #expect(try TUIOBridge.target("kiosk.local:3333").text == "kiosk.local:3333")
        for bad in ["localhost", ":3333", "h:0", "h:65536", "h:x"] {
            #expect(throws: (any Error).self) { try TUIOBridge.target(bad) }
        }
    }
}
