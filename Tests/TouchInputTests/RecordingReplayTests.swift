import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

@Suite("Real recordings replay through FrameAssembler + Application")
struct RecordingReplayTests {
    @Test("Every fixture replays without an error; touch sequences equal tracking-id starts; none is left down",
          arguments: Fixtures.all)
    func everyFixture(name: String) throws {
        let r = try Fixtures.load(name)
        let result = replay(r)
        let expected = r.device.touchProtocol == .anonymousContacts ? humanCount[name]! : r.trackingIDStarts
        #expect(result.began == expected)
        #expect(result.ended == expected && result.cancelled == 0)
        #expect(result.stillDown == 0)
        #expect(result.warnings.isEmpty)
    }

    /// Protocol A has no tracking ids: the contacts a person reads off the recording.
    let humanCount = [
        "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events": 1,
        "evemu-devices__ntrig-protocolA-ts__2fg-press-release.events": 2,
        "libinput-record__ntrig-protocolA-ts__1fg-drag-diagonal.yml": 1,
    ]

    @Test("The Atmel nine fast taps give tapCounts that climb 1…9")
    func atmelNineFastTaps() throws {
        let result = replay(try Fixtures.load("evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu"))
        #expect(result.tapCounts == [1, 2, 3, 4, 5, 6, 7, 8, 9])
    }

    @Test("The N-Trig protocol-A recordings: one dragging finger, then two fingers held together")
    func ntrigProtocolA() throws {
        let drag = try Fixtures.load("evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events")
        #expect(drag.device.touchProtocol == .anonymousContacts)
        #expect(drag.device.kind == .touchscreen)      // no INPUT_PROP_DIRECT, but BTN_TOUCH and no BTN_TOOL_FINGER
        let dragFrames = RecordingPlayer.frames(of: drag, target: Rect(x: 0, y: 0, width: 1000, height: 600))
        let first = dragFrames.first { !$0.contacts.isEmpty }!.contacts[0].location
        let last = dragFrames.last { !$0.contacts.isEmpty }!.contacts[0].location
        #expect(first.distance(to: last) > 100)        // a diagonal drag across the panel
        let press = replay(try Fixtures.load("evemu-devices__ntrig-protocolA-ts__2fg-press-release.events"))
        #expect(press.began == 2 && press.maxSimultaneous == 2 && press.ended == 2)
    }

    @Test("Implied slot 0: the Wacom two-finger tap's first frame has no ABS_MT_SLOT")
    func impliedSlotZero() throws {
        let r = try Fixtures.load("evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events")
        #expect(r.events.first?.code == AbsCode.mtTrackingID)
        let frames = RecordingPlayer.frames(of: r, target: Rect(x: 0, y: 0, width: 2777, height: 1570))
        #expect(frames[0].contacts.map(\.location) == [Point(x: 1488, y: 692), Point(x: 1287, y: 732)])
    }

    @Test("Values omitted when unchanged are kept from the slot's last state (Atmel: taps that send only X or only Y)")
    func omittedValues() throws {
        let r = try Fixtures.load("evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")
        // Find a touch that starts with only one of the two positions sent.
        var lastX: Int32 = 0, lastY: Int32 = 0
        var sawX = false, sawY = false, inStart = false
        var partialStart: (x: Int32, y: Int32)?
        for e in r.events {
            if e.type == EventType.abs && e.code == AbsCode.mtTrackingID && e.value >= 0 { inStart = true; sawX = false; sawY = false }
            if e.type == EventType.abs && e.code == AbsCode.mtPositionX { lastX = e.value; sawX = true }
            if e.type == EventType.abs && e.code == AbsCode.mtPositionY { lastY = e.value; sawY = true }
            if e.type == EventType.syn && e.code == SynCode.report {
                if inStart && (sawX != sawY) && partialStart == nil { partialStart = (lastX, lastY) }
                inStart = false
            }
        }
        let expected = try #require(partialStart)
        let frames = RecordingPlayer.frames(of: r, target: Rect(x: 0, y: 0, width: 800, height: 480))
        // 800×480 points for 0…799 × 0…479 units: one point per unit.
        #expect(frames.contains { f in f.contacts.contains { $0.location == Point(x: Double(expected.x), y: Double(expected.y)) } })
    }

