import CEvdev
import Glibc
import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

/// A pass-through mirror's kernel events, as scripts: touches in, frames out, compared as one log.
@Suite("The pass-through mirror's events")
struct TouchMirrorTests {
    static let panel = Synthetic.device(name: "Panel", slots: 4)

    /// A contact's record at (x, y) with pressure `p`.
    static func at(_ x: Int32, _ y: Int32, _ p: Int32 = 40) -> DigitizerRecord {
        var r = DigitizerRecord()
        r[AbsCode.mtPositionX] = x
        r[AbsCode.mtPositionY] = y
        r[AbsCode.mtPressure] = p
        return r
    }

    /// The events of one flush, named: "SLOT 1", "TRACKING 5", "X 100", "Y 200", "P 40", "TOOL 2",
    /// "BTN_TOUCH 1", "ABS_X 100", "SYN".
    static func log(_ m: inout TouchMirror) -> [String] {
        var out: [String] = []
        m.flush { events in
            for e in events {
                switch (e.type, e.code) {
                case (EventType.syn, SynCode.report): out.append("SYN")
                case (EventType.key, KeyCode.touch): out.append("BTN_TOUCH \(e.value)")
                case (EventType.abs, AbsCode.mtSlot): out.append("SLOT \(e.value)")
                case (EventType.abs, AbsCode.mtTrackingID): out.append("TRACKING \(e.value)")
                case (EventType.abs, AbsCode.mtPositionX): out.append("X \(e.value)")
                case (EventType.abs, AbsCode.mtPositionY): out.append("Y \(e.value)")
                case (EventType.abs, AbsCode.mtPressure): out.append("P \(e.value)")
                case (EventType.abs, AbsCode.mtToolType): out.append("TOOL \(e.value)")
                case (EventType.abs, AbsCode.x): out.append("ABS_X \(e.value)")
                case (EventType.abs, AbsCode.y): out.append("ABS_Y \(e.value)")
                default: out.append("\(e)")
                }
            }
        }
        return out
    }

    @Test("A touch that begins, moves and ends: a new tracking id, only what changed, then −1; pointer emulation after")
    func beginMoveEnd() {
        var m = TouchMirror(source: Self.panel)
        let began = m.begin(contact: 7, values: Self.at(100, 200))
        #expect(began)
        #expect(Self.log(&m) == ["TRACKING 0", "X 100", "Y 200", "P 40", "BTN_TOUCH 1", "ABS_X 100", "ABS_Y 200", "SYN"])
        m.move(contact: 7, values: Self.at(100, 210))
        #expect(Self.log(&m) == ["Y 210", "ABS_Y 210", "SYN"])
        m.move(contact: 7, values: Self.at(100, 210))
        #expect(Self.log(&m) == [], "a frame that changes nothing on the mirror writes nothing")
        m.end(contact: 7)
        #expect(Self.log(&m) == ["TRACKING -1", "BTN_TOUCH 0", "SYN"])
        #expect(m.isNeutral)
    }

    @Test("C1 on the mirror: a cancelled touch becomes a palm, then lifts, in one frame; the slot is a finger again before its next tracking id")
    func cancelIsPalm() {
        var m = TouchMirror(source: Self.panel)
        m.begin(contact: 1, values: Self.at(10, 10))
        _ = Self.log(&m)
        m.cancel(contact: 1)
        #expect(Self.log(&m) == ["TOOL 2", "TRACKING -1", "BTN_TOUCH 0", "SYN"])
        m.begin(contact: 2, values: Self.at(10, 10))
        // libinput reads the slot's tool type when the tracking id arrives: finger first.
        #expect(Self.log(&m) == ["TOOL 0", "TRACKING 1", "BTN_TOUCH 1", "SYN"])
    }

