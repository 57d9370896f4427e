import Testing
import TouchCore
import TouchInput
@testable import TouchProtocol
import TouchSystem

/// Each line type's encoder and its typed decoder agree: what the daemon writes, a client reads back
/// field for field, and a command a client writes is the command the daemon parses.
@Suite("Line encoders and their decoders")
struct LineCodecTests {
    /// The line as a client gets it: its event from the first key, its JSON parsed.
    func read(_ bytes: [UInt8]) throws -> (DaemonLine.Event, JSON) {
        let event = bytes.withUnsafeBufferPointer { DaemonLine($0).event }
        return (event, try JSONParser.parse(String(decoding: bytes, as: UTF8.self)))
    }

    @Test func controlLinesComeBackAsTheyWent() throws {
        var (e, j) = try read(HelloLine.encode(version: "0.1.0", protocolVersion: 2))
        #expect(e == .hello && HelloLine.decode(j) == .init(version: "0.1.0", protocolVersion: 2))
        (e, j) = try read(SubscribedLine.encode(topics: ["gestures", "scene"]))
        #expect(e == .subscribed && SubscribedLine.decode(j) == ["gestures", "scene"])
        (e, j) = try read(OkLine.encode(command: "set", warning: "the display is not grabbed"))
        #expect(e == .ok && OkLine.decode(j) == .init(command: "set", warning: "the display is not grabbed"))
        (e, j) = try read(ErrorLine.encode("set.rotation: must be 0, 90, 180 or 270"))
        #expect(e == .error && ErrorLine.decode(j) == "set.rotation: must be 0, 90, 180 or 270")
        (e, j) = try read(DeviceLine.encode(action: "added", device: 3, node: "/dev/input/event7", name: "N-Trig \"DuoSense\""))
        #expect(e == .device && DeviceLine.decode(j) == .init(action: "added", device: 3, node: "/dev/input/event7", name: "N-Trig \"DuoSense\""))
        (e, j) = try read(WakeLine.encode(time: 12.5, device: 1, at: Point(x: 10, y: 20)))
        #expect(e == .wake && WakeLine.decode(j) == .init(time: 12.5, device: 1, x: 10, y: 20))
        (e, j) = try read(PencilLine.encode(time: 3, device: 2, button: 1, pressed: true, at: Point(x: 1, y: 2)))
        #expect(e == .pencil && PencilLine.decode(j) == .init(time: 3, device: 2, button: 1, pressed: true))
        (e, j) = try read(ActivityLine.encode(time: 4, device: 0, touching: false))
        #expect(e == .activity && ActivityLine.decode(j) == .init(time: 4, device: 0, touching: false))
        var w = JSONWriter()
        ActionLine.write(into: &w, time: 5, device: nil, recognizer: "menu", state: "recognized", action: "click") { w in
            w.key("button"); w.string("right")
        }
        (e, j) = try read(w.bytes)
        #expect(e == .action && ActionLine.decode(j) == .init(time: 5, device: nil, recognizer: "menu", state: "recognized", action: "click"))
        // A decoder takes only its own line.
        #expect(WakeLine.decode(j) == nil && GestureLine.decode(j) == nil)
    }

    @Test func aLineOfAnUnknownEventIsOtherAndItsFieldsStillRead() throws {
        let bytes = Array(#"{"event":"future","recognizer":"tap","time":1.5}"#.utf8)
        bytes.withUnsafeBufferPointer { b in
            let line = DaemonLine(b)
            #expect(line.event == .other)
            #expect(line.field("recognizer") == "tap" && line.field("time") == "1.5" && line.field("view") == nil)
        }
        // Not the daemon's field order: parsed to find the event.
        Array(#"{"time":1,"event":"wake","device":0,"x":1,"y":2}"#.utf8).withUnsafeBufferPointer { #expect(DaemonLine($0).event == .wake) }
        // An escaped value is not read in place: the caller parses.
        Array(#"{"event":"gesture","recognizer":"a\"b"}"#.utf8).withUnsafeBufferPointer { #expect(DaemonLine($0).field("recognizer") == nil) }
    }

    @Test func everyCommandIsTheCommandTheDaemonParses() throws {
        let commands: [ClientCommand] = [
            .subscribe([.gestures, .devices], names: ["gestures", "devices"]),
            .setRecognizers(patterns: ["edge*", #"t","*"#], enabled: false),
            .setDevice(.index(2), .init(rotation: .clockwise90, flipX: true)),
            .setDevice(.name("N-Trig*"), .init(calibration: [1, 0, 0, 0, 1, 0.5])),
            .setDevice(.all, .init(flipY: false)),
            .setDisplay(on: false),
            .scene(name: "kiosk", views: [.object([("name", .string("b")), ("frame", .array([0, 0, 10, 10].map { .number($0) }))])]),
        ]
        for c in commands {
            #expect(try ClientCommand.parse(c.line) == c, "\(String(decoding: c.line, as: UTF8.self))")
        }
    }
}
