import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

@Suite("Recording files")
struct RecordingParserTests {
    let header = """
    # EVEMU 1.3
    N: Test Panel
    I: 0003 056a 00e6 0139
    P: 02 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 04 00 00 00 00 00 00
    B: 03 03 00 00 00 00 80 e0 02
    A: 00 0 2776 4 0 0
    A: 01 0 1569 4 0 0
    A: 2f 0 1 0 0 0
    A: 35 0 2776 0 0 12
    A: 36 0 1569 0 0 12
    A: 39 0 65535 0 0 0

    """

    @Test("An evemu file: name, ids, properties, key and axis bits, absinfo, events with comments")
    func evemu() throws {
        let r = try Recording.parse(header + "E: 0.000001 0003 0039 0003\t# EV_ABS / ABS_MT_TRACKING_ID   3\nE: 0.5 0000 0000 -000\n",
                                    file: "t.evemu")
        #expect(r.device.name == "Test Panel" && r.device.vendorProduct == "056a:00e6")
        #expect(r.device.properties == [InputProperty.direct])
        #expect(r.device.hasKey(KeyCode.touch))
        #expect(r.device.absInfo[AbsCode.mtPositionX] == AbsInfo(value: 0, minimum: 0, maximum: 2776, resolution: 12))
        #expect(r.device.touchProtocol == .slots(count: 2) && r.device.kind == .touchscreen)
        #expect(r.events == [InputEvent(time: 0.000001, type: 3, code: 0x39, value: 3), InputEvent(time: 0.5, type: 0, code: 0, value: 0)])
    }

    @Test("A headerless E: file with its DEVICE.desc beside it")
    func headerless() throws {
        let r = try Recording.load(path: Fixtures.path("evemu-devices__wacom-isdv4-e6-finger-ts__1fg-tap.events"))
        #expect(r.device.name == "Wacom ISDv4 E6 Finger" && r.events.count > 5)
        #expect(throws: RecordingError.self) { try Recording.parse("E: 0.1 0003 0035 5\n", file: "bare.events") }
    }

    @Test("Malformed lines name the file, the line and the reason", arguments: [
        ("E: 0.1 0003 0035\n", 18, "an E: line needs 4 fields (seconds type code value), found 3"),
        ("E: abc 0003 0035 1\n", 18, "\"abc\" is not a timestamp in seconds"),
        ("E: 0.1 00zz 0035 1\n", 18, "\"00zz\" is not a hexadecimal event type"),
        ("E: 0.1 0003 0035 1.5\n", 18, "\"1.5\" is not a decimal event value"),
        ("A: 35 10 5 0 0\n", 18, "axis 35 has minimum 10 above maximum 5"),
        ("Z: what\n", 18, "unrecognized line \"Z: what\" (expected an evemu N:/I:/P:/B:/A:/E: line or evtest output)"),
    ])
    func malformed(line: String, number: Int, reason: String) {
        do {
            _ = try Recording.parse(header + line, file: "broken.evemu")
            Issue.record("no error for \(line)")
        } catch let error as RecordingError {
            #expect(error == RecordingError(file: "broken.evemu", line: number, reason: reason))
            #expect(error.description == "broken.evemu:\(number): \(reason)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("A device with no position axis is refused: not a touch device")
    func notATouchDevice() {
        #expect(throws: RecordingError.self) { try Recording.parse("N: keyboard\nA: 28 0 255 0 0\n", file: "kbd.evemu") }
    }

    @Test("evtest's text output is read too")
    func evtest() throws {
        let text = """
        Input driver version is 1.0.1
        Input device ID: bus 0x18 vendor 0x4f3 product 0x1 version 0x1
        Input device name: "cyapa"
        Supported events:
          Event type 1 (EV_KEY)
            Event code 325 (BTN_TOOL_FINGER)
            Event code 330 (BTN_TOUCH)
          Event type 3 (EV_ABS)
            Event code 47 (ABS_MT_SLOT)
              Value      0
              Min        0
              Max       14
            Event code 53 (ABS_MT_POSITION_X)
              Value      0
              Min        0
              Max     1280
              Resolution      12
            Event code 54 (ABS_MT_POSITION_Y)
              Value      0
              Min        0
              Max      680
            Event code 57 (ABS_MT_TRACKING_ID)
              Value      0
              Min        0
              Max    65535
        Testing ... (interrupt to exit)
        Event: time 1329115901.179359, type 3 (EV_ABS), code 57 (ABS_MT_TRACKING_ID), value 969
        Event: time 1329115901.179362, type 3 (EV_ABS), code 53 (ABS_MT_POSITION_X), value 406
        Event: time 1329115901.179404, -------------- SYN_REPORT ------------
        Event: time 1329115901.2, type 3 (EV_ABS), code 57 (ABS_MT_TRACKING_ID), value -1
        Event: time 1329115901.2, -------------- SYN_REPORT ------------

        """
        let r = try Recording.parse(text, file: "t.evtest.txt")
        #expect(r.device.name == "cyapa" && r.device.vendorProduct == "04f3:0001")
        #expect(r.device.absInfo[AbsCode.mtPositionX]?.maximum == 1280 && r.device.absInfo[AbsCode.mtPositionX]?.resolution == 12)
        #expect(r.device.kind == .touchpad && r.device.touchProtocol == .slots(count: 15))
        #expect(r.events.count == 5 && r.events[1].value == 406 && r.events[2].code == SynCode.report)
        #expect(r.trackingIDStarts == 1)
    }

    @Test("Windows line endings (CRLF) read as Unix ones, in every format")
    func crlf() throws {
        for name in ["evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu", "libinput-record__ep0430m09-ts__2fg-scroll-down.yml"] {
            let text = try Files.readText(Fixtures.path(name))
            let lf = try Recording.parse(text, file: name)
            // "\r\n" is one Character in Swift: a split on "\n" by Characters would never cut there.
            let crlf = try Recording.parse(text.lines().joined(separator: "\r\n") + "\r\n", file: name)
            #expect(crlf.device == lf.device && crlf.events == lf.events && !lf.events.isEmpty)
        }
    }

    @Test("A file that does not exist is a system error naming it")
    func missingFile() {
        #expect(throws: SystemError.self) { try Recording.load(path: "/nonexistent/x.evemu") }
    }
}
