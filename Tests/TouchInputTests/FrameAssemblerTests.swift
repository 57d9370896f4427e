import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

/// Builds event streams by hand: `e.abs(.x, 5)`, `e.syn()`.
struct EventScript {
    var events: [InputEvent] = []
    var t = 0.0
    mutating func abs(_ code: UInt16, _ v: Int32) { events.append(InputEvent(time: t, type: EventType.abs, code: code, value: v)) }
    mutating func key(_ code: UInt16, _ v: Int32) { events.append(InputEvent(time: t, type: EventType.key, code: code, value: v)) }
    mutating func mt() { events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.mtReport, value: 0)) }
    mutating func dropped() { events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.dropped, value: 0)) }
    mutating func syn(advance: Double = 0.01) {
        events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        t += advance
    }
}

/// A 1000×1000-unit panel onto a 1000×1000-point window: one point per unit.
func panel(slots: Int = 5, pressure: Bool = false, major: Bool = false) -> DeviceDescription {
    .panel(name: "test panel", slots: slots, width: 999, height: 999, resolution: 10, pressure: pressure,
           touchMajor: major, toolType: true)
}

func frames(_ device: DeviceDescription, _ script: EventScript, warnings: UnsafeMutablePointer<[String]>? = nil) -> [DigitizerFrame] {
    let target = Rect(x: 0, y: 0, width: 1000, height: 1000)
    let mapping = CoordinateMapping(device: device, target: target)!
    var player = RecordingPlayer(device: device, mapping: mapping) { warnings?.pointee.append($0) }
    return script.events.compactMap { player.play($0) }
}

func summary(_ f: DigitizerFrame) -> String {
    f.contacts.map { c in
        "\(c.id)@\(Int(c.location.x)),\(Int(c.location.y))\(c.isCancelled ? "x" : "")\(c.type == .pencil ? "p" : "")"
    }.joined(separator: " ")
}

