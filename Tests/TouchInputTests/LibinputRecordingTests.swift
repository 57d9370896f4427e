import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

@Suite("libinput record files")
struct LibinputRecordingTests {
    /// The layout libinput record 1.22 writes (Tests/Fixtures/libinput-record__*.yml), shortened, with
    /// what a parser must pass over: header comments, udev, quirks, a hid report, `--with-libinput` events.
    static let panel = """
    # libinput record
    version: 1
    ndevices: 1
    libinput:
      version: "1.22.1"
      git: "unknown"
    system:
      os: "debian:12"
      kernel: "6.1.0-57-amd64"
      dmi: "dmi:bvnSeaBIOS:svnQEMU:pnStandardPC(Q35+ICH9,2009):"
    devices:
    - node: /dev/input/event4
      evdev:
        # Name: EP0430M09
        # ID: bus 0x18 vendor 00 product 00 version 00
        # Supported Events:
        #   Event code 53 (ABS_MT_POSITION_X)
        #       Max          1279
        name: "Panel #2: \\"front\\""
        id: [24, 1267, 23, 1]
        codes:
          0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] # EV_SYN
          1: [330] # EV_KEY
          3: [0, 1, 47, 53, 54, 57] # EV_ABS
        absinfo:
          0: [0, 1279, 0, 0, 0]
          1: [0, 767, 0, 0, 0]
          47: [0, 4, 0, 0, 0]
          53: [0, 1279, 0, 0, 12]
          54: [0, 767, 0, 0, 12]
          57: [0, 65535, 0, 0, 0]
        properties: [1]
      hid: [5, 13, 9, 4,
            161, 1]
      udev:
        properties:
        - ID_INPUT=1
        - ID_INPUT_TOUCHSCREEN=1
      quirks:
      events:
      # Current time is 07:53:51
      - evdev:
        - [  0,      0,   3,  57,      13] # EV_ABS / ABS_MT_TRACKING_ID       13
        - [  0,      0,   3,  53,     930] # EV_ABS / ABS_MT_POSITION_X       930 (+930)
        - [  0,      0,   1, 330,       1] # EV_KEY / BTN_TOUCH                 1
        - [  0,      0,   0,   0,       0] # ------------ SYN_REPORT (0) ---------- +0ms
      - libinput:
        - {time: 0.000000, type: TOUCH_DOWN, slot: 0, seat_slot: 0, point: [930.00, 547.00]}
      - hid:
          time: [ 0, 9000]
          hidraw0: [1, 2, 3]
      - evdev:
        - [  1,  861934,   3,  57,      -1] # EV_ABS / ABS_MT_TRACKING_ID       -1
        - [  1,  861934,   0,   0,       0] # ------------ SYN_REPORT (0) ---------- +15ms
                                           # Touch device in neutral state

    """

