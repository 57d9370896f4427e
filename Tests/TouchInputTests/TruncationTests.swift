import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

/// A recording cut short is read as far as it is whole and says where it was cut; one stopped between
/// the events of a frame (Ctrl-C) drops them and counts them. Every format alike.
@Suite("Recordings cut short")
struct TruncationTests {
    /// Every event of `name` and its text.
    func fixture(_ name: String) throws -> (String, Recording) {
        let text = try Files.readText(Fixtures.path(name))
        return (text, try Recording.parse(text, file: name))
    }

    /// `text` cut inside the event line at about `fraction` of it.
    func cutInsideLine(_ text: String, _ fraction: Double) -> (String, line: Int) {
        let bytes = Array(text.utf8)
        var at = Int(Double(bytes.count) * fraction)
        while bytes[at - 1] == 0x0a || bytes[at] == 0x0a { at += 1 }
        let cut = String(decoding: bytes[..<at], as: UTF8.self)
        return (cut, cut.utf8.filter { $0 == 0x0a }.count + 1)
    }

    @Test("Cut inside a line: named with the line, the whole frames before it kept",
          arguments: ["evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu", "libinput-record__ep0430m09-ts__2fg-scroll-down.yml",
                      "evtest__wacom-cintiq-13hd-pen__hover-strokes.evtest.txt"])
    func insideALine(name: String) throws {
        let (text, whole) = try fixture(name)
        #expect(whole.truncation == nil && whole.unfinishedEvents == 0)
        let (cut, line) = cutInsideLine(text, 0.6)
        let r = try Recording.parse(cut, file: name)
        #expect(r.truncation?.line == line)
        #expect(r.truncation?.description.hasPrefix("\(name):\(line): the recording is cut short: its last line has no end") == true)
        // What is kept is a prefix of the whole, ending with a SYN_REPORT.
        #expect(!r.events.isEmpty && r.events.count < whole.events.count)
        #expect(Array(whole.events.prefix(r.events.count)) == r.events)
        #expect(r.events.last.map { $0.type == EventType.syn && $0.code == SynCode.report } == true)
    }

    @Test("An evemu recording stopped between the events of a frame: those are dropped and counted, not an error")
    func ctrlC() throws {
        let (text, whole) = try fixture("evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let syns = lines.indices.filter { lines[$0].hasPrefix("E:") && lines[$0].split(separator: " ").dropFirst(2).prefix(2) == ["0000", "0000"] }
        lines = Array(lines[...(syns[syns.count / 2] + 2)])
        let r = try Recording.parse(lines.joined(separator: "\n") + "\n", file: "t.evemu")
        #expect(r.truncation == nil)
        #expect(r.unfinishedEvents == 2)
        #expect(r.unfinishedWarning?.contains("the last 2 events came after the last SYN_REPORT") == true)
        #expect(r.events.count < whole.events.count)
    }

    @Test("A libinput record file cut between lines inside an evdev frame is cut short")
    func yamlMidFrame() throws {
        let name = "libinput-record__ep0430m09-ts__2fg-scroll-down.yml"
        let (text, _) = try fixture(name)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let frames = lines.indices.filter { lines[$0].drop { $0 == " " } == "- evdev:" }
        let keep = frames[frames.count / 2] + 3
        let r = try Recording.parse(lines[..<keep].joined(separator: "\n") + "\n", file: name)
        #expect(r.truncation?.reason == "the recording is cut short: its last evdev frame has no SYN_REPORT (libinput record writes whole frames)")
    }

    @Test("An error before the last line is still an error, not a cut")
    func earlierErrors() throws {
        let (text, _) = try fixture("evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")
        let broken = text.replacingOccurrences(of: "E: 0.", with: "E: x.", limit: 1)
        #expect(throws: RecordingError.self) { try Recording.parse(broken, file: "t.evemu") }
    }
}

private extension String {
    /// The first `limit` occurrences of `needle` replaced (no Foundation).
    func replacingOccurrences(of needle: String, with replacement: String, limit: Int) -> String {
        var out = "", rest = Substring(self), n = 0
        while n < limit, let r = rest.range(of2: needle) {
            out += rest[..<r.lowerBound] + replacement
            rest = rest[r.upperBound...]
            n += 1
        }
        return out + rest
    }
}