@Suite("FrameAssembler: kernel events → frames")
struct FrameAssemblerTests {
    @Test("Protocol B: slots, implied slot 0, omitted values kept, −1 ends a contact")
    func protocolB() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 10); s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 200); s.syn()
        s.abs(AbsCode.mtSlot, 1); s.abs(AbsCode.mtTrackingID, 11); s.abs(AbsCode.mtPositionX, 300); s.abs(AbsCode.mtPositionY, 400); s.syn()
        s.abs(AbsCode.mtSlot, 0); s.abs(AbsCode.mtPositionX, 110); s.syn()          // y omitted: unchanged
        s.abs(AbsCode.mtTrackingID, -1); s.syn()
        s.abs(AbsCode.mtTrackingID, 12); s.abs(AbsCode.mtPositionY, 250); s.syn()  // x omitted: kept from the slot
        let f = frames(panel(), s).map(summary)
        #expect(f == ["1@100,200", "1@100,200 2@300,400", "1@110,200 2@300,400", "2@300,400", "3@110,250 2@300,400"])
    }

    @Test("A tracking id that changes without −1 in between ends one contact and starts another")
    func trackingIDChange() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 10); s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100); s.syn()
        s.abs(AbsCode.mtTrackingID, 11); s.abs(AbsCode.mtPositionX, 500); s.syn()
        #expect(frames(panel(), s).map(summary) == ["1@100,100", "2@500,100"])
    }

    @Test("An out-of-range slot is a kernel bug: its events are ignored and it is reported once")
    func outOfRangeSlot() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 10); s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100); s.syn()
        s.abs(AbsCode.mtSlot, 7); s.abs(AbsCode.mtTrackingID, 99); s.abs(AbsCode.mtPositionX, 5); s.syn()
        s.abs(AbsCode.mtSlot, 9); s.abs(AbsCode.mtPositionX, 6); s.syn()
        s.abs(AbsCode.mtSlot, 0); s.abs(AbsCode.mtPositionX, 120); s.syn()
        var warnings: [String] = []
        let f = frames(panel(slots: 2), s, warnings: &warnings).map(summary)
        #expect(f == ["1@100,100", "1@100,100", "1@100,100", "1@120,100"])
        #expect(warnings == ["kernel bug: test panel: ABS_MT_SLOT 7 is outside 0…1; its events are ignored"])
    }

    @Test("A position outside the axis range is clamped and reported once")
    func outOfRangePosition() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 1); s.abs(AbsCode.mtPositionX, 1200); s.abs(AbsCode.mtPositionY, -5); s.syn()
        var warnings: [String] = []
        #expect(frames(panel(), s, warnings: &warnings).map(summary) == ["1@999,0"])
        #expect(warnings.count == 2 && warnings.allSatisfy { $0.hasPrefix("kernel bug: test panel:") })
    }

    @Test("MT_TOOL_PALM cancels the contact for good; the Application cancels its touch")
    func palm() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 1); s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100); s.syn()
        s.abs(AbsCode.mtToolType, MTToolType.palm); s.syn()
        s.abs(AbsCode.mtToolType, MTToolType.finger); s.abs(AbsCode.mtPositionX, 150); s.syn()   // still the palm
        s.abs(AbsCode.mtTrackingID, -1); s.syn()
        s.abs(AbsCode.mtTrackingID, 2); s.abs(AbsCode.mtPositionX, 300); s.syn()                 // a new finger
        let f = frames(panel(), s)
        #expect(f.map(summary) == ["1@100,100", "1@100,100x", "1@150,100x", "", "2@300,100"])
        let window = Window(frame: Rect(x: 0, y: 0, width: 1000, height: 1000))
        let app = Application(window: window)
        var phases: [String] = []
        app.onEvent = { e in for t in e.orderedTouches where t.phase != .stationary { phases.append("\(t.contactID) \(t.phase)") } }
        for frame in f { app.handle(frame) }
        #expect(phases == ["1 began", "1 cancelled", "2 began"])
    }

    @Test("A palm that lifts in the frame it becomes a palm is cancelled, not ended (libinput: TOUCH_CANCEL, no up)",
          arguments: [true, false])
    func palmInTheLiftingFrame(toolFirst: Bool) {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 1); s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100); s.syn()
        s.abs(AbsCode.mtSlot, 1); s.abs(AbsCode.mtTrackingID, 2); s.abs(AbsCode.mtPositionX, 500); s.syn()
        // Slot 0 turns palm and lifts in one frame (in either order, as libinput reads it); slot 1 lifts.
        s.abs(AbsCode.mtSlot, 0)
        if toolFirst { s.abs(AbsCode.mtToolType, MTToolType.palm); s.abs(AbsCode.mtTrackingID, -1) }
        else { s.abs(AbsCode.mtTrackingID, -1); s.abs(AbsCode.mtToolType, MTToolType.palm) }
        s.syn()
        s.abs(AbsCode.mtSlot, 1); s.abs(AbsCode.mtTrackingID, -1); s.syn()
        let f = frames(panel(), s)
        #expect(f.map(summary) == ["1@100,100", "1@100,100 2@500,0", "1@100,100x 2@500,0", ""])
        let app = Application(window: Window(frame: Rect(x: 0, y: 0, width: 1000, height: 1000)))
        var phases: [String] = []
        app.onEvent = { e in for t in e.orderedTouches where t.phase != .stationary { phases.append("\(t.contactID) \(t.phase)") } }
        for frame in f { app.handle(frame) }
        #expect(phases == ["1 began", "2 began", "1 cancelled", "2 ended"])
    }

    @Test("MT_TOOL_PEN makes a pencil touch; pressure → force (mid-range = 1.0); touch major → majorRadius in points")
    func penForceRadius() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 1); s.abs(AbsCode.mtToolType, MTToolType.pen)
        s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100)
        s.abs(AbsCode.mtPressure, 255); s.abs(AbsCode.mtTouchMajor, 20); s.syn()
        s.abs(AbsCode.mtToolType, MTToolType.finger); s.abs(AbsCode.mtPressure, 51); s.syn()
        let f = frames(panel(pressure: true, major: true), s)
        #expect(f[0].contacts[0].type == .pencil)
        #expect(f[0].contacts[0].force == 2 && f[0].contacts[0].maximumPossibleForce == 2)
        #expect(f[0].contacts[0].majorRadius == 10)
        #expect(f[1].contacts[0].type == .direct)
        #expect(abs(f[1].contacts[0].force - 0.4) < 1e-12)
    }

    @Test("Protocol A: contacts separated by SYN_MT_REPORT, matched by nearest position; an empty frame lifts all")
    func protocolA() {
        var d = DeviceDescription(name: "protocol A")
        d.codes[EventType.key] = [KeyCode.touch]
        d.addAbs(AbsCode.mtPositionX, AbsInfo(minimum: 0, maximum: 999))
        d.addAbs(AbsCode.mtPositionY, AbsInfo(minimum: 0, maximum: 999))
        var s = EventScript()
        func contact(_ x: Int32, _ y: Int32) { s.abs(AbsCode.mtPositionX, x); s.abs(AbsCode.mtPositionY, y); s.mt() }
        contact(100, 100); s.syn()
        contact(500, 500); contact(105, 100); s.syn()     // order swapped: matching keeps identities
        contact(110, 100); contact(505, 500); s.syn()
        contact(510, 500); s.syn()
        s.mt(); s.syn()
        #expect(frames(d, s).map(summary) == ["1@100,100", "2@500,500 1@105,100", "1@110,100 2@505,500", "2@510,500", ""])
    }

    @Test("Single-touch devices: ABS_X/ABS_Y while BTN_TOUCH is down; each press is a new contact")
    func singleTouch() {
        var d = DeviceDescription(name: "resistive")
        d.properties = [InputProperty.direct]
        d.codes[EventType.key] = [KeyCode.touch]
        d.addAbs(AbsCode.x, AbsInfo(minimum: 0, maximum: 999))
        d.addAbs(AbsCode.y, AbsInfo(minimum: 0, maximum: 999))
        #expect(d.touchProtocol == .singleTouch && d.kind == .touchscreen)
        var s = EventScript()
        s.key(KeyCode.touch, 1); s.abs(AbsCode.x, 10); s.abs(AbsCode.y, 20); s.syn()
        s.abs(AbsCode.x, 15); s.syn()
        s.key(KeyCode.touch, 0); s.syn()
        s.key(KeyCode.touch, 1); s.abs(AbsCode.x, 30); s.syn()
        #expect(frames(d, s).map(summary) == ["1@10,20", "1@15,20", "", "2@30,20"])
    }

    @Test("Devices with only ABS_MT_* axes work (no ABS_X, no BTN_TOUCH)")
    func mtOnly() {
        var d = panel()
        d.codes[EventType.key] = []
        #expect(d.kind == .touchscreen)
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 5); s.abs(AbsCode.mtPositionX, 1); s.abs(AbsCode.mtPositionY, 2); s.syn()
        #expect(frames(d, s).map(summary) == ["1@1,2"])
    }

    @Test("SYN_DROPPED: the rest of the frame is discarded; a contact that lifted meanwhile is cancelled, one still down goes on")
    func synDroppedProtocolB() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 1); s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100)
        s.abs(AbsCode.mtSlot, 1); s.abs(AbsCode.mtTrackingID, 2); s.abs(AbsCode.mtPositionX, 200); s.abs(AbsCode.mtPositionY, 200)
        s.syn()
        s.dropped()
        s.abs(AbsCode.mtSlot, 0); s.abs(AbsCode.mtTrackingID, -1)         // lost: contact 1 lifts
        s.abs(AbsCode.mtSlot, 1); s.abs(AbsCode.mtPositionX, 250)         // lost: contact 2 moves
        s.abs(AbsCode.mtSlot, 2); s.abs(AbsCode.mtTrackingID, 3); s.abs(AbsCode.mtPositionX, 700); s.abs(AbsCode.mtPositionY, 700)
        s.syn()
        s.abs(AbsCode.mtSlot, 1); s.abs(AbsCode.mtPositionX, 260); s.syn()
        #expect(frames(panel(), s).map(summary) == ["1@100,100 2@200,200", "1@100,100x 2@250,200 3@700,700", "2@260,200 3@700,700"])
    }

    @Test("SYN_DROPPED on protocol A and single-touch devices: what vanished is cancelled")
    func synDroppedOthers() {
        var a = DeviceDescription(name: "protocol A")
        a.addAbs(AbsCode.mtPositionX, AbsInfo(minimum: 0, maximum: 999))
        a.addAbs(AbsCode.mtPositionY, AbsInfo(minimum: 0, maximum: 999))
        var s = EventScript()
        s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100); s.mt(); s.syn()
        s.dropped(); s.mt(); s.syn()
        s.mt(); s.syn()
        let fa = frames(a, s).map(summary)
        #expect(fa.first == "1@100,100" && fa.contains("1@100,100x"))
        var single = DeviceDescription(name: "single")
        single.codes[EventType.key] = [KeyCode.touch]
        single.addAbs(AbsCode.x, AbsInfo(minimum: 0, maximum: 999))
        single.addAbs(AbsCode.y, AbsInfo(minimum: 0, maximum: 999))
        var t = EventScript()
        t.key(KeyCode.touch, 1); t.abs(AbsCode.x, 10); t.abs(AbsCode.y, 10); t.syn()
        t.dropped(); t.key(KeyCode.touch, 0); t.syn()
        #expect(frames(single, t).map(summary) == ["1@10,10", "1@10,10x"])
    }

    @Test("cancelAll: a removed device cancels its contacts")
    func cancelAll() {
        var s = EventScript()
        s.abs(AbsCode.mtTrackingID, 1); s.abs(AbsCode.mtPositionX, 100); s.abs(AbsCode.mtPositionY, 100); s.syn()
        let d = panel()
        var player = RecordingPlayer(device: d, mapping: CoordinateMapping(device: d, target: Rect(x: 0, y: 0, width: 1000, height: 1000))!)
        for e in s.events { _ = player.play(e) }
        #expect(summary(player.cancelAll(at: 1)) == "1@100,100x")
        #expect(summary(player.cancelAll(at: 2)) == "")
    }
}
