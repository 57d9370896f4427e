import Glibc
import Testing
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// What a hostile peer can hand the daemon, in small: a log line it cannot break, lines split once
/// whatever their number, a client's lines taken a bounded slice a wakeup, duplicate keys found by a set
/// (docs/protocol.md, "Flow and limits" and "Doors").
@Suite("Doors: one log line, linear lines, bounded work per wakeup")
struct DoorTests {
    @Test("A value with a newline, a carriage return or a control is one line, still shown")
    func oneLine() {
        #expect(Terminal.oneLine("x\n<0>kernel: forged") == #"x\n<0>kernel: forged"#)
        #expect(Terminal.oneLine("a\rb\tc\u{1b}[2Jd\u{9b}") == #"a\rb\tc\x1b[2Jd\u{9b}"#)
        #expect(Terminal.oneLine("plain, ünïcode ✓") == "plain, ünïcode ✓")
        #expect(Terminal.printable("usage:\n  two lines\n") == "usage:\n  two lines\n")    // the program's own text
        var said: [String] = []
        let log = Logger(program: "t")
        log.capture = { _, text in said.append(text) }
        log.info("client scene \"\("x\n<0>forged")\"")
        #expect(said == [#"client scene "x\n<0>forged""#])
    }

    @Test("Duplicate keys are found in small objects and in objects of thousands of keys")
    func duplicateKeys() throws {
        func parse(_ text: String) -> String? {
            do { _ = try JSONParser.parse(text); return nil } catch { return "\(error)" }
        }
        #expect(parse(#"{"a":1,"b":2,"a":3}"#)?.contains(#"duplicate key "a""#) == true)
        let many = (0..<5000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(parse("{" + many + "}") == nil)
        #expect(parse("{" + many + #","k3":0}"#)?.contains(#"duplicate key "k3""#) == true)
        #expect(parse("{" + many + #","k4999":0}"#)?.contains(#"duplicate key "k4999""#) == true)
    }

    @Test("A line of thousands of keys is refused with a short answer, and one led by no command unparsed")
    func shortRefusals() {
        let many = (0..<6300).map { "\"k\($0)\":1" }.joined(separator: ",")
        do throws(ClientCommand.Refusal) {
            _ = try ClientCommand.parse(Array(("{\"subscribe\":[]," + many + "}").utf8))
            Issue.record("taken")
        } catch {
            #expect(error.message == #"one command a line, found 6301: "subscribe", "k0", "k1", "k2", "k3", …"#)
        }
        do throws(ClientCommand.Refusal) {
            _ = try ClientCommand.parse(Array(("{\"k\":[" + String(repeating: "[", count: 40) + "}").utf8))
            Issue.record("taken")
        } catch {
            #expect(error.message.hasPrefix(#"unknown command "k"; the commands are"#))
        }
        #expect(ClientCommand.leadingKey(Array(#"  {  "scene": {}}"#.utf8)) == "scene")
        #expect(ClientCommand.leadingKey(Array(#"{"sc\u0065ne": {}}"#.utf8)) == nil)      // escapes: parsed properly
        #expect(ClientCommand.leadingKey(Array("[1]".utf8)) == nil)
    }

    /// A socket pair: what the "client" end writes, the connection reads.
    func pair() -> (ClientConnection, FileDescriptor) {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let mine = FileDescriptor(rawValue: fds[0])
        mine.setNonBlocking()
        return (ClientConnection(fd: mine, id: 1, credentials: nil), FileDescriptor(rawValue: fds[1]))
    }

    @Test("Lines come out whole and in order, a bounded slice a wakeup, the rest on the next")
    func budget() {
        let (client, peer) = pair()
        defer { client.fd.close(); peer.close() }
        // 3,000 lines in one write, and a last one split across two writes.
        var text = (0..<3000).map { "{\"n\":\($0)}\n" }.joined() + "{\"n\":"
        _ = text.withUTF8 { write(peer.rawValue, $0.baseAddress, $0.count) }
        var got: [String] = []
        var wakeups = 0
        var more = true
        while more {
            wakeups += 1
            var thisWakeup = 0
            more = client.read(limit: SocketServer.maximumLineLength) { input in
                if case .line(let l) = input { got.append(String(decoding: l, as: UTF8.self)); thisWakeup += 1 }
                return true
            }
            // A slice: its bytes plus the per-line cost stay within the budget, but for the line that
            // crosses it.
            #expect(thisWakeup <= ClientConnection.parseBudget / ClientConnection.lineCost + 1)
        }
        #expect(wakeups > 1)
        text = "3000}\n"
        _ = text.withUTF8 { write(peer.rawValue, $0.baseAddress, $0.count) }
        _ = client.read(limit: SocketServer.maximumLineLength) { input in
            if case .line(let l) = input { got.append(String(decoding: l, as: UTF8.self)) }
            return true
        }
        #expect(got == (0...3000).map { "{\"n\":\($0)}" })
    }

    @Test("A flood of newlines is split in one pass over its bytes")
    func newlines() {
        let (client, peer) = pair()
        defer { client.fd.close(); peer.close() }
        let flood = [UInt8](repeating: 0x0a, count: 60000)
        _ = flood.withUnsafeBytes { write(peer.rawValue, $0.baseAddress, $0.count) }
        var blank = 0
        while client.read(limit: SocketServer.maximumLineLength, { input in
            if case .line(let l) = input, l.isEmpty { blank += 1 }
            return true
        }) {}
        #expect(blank == 60000)
    }

    @Test("A line over the limit is said once it passes the limit, without waiting for its end")
    func tooLong() {
        let (client, peer) = pair()
        defer { client.fd.close(); peer.close() }
        let long = [UInt8](repeating: 0x61, count: 70000)
        _ = long.withUnsafeBytes { write(peer.rawValue, $0.baseAddress, $0.count) }
        var saw: [String] = []
        // Each call is a wakeup (epoll's level-triggered readable brings the next while bytes wait).
        for _ in 0..<3 where saw.isEmpty {
            _ = client.read(limit: SocketServer.maximumLineLength) { input in
                switch input {
                case .tooLong: saw.append("tooLong"); return false
                case .line: saw.append("line")
                default: break
                }
                return true
            }
        }
        #expect(saw == ["tooLong"])
    }
}