    @Test("A late touchesBegan and its catch-up in one write: down at the first location in a frame of its own, then the move")
    func beganThenMovedInOneWrite() {
        var m = TouchMirror(source: Self.panel)
        m.begin(contact: 3, values: Self.at(50, 60))
        m.move(contact: 3, values: Self.at(80, 60))
        m.end(contact: 3)
        #expect(Self.log(&m) == ["TRACKING 0", "X 50", "Y 60", "P 40", "BTN_TOUCH 1", "ABS_X 50", "ABS_Y 60", "SYN",
                                 "X 80", "TRACKING -1", "BTN_TOUCH 0", "SYN"])
    }

    @Test("A touch that begins and ends before the flush still shows: down in one frame, up in the next")
    func beganThenEnded() {
        var m = TouchMirror(source: Self.panel)
        m.begin(contact: 3, values: Self.at(50, 60))
        m.end(contact: 3)
        #expect(Self.log(&m) == ["TRACKING 0", "X 50", "Y 60", "P 40", "BTN_TOUCH 1", "ABS_X 50", "ABS_Y 60", "SYN",
                                 "TRACKING -1", "BTN_TOUCH 0", "SYN"])
    }

    @Test("A slot freed in a frame is not reused in it; a frame's changes are written slot by slot, each slot selected once")
    func slotReuse() {
        var m = TouchMirror(source: Self.panel)
        m.begin(contact: 1, values: Self.at(1, 1))
        _ = Self.log(&m)
        m.end(contact: 1)
        m.begin(contact: 2, values: Self.at(2, 2))
        #expect(Self.log(&m) == ["TRACKING -1", "SLOT 1", "TRACKING 1", "X 2", "Y 2", "P 40", "ABS_X 2", "ABS_Y 2", "SYN"])
        m.end(contact: 2)
        m.begin(contact: 3, values: Self.at(3, 3))
        // Slot 0 is free and was not freed in this frame; the frame's changes go slot by slot.
        #expect(Self.log(&m) == ["SLOT 0", "TRACKING 2", "X 3", "Y 3", "SLOT 1", "TRACKING -1", "ABS_X 3", "ABS_Y 3", "SYN"])
    }

    @Test("With every free slot freed in the frame, the frame is cut first")
    func everyFreeSlotJustFreed() {
        var m = TouchMirror(source: Synthetic.device(name: "one slot", slots: 1))
        m.begin(contact: 1, values: Self.at(1, 1))
        _ = Self.log(&m)
        m.end(contact: 1)
        m.begin(contact: 2, values: Self.at(5, 5))
        #expect(Self.log(&m) == ["TRACKING -1", "BTN_TOUCH 0", "SYN", "TRACKING 1", "X 5", "Y 5", "BTN_TOUCH 1", "ABS_X 5", "ABS_Y 5", "SYN"])
    }

    @Test("The pointer emulation follows the oldest touch; every slot taken: the next touch is not mirrored")
    func pointerAndFull() {
        var m = TouchMirror(source: Synthetic.device(name: "two slots", slots: 2))
        m.begin(contact: 1, values: Self.at(10, 10))
        m.begin(contact: 2, values: Self.at(20, 20))
        let third = m.begin(contact: 3, values: Self.at(30, 30))
        #expect(!third)
        _ = Self.log(&m)
        m.move(contact: 2, values: Self.at(25, 20))
        #expect(Self.log(&m) == ["X 25", "SYN"], "the second touch moving moves no pointer")
        m.end(contact: 1)
        #expect(Self.log(&m) == ["SLOT 0", "TRACKING -1", "ABS_X 25", "ABS_Y 20", "SYN"])
        #expect(!m.carries(contact: 3))
    }

    @Test("The mirror's description: the panel's ids, properties and axes without fuzz, its name and phys, a tool type axis; protocol A and single touch become protocol B")
    func description() {
        var source = Self.panel
        source.bustype = 0x18
        source.vendor = 0x056a
        source.product = 0x00e6
        source.absInfo[AbsCode.mtPositionX] = AbsInfo(minimum: 0, maximum: 2559, fuzz: 4, resolution: 10)
        let m = MirrorDescription.of(source)
        #expect(m.name == "Panel (TouchBridge)")
        #expect(m.vendorProduct == "056a:00e6" && m.bustype == 0x18 && m.properties == [InputProperty.direct])
        #expect(m.absInfo[AbsCode.mtPositionX] == AbsInfo(minimum: 0, maximum: 2559, fuzz: 0, resolution: 10))
        #expect(m.absInfo[AbsCode.mtToolType] == AbsInfo(minimum: 0, maximum: MTToolType.palm))
        #expect(m.touchProtocol == .slots(count: 4) && m.kind == .touchscreen)
        #expect(MirrorDescription.phys(forSourceNode: "/dev/input/event5") == "touchbridge/event5")
        #expect(MirrorDescription.isMirror(name: "x", phys: "touchbridge/event5"))
        #expect(MirrorDescription.isMirror(name: m.name, phys: nil) && !MirrorDescription.isMirror(name: "Panel", phys: "usb-1/input0"))

        let long = String(repeating: "é", count: 60)
        #expect(MirrorDescription.name(for: long).utf8.count <= MirrorDescription.maximumNameBytes)
        #expect(MirrorDescription.name(for: long).hasSuffix(" (TouchBridge)"))

        var anonymous = DeviceDescription(name: "A")
        anonymous.addAbs(AbsCode.mtPositionX, AbsInfo(minimum: 0, maximum: 99))
        anonymous.addAbs(AbsCode.mtPositionY, AbsInfo(minimum: 0, maximum: 99))
        #expect(MirrorDescription.of(anonymous).touchProtocol == .slots(count: MirrorDescription.anonymousSlotCount))

        var single = DeviceDescription(name: "S")
        single.codes[EventType.key] = [KeyCode.touch]
        single.addAbs(AbsCode.x, AbsInfo(minimum: 0, maximum: 4095))
        single.addAbs(AbsCode.y, AbsInfo(minimum: 0, maximum: 4095))
        let s = MirrorDescription.of(single)
        #expect(s.touchProtocol == .slots(count: 1) && s.absInfo[AbsCode.mtPositionX]?.maximum == 4095 && s.hasAbs(AbsCode.x))
    }

    @Test("A recording written by EvemuWriter reads back with the same description and events")
    func evemuRoundTrip() throws {
        let path = "/tmp/touchbridge-test-\(getpid()).evemu"
        defer { unlink(path) }
        let d = MirrorDescription.of(Self.panel)
        let w = try EvemuWriter(path: path, device: d, comments: ["a test"])
        let events = [InputEvent(time: 12.5, type: EventType.abs, code: AbsCode.mtTrackingID, value: -1),
                      InputEvent(time: 12.000001, type: EventType.syn, code: SynCode.report, value: 0)]
        try w.write(events)
        try w.close()
        let r = try Recording.load(path: path)
        #expect(r.device == d)
        #expect(r.events == events)
    }
}