    @Test("Chromium OS's same-timestamp burst, with SYN_DROPPED inserted at several places: no touch left down, the lost ones cancelled not ended")
    func burstWithDrops() throws {
        let recording: Recording
        if let dir = Fixtures.sharedDirectory {
            recording = try Recording.load(path: dir + "/cros-autotest__unknown-ts__5fg-burst-same-timestamp-syn-dropped-stress.events")
        } else {
            recording = Synthetic.burst()
        }
        // Insert SYN_DROPPED at the start of every sixth frame that lifts a finger: the reader loses
        // that frame, lift included, and must find out from the kernel's state.
        let frameStarts = [0] + recording.events.indices.filter {
            recording.events[$0].type == EventType.syn && recording.events[$0].code == SynCode.report
        }.map { $0 + 1 }
        var dropAt: [Int] = []
        var liftsLost = 0, liftingFrames = 0
        for (k, start) in frameStarts.enumerated() where k + 1 < frameStarts.count {
            let frame = recording.events[start..<frameStarts[k + 1]]
            let lifts = frame.filter { $0.code == AbsCode.mtTrackingID && $0.type == EventType.abs && $0.value == -1 }.count
            guard lifts > 0 else { continue }
            liftingFrames += 1
            if liftingFrames % 6 == 0 {
                dropAt.append(start)
                liftsLost += lifts
            }
        }
        var events: [InputEvent] = []
        for (i, e) in recording.events.enumerated() {
            if dropAt.contains(i) { events.append(InputEvent(time: e.time, type: EventType.syn, code: SynCode.dropped, value: 0)) }
            events.append(e)
        }
        #expect(dropAt.count >= 4)
        var dropped = recording
        dropped.events = events
        let result = replay(dropped)
        #expect(result.stillDown == 0)
        #expect(result.cancelled == liftsLost)
        #expect(result.began == result.ended + result.cancelled)
        #expect(result.began == recording.trackingIDStarts)
        #expect(result.maxSimultaneous <= 5)
        // Without the drops every touch ends normally.
        let clean = replay(recording)
        #expect(clean.cancelled == 0 && clean.began == recording.trackingIDStarts)
    }

    @Test("The touchpad tracking-id handoff: a contact reappearing under a new id in another slot is a new touch")
    func touchpadHandoff() throws {
        let recording: Recording
        if let dir = Fixtures.sharedDirectory {
            recording = try Recording.load(path: dir + "/cros-autotest__cyapa-touchpad__2fg-tracking-id-handoff.evtest.txt")
        } else {
            recording = Synthetic.handoff()
        }
        #expect(recording.device.kind == .touchpad)
        let frames = RecordingPlayer.frames(of: recording, target: Rect(x: 0, y: 0, width: 1000, height: 600))
        #expect(frames.allSatisfy { $0.contacts.allSatisfy { $0.type == .indirect } })
        let result = replay(recording)
        #expect(result.began == 3 && result.ended == 3 && result.stillDown == 0)
        // At the handoff one frame has the new id and not the old one.
        let ids = frames.map { Set($0.contacts.map(\.id)) }
        #expect(ids.contains([1, 3]) || ids.contains([2, 3]))
    }

    @Test("Recordings from ../shared replay too, when it is there (Chromium OS samus: tap and two swipes)")
    func sharedRecordings() throws {
        guard let dir = Fixtures.sharedDirectory else { return }
        for name in ["cros-autotest__samus-ts__1fg-tap.events", "cros-autotest__samus-ts__1fg-swipe-up.events",
                     "cros-autotest__samus-ts__1fg-swipe-right.events"] {
            let r = try Recording.load(path: dir + "/" + name)
            let result = replay(r)
            #expect(result.began == r.trackingIDStarts && result.ended == result.began && result.stillDown == 0)
        }
    }
}
