import Testing
import TouchCore
import TouchInput
@testable import TouchBridge

@Test func exploreGestures() throws {
    let dir = "/" + #filePath.split(separator: "/").dropLast(2).joined(separator: "/") + "/Fixtures/"
    let log = Logger(program: "test", level: .warning)
    for name in ["evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu",
        "evemu-devices__atmel-maxtouch-ts__1fg-drag-up-down.evemu",
        "evemu-devices__atmel-maxtouch-ts__2fg-press-hold-release.evemu",
        "evemu-devices__atmel-maxtouch-ts__4fg-swipe-down.evemu",
        "evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu",
        "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events",
        "evemu-devices__quanta-optical-ts__1fg-9-touches-drags.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-tap.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-circle.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-swipe-right.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-swipe-right.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-scroll-down.events"] {
        let r = try Recording.load(path: dir + name)
        let lines = try OfflineReplay.lines(of: r, scene: nil, topics: .gestures, log: log)
        var summary: [String: Int] = [:]
        for l in lines {
            let j = try JSONParser.parse(l)
            let k = "\(j["recognizer"]!.stringValue!) \(j["state"]!.stringValue!)"
            summary[k, default: 0] += 1
        }
        print(name, summary.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: ", "))
    }
}
