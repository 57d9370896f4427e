import Testing
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// What a client may send, parsed whole: a line with an error changes nothing.
@Suite("Client lines")
struct ClientCommandTests {
    func parse(_ s: String) -> Result<ClientCommand?, ClientCommand.Refusal> {
        do { return .success(try ClientCommand.parse(Array(s.utf8))) } catch { return .failure(error) }
    }

    @Test("A subscription, in the client's order; a blank line is nothing")
    func subscribe() {
        #expect(parse(#"{"subscribe":["devices","gestures"]}"#) == .success(.subscribe([.devices, .gestures], names: ["devices", "gestures"])))
        #expect(parse(#"{"subscribe":[]}"#) == .success(.subscribe([], names: [])))
        #expect(parse(" \t\r") == .success(nil))
    }

    @Test("Refused whole, with a message that says what to send", arguments: [
        (#"{"subscribe":["touches"],"extra":1}"#, "one command a line, found 2"),
        (#"{"subscribe":["touches","mice"]}"#, "unknown topic \"mice\""),
        (#"{"subscribe":"touches"}"#, "\"subscribe\" takes an array of topics"),
        (#"{"subscribe":[1]}"#, "\"subscribe\" takes an array of topics"),
        (#"{"listen":true}"#, "unknown command \"listen\""),
        (#"{}"#, "got an empty object"),
        (#"[1]"#, "got an array"),
        ("hello", "not JSON"),
    ])
    func refused(line: String, message: String) {
        guard case .failure(let refusal) = parse(line) else {
            Issue.record("\(line) was accepted")
            return
        }
        #expect(refusal.message.contains(message), "\(refusal.message)")
    }
}
