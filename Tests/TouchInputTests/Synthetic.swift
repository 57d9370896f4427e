@testable import TouchInput
import TouchSystem

/// Event streams built to the description of recordings that cannot be copied into the repository
/// (../shared/recordings/SOURCES.md), so the tests run on a fresh clone without ../shared.
enum Synthetic {
    static func device(name: String, slots: Int, direct: Bool = true, touchpad: Bool = false) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        if direct { d.properties = [InputProperty.direct] }
        d.codes[EventType.key] = touchpad ? [KeyCode.touch, KeyCode.toolFinger] : [KeyCode.touch]
        d.addAbs(AbsCode.x, AbsInfo(minimum: 0, maximum: 2559))
        d.addAbs(AbsCode.y, AbsInfo(minimum: 0, maximum: 1699))
        d.addAbs(AbsCode.mtSlot, AbsInfo(minimum: 0, maximum: Int32(slots - 1)))
        d.addAbs(AbsCode.mtPositionX, AbsInfo(minimum: 0, maximum: 2559))
        d.addAbs(AbsCode.mtPositionY, AbsInfo(minimum: 0, maximum: 1699))
        d.addAbs(AbsCode.mtTrackingID, AbsInfo(minimum: 0, maximum: 65535))
        d.addAbs(AbsCode.mtPressure, AbsInfo(minimum: 0, maximum: 255))
        return d
    }

    /// Up to five fingers landing, moving and lifting at random, every event at one timestamp, like
    /// Chromium OS's bombard.dat: 33 touches.
    static func burst() -> Recording {
        var seed: UInt64 = 42
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let t = 1351148442.000001
        var events: [InputEvent] = []
        func abs(_ code: UInt16, _ v: Int) { events.append(InputEvent(time: t, type: EventType.abs, code: code, value: Int32(v))) }
        var slots = [Int?](repeating: nil, count: 5)
        var nextID = 166, started = 0
        var pos = [(Int, Int)](repeating: (0, 0), count: 5)
        while started < 33 || slots.contains(where: { $0 != nil }) {
            for s in 0..<5 {
                let r = next(10)
                if slots[s] == nil, started < 33, r < 3 {
                    abs(AbsCode.mtSlot, s); abs(AbsCode.mtTrackingID, nextID)
                    pos[s] = (200 + next(2000), 100 + next(1400))
                    abs(AbsCode.mtPositionX, pos[s].0); abs(AbsCode.mtPositionY, pos[s].1); abs(AbsCode.mtPressure, 14)
                    slots[s] = nextID; nextID += 1; started += 1
                } else if slots[s] != nil, r < 2 {
                    abs(AbsCode.mtSlot, s); abs(AbsCode.mtTrackingID, -1)
                    slots[s] = nil
                } else if slots[s] != nil {
                    pos[s].0 += next(21) - 10
                    abs(AbsCode.mtSlot, s); abs(AbsCode.mtPositionX, pos[s].0)
                }
            }
            events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        }
        return Recording(device: device(name: "synthetic burst", slots: 10), events: events, source: "synthetic burst")
    }

    /// The cyapa handoff: two fingers (969 in the implied slot 0, 970 in slot 1) move; then in one
    /// frame slot 1 ends and slot 2 starts 971 nearby; then everything lifts.
    static func handoff() -> Recording {
        var events: [InputEvent] = []
        var t = 1329115901.179359
        func abs(_ code: UInt16, _ v: Int) { events.append(InputEvent(time: t, type: EventType.abs, code: code, value: Int32(v))) }
        func syn() { events.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0)); t += 0.012 }
        abs(AbsCode.mtTrackingID, 969); abs(AbsCode.mtPositionX, 406); abs(AbsCode.mtPositionY, 20)
        abs(AbsCode.mtSlot, 1); abs(AbsCode.mtTrackingID, 970); abs(AbsCode.mtPositionX, 597); abs(AbsCode.mtPositionY, 34)
        syn()
        for i in 1...10 {
            abs(AbsCode.mtSlot, 0); abs(AbsCode.mtPositionY, 20 + i * 40)
            abs(AbsCode.mtSlot, 1); abs(AbsCode.mtPositionY, 34 + i * 40)
            syn()
        }
        abs(AbsCode.mtSlot, 1); abs(AbsCode.mtTrackingID, -1)
        abs(AbsCode.mtSlot, 2); abs(AbsCode.mtTrackingID, 971); abs(AbsCode.mtPositionX, 604); abs(AbsCode.mtPositionY, 480)
        syn()
        for i in 1...5 {
            abs(AbsCode.mtSlot, 0); abs(AbsCode.mtPositionY, 420 + i * 10)
            abs(AbsCode.mtSlot, 2); abs(AbsCode.mtPositionY, 480 + i * 10)
            syn()
        }
        abs(AbsCode.mtSlot, 0); abs(AbsCode.mtTrackingID, -1); abs(AbsCode.mtSlot, 2); abs(AbsCode.mtTrackingID, -1)
        syn()
        var d = device(name: "cyapa", slots: 15, direct: false, touchpad: true)
        d.absInfo[AbsCode.mtPositionX] = AbsInfo(minimum: 0, maximum: 1280, resolution: 12)
        d.absInfo[AbsCode.mtPositionY] = AbsInfo(minimum: 0, maximum: 680, resolution: 10)
        return Recording(device: d, events: events, source: "synthetic handoff")
    }
}