    @Test("A libinput record file: the device's description, and its evdev frames in order (the rest passed over)")
    func panelFile() throws {
        let r = try Recording.parse(Self.panel, file: "panel.yml")
        #expect(r.device.name == "Panel #2: \"front\"")
        #expect(r.device.bustype == 24 && r.device.vendorProduct == "04f3:0017" && r.device.version == 1)
        #expect(r.device.properties == [InputProperty.direct])
        #expect(r.device.hasKey(KeyCode.touch) && r.device.codes[EventType.syn] == nil)
        #expect(r.device.absInfo[AbsCode.mtPositionX] == AbsInfo(value: 0, minimum: 0, maximum: 1279, resolution: 12))
        #expect(r.device.touchProtocol == .slots(count: 5) && r.device.kind == .touchscreen)
        #expect(r.events == [
            InputEvent(time: 0, type: 3, code: AbsCode.mtTrackingID, value: 13),
            InputEvent(time: 0, type: 3, code: AbsCode.mtPositionX, value: 930),
            InputEvent(time: 0, type: 1, code: KeyCode.touch, value: 1),
            InputEvent(time: 0, type: 0, code: 0, value: 0),
            InputEvent(time: 1.861934, type: 3, code: AbsCode.mtTrackingID, value: -1),
            InputEvent(time: 1.861934, type: 0, code: 0, value: 0),
        ])
        #expect(r.trackingIDStarts == 1)
    }

    @Test("Of several recorded devices, the first with position axes is read (a keyboard recorded with the panel)")
    func severalDevices() throws {
        let keyboard = """
        version: 1
        ndevices: 2
        devices:
          - node: /dev/input/event2
            evdev:
              name: "AT Translated Set 2 keyboard"
              id: [17, 1, 1, 43841]
              codes:
                1: [1, 2, 3, 30]
              properties: []
            events:
              - evdev:
                - [  0,      0,   1,  30,       1]
                - [  0,      0,   0,   0,       0]

        """
        let both = keyboard + Self.panel.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("- node:") }.map { "  " + $0 }.joined(separator: "\n")
        let r = try Recording.parse(both, file: "two.yml")
        #expect(r.device.name == "Panel #2: \"front\"" && r.events.count == 6)
        do {
            _ = try Recording.parse(keyboard, file: "keyboard.yml")
            Issue.record("a keyboard alone was taken for a touch device")
        } catch let error as RecordingError {
            #expect(error.line == 4 && error.reason.contains("\"AT Translated Set 2 keyboard\""))
            #expect(error.reason.contains("not a touch device"))
        }
    }

    @Test("Malformed libinput record files name the file, the line and the reason", arguments: [
        ("version: 1", "version: 2", 2, "libinput record format version 2 is not supported (this reads version 1)"),
        ("version: 1", "versio: 1", 2, "no \"version:\" key: not a libinput record file (libinput-record(1))"),
        ("    - [  0,      0,   3,  53,     930]", "    - [  0,      0,   3,  53]", 44,
         "event [sec, usec, type, code, value]: expected 5 numbers, found 4"),
        ("    - [  0,      0,   3,  53,     930]", "    - [  0,      0,   3,  53,     9x0]", 44,
         "event [sec, usec, type, code, value]: \"9x0\" is not a decimal number in range"),
        ("    - [  0,      0,   3,  53,     930]", "    - [  0, 2000000,   3,  53,     930]", 44, "usec 2000000 is outside 0…999999"),
        ("    - [  0,      0,   3,  53,     930]", "    - [  0,      0,  99,  53,     930]", 44, "event type 99 is out of range (0…31)"),
        ("    - [  0,      0,   3,  53,     930]", "    - [  0,      0,   3,  53,     930", 44, "a […] that never closes"),
        ("      53: [0, 1279, 0, 0, 12]", "      53: [1279, 0, 0, 0, 12]", 29, "axis 53 has minimum 1279 above maximum 0"),
        ("      53: [0, 1279, 0, 0, 12]", "      53: [0, 1279, 0, 0]", 29,
         "absinfo of axis 53 (min, max, fuzz, flat, resolution): expected 5 numbers, found 4"),
        ("    id: [24, 1267, 23, 1]", "    id: [24, 70000, 23, 1]", 20, "id: \"70000\" is not a decimal number in range"),
        ("      3: [0, 1, 47, 53, 54, 57]", "      40: [0, 1]", 24, "event type 40 is out of range (0…31)"),
        ("    properties: [1]", "\tproperties: [1]", 32, "a tab in the indentation (YAML indents with spaces)"),
        ("    properties: [1]", "     properties: [1]", 32, "\"properties: [1]\" is not where its indentation puts it"),
        // A value on the line leaves the frames below it belonging to nothing.
        ("  events:", "  events: none", 42, "\"- evdev:\" is not where its indentation puts it"),
    ])
    func malformed(line: String, replacement: String, number: Int, reason: String) {
        let lines = Self.panel.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let index = lines.firstIndex(where: { $0.hasPrefix(line) }) else {
            Issue.record("no line \(line)")
            return
        }
        var broken = lines
        broken[index] = replacement
        do {
            _ = try Recording.parse(broken.joined(separator: "\n"), file: "broken.yml")
            Issue.record("no error for \(replacement)")
        } catch let error as RecordingError {
            #expect(error == RecordingError(file: "broken.yml", line: number, reason: reason))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("An empty file, or a YAML file that is not a recording, is refused with a reason")
    func notARecording() {
        #expect(throws: RecordingError.self) { try Recording.parse("", file: "empty.yml") }
        #expect(throws: RecordingError.self) { try Recording.parse("version: 1\n", file: "nodevices.yml") }
        #expect(throws: RecordingError.self) { try Recording.parse("version: 1\ndevices:\n  - 3\n", file: "odd.yml") }
    }

    /// Tests/Fixtures/libinput-record__*.yml: the real tool's files, each made from a fixture (NOTICE).
    static let madeFrom = [
        ("libinput-record__ep0430m09-ts__2fg-scroll-down.yml", "evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu"),
        ("libinput-record__ntrig-protocolA-ts__1fg-drag-diagonal.yml", "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events"),
    ]

    @Test("libinput record's own files describe the device as the evemu original does, with the same frames",
          arguments: madeFrom)
    func realFiles(yaml: String, original: String) throws {
        let recorded = try Fixtures.load(yaml)
        let source = try Fixtures.load(original)
        #expect(recorded.device.name == source.device.name)
        #expect(recorded.device.touchProtocol == source.device.touchProtocol && recorded.device.kind == source.device.kind)
        for (code, info) in source.device.absInfo {
            #expect(recorded.device.absInfo[code]?.minimum == info.minimum && recorded.device.absInfo[code]?.maximum == info.maximum)
        }
        // The kernel drops a value an axis already holds, so compare what a reader makes of the events.
        let window = Rect(x: 0, y: 0, width: 1000, height: 600)
        let a = RecordingPlayer.frames(of: recorded, target: window), b = RecordingPlayer.frames(of: source, target: window)
        #expect(a.count == b.count)
        #expect(a.map { $0.contacts.map(\.location) } == b.map { $0.contacts.map(\.location) })
        #expect(replay(recorded).began == replay(source).began)
    }
}
