import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// The gestures the built-in scene makes of a recording, as parsed socket lines.
func gestures(_ name: String, shared: Bool = false) throws -> [JSON]? {
    let dir: String
    if shared {
        let fixtures = "/" + #filePath.split(separator: "/").dropLast(2).joined(separator: "/") + "/Fixtures"
        guard let s = [fixtures + "/../../../shared/recordings", fixtures + "/../../shared/recordings"]
            .first(where: { Files.exists($0 + "/SOURCES.md") }) else { return nil }
        dir = s
    } else {
        dir = "/" + #filePath.split(separator: "/").dropLast(2).joined(separator: "/") + "/Fixtures"
    }
    let r = try Recording.load(path: dir + "/" + name)
    return try OfflineReplay.lines(of: r, scene: nil, log: Logger(program: "test", level: .error))
        .map { try JSONParser.parse($0) }
}

extension [JSON] {
    func named(_ n: String, _ state: String? = nil) -> [JSON] {
        filter { $0["recognizer"]?.stringValue == n && (state == nil || $0["state"]?.stringValue == state) }
    }
    var names: Set<String> { Set(compactMap { $0["recognizer"]?.stringValue }) }
    var lastTranslation: Point {
        let t = last { $0["translation"] != nil }!["translation"]!
        return Point(x: t["x"]!.numberValue!, y: t["y"]!.numberValue!)
    }
}

@Suite("Real recordings give sensible gestures on the built-in scene")
struct RecordingGestureTests {
    @Test("Atmel: nine fast taps are four double taps and a single tap")
    func nineTaps() throws {
        let g = try #require(try gestures("evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu"))
        #expect(g.named("doubleTap").count == 4 && g.named("tap").count == 1 && g.names == ["doubleTap", "tap"])
        #expect(g.allSatisfy { $0["state"]?.stringValue == "recognized" && $0["taps"] != nil })
    }

    @Test("Wacom: a tap is a tap, a two-finger tap is a two-finger tap")
    func taps() throws {
        let one = try #require(try gestures("evemu-devices__wacom-isdv4-e6-finger-ts__1fg-tap.events"))
        #expect(one.map { $0["recognizer"]!.stringValue! } == ["tap"])
        let two = try #require(try gestures("evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events"))
        #expect(two.map { $0["recognizer"]!.stringValue! } == ["twoFingerTap"])
        #expect(two[0]["touches"]?.numberValue == 2)
    }

    @Test("Drags are pans in the direction of the drag: up-down, swipe right, two-finger scroll down, four-finger swipe down")
    func drags() throws {
        let upDown = try #require(try gestures("evemu-devices__atmel-maxtouch-ts__1fg-drag-up-down.evemu"))
        #expect(upDown.names == ["pan"] && upDown.named("pan", "began").count == 1 && upDown.named("pan", "ended").count == 1)
        let right = try #require(try gestures("evemu-devices__wacom-isdv4-e6-finger-ts__1fg-swipe-right.events"))
        #expect(right.names == ["pan"] && right.lastTranslation.x > 200)
        let scroll = try #require(try gestures("evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu"))
        // "Scroll down" as a touchpad user says it: the fingers travel up the panel.
        #expect(scroll.names == ["pan"] && scroll.lastTranslation.y < -100)
        #expect(scroll.named("pan", "changed").contains { $0["touches"]?.numberValue == 2 })
        let four = try #require(try gestures("evemu-devices__atmel-maxtouch-ts__4fg-swipe-down.evemu"))
        #expect(four.names == ["pan"] && four.lastTranslation.y > 100)
        #expect(four.named("pan", "changed").contains { $0["touches"]?.numberValue == 4 })
    }

    @Test("Quanta: slow touches and holds are long presses and pans, not taps in bulk")
    func quanta() throws {
        let g = try #require(try gestures("evemu-devices__quanta-optical-ts__1fg-9-touches-drags.events"))
        #expect(g.named("longPress", "began").count >= 1 && g.named("pan", "began").count >= 1)
        #expect(g.named("longPress", "began").count == g.named("longPress", "ended").count)
        #expect(g.named("pan", "began").count == g.named("pan", "ended").count)
    }

    @Test("Every continuous gesture that begins also ends, in every fixture")
    func balanced() throws {
        for name in ["evemu-devices__atmel-maxtouch-ts__2fg-press-hold-release.evemu", "evemu-devices__ep0430m09-ts__2fg-press-release.evemu",
                     "evemu-devices__ep0430m09-ts__4fg-swipe-down.evemu", "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events",
                     "evemu-devices__ntrig-protocolA-ts__2fg-press-release.events", "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-circle.events",
                     "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-circle.events", "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-scroll-down.events",
                     "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-swipe-right.events"] {
            let g = try #require(try gestures(name))
            for n in g.names {
                let began = g.named(n, "began").count
                let finished = g.named(n, "ended").count + g.named(n, "cancelled").count
                #expect(began == finished, "\(name): \(n) began \(began)×, finished \(finished)×")
            }
        }
    }

    @Test("Chromium OS samus recordings (from ../shared when present): a tap, a swipe up, a swipe right")
    func samus() throws {
        guard let tap = try gestures("cros-autotest__samus-ts__1fg-tap.events", shared: true) else { return }
        #expect(tap.map { $0["recognizer"]!.stringValue! } == ["tap"])
        let up = try #require(try gestures("cros-autotest__samus-ts__1fg-swipe-up.events", shared: true))
        #expect(up.lastTranslation.y < -100)
        let right = try #require(try gestures("cros-autotest__samus-ts__1fg-swipe-right.events", shared: true))
        #expect(right.lastTranslation.x > 100)
    }

    @Test("libinput record's files give the gestures of the evemu recordings they were made from (Tests/Fixtures/NOTICE)",
          arguments: [("libinput-record__ep0430m09-ts__2fg-scroll-down.yml", "evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu"),
                      ("libinput-record__ntrig-protocolA-ts__1fg-drag-diagonal.yml",
                       "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events")])
    func libinputRecord(yaml: String, original: String) throws {
        let recorded = try #require(try gestures(yaml)), source = try #require(try gestures(original))
        #expect(!source.isEmpty)
        #expect(recorded.map { $0["recognizer"]!.stringValue! + " " + $0["state"]!.stringValue! }
                == source.map { $0["recognizer"]!.stringValue! + " " + $0["state"]!.stringValue! })
        // The same positions; the times differ by the replay's jitter (the lab replayed the file in real time).
        #expect(zip(recorded, source).allSatisfy { $0["x"] == $1["x"] && $0["y"] == $1["y"] && $0["touches"] == $1["touches"] })
    }
}
