import TouchCore
@testable import TouchInput
import TouchSystem

/// Where the test recordings are: Tests/Fixtures (MIT, in the repository) and, when present,
/// ../shared/recordings beside the checkout (including the GPL-2.0 Chromium OS ones).
enum Fixtures {
    static let directory: String = {
        let file = #filePath
        let testsDir = file.split(separator: "/").dropLast(2).joined(separator: "/")
        return "/" + testsDir + "/Fixtures"
    }()

    static let sharedDirectory: String? = {
        let candidates = [directory + "/../../../shared/recordings", directory + "/../../shared/recordings"]
        return candidates.first { Files.exists($0 + "/SOURCES.md") }
    }()

    static func path(_ name: String) -> String { directory + "/" + name }

    static func load(_ name: String) throws -> Recording { try Recording.load(path: path(name)) }

    /// Every recording file in Tests/Fixtures (not the descriptions).
    static let all: [String] = [
        "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu",
        "evemu-devices__atmel-maxtouch-ts__1fg-drag-up-down.evemu",
        "evemu-devices__atmel-maxtouch-ts__2fg-press-hold-release.evemu",
        "evemu-devices__atmel-maxtouch-ts__4fg-swipe-down.evemu",
        "evemu-devices__ep0430m09-ts__1fg-drag-up-down.evemu",
        "evemu-devices__ep0430m09-ts__2fg-press-release.evemu",
        "evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu",
        "evemu-devices__ep0430m09-ts__4fg-swipe-down.evemu",
        "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events",
        "evemu-devices__ntrig-protocolA-ts__2fg-press-release.events",
        "evemu-devices__quanta-optical-ts__1fg-9-touches-drags.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-circle.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-scroll-down.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-swipe-right.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__1fg-tap.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-circle.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-scroll-down.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-swipe-right.events",
        "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events",
        "libinput-record__ep0430m09-ts__2fg-scroll-down.yml",
        "libinput-record__ntrig-protocolA-ts__1fg-drag-diagonal.yml",
    ]
}

/// What replaying a recording through FrameAssembler + Application gave.
struct ReplayResult {
    var began = 0, ended = 0, cancelled = 0
    var tapCounts: [Int] = []
    var maxSimultaneous = 0
    var stillDown = 0
    var warnings: [String] = []
}

/// Replays `recording` onto a 1000×600 window through the whole TouchCore pipeline.
func replay(_ recording: Recording, frames: [DigitizerFrame]? = nil) -> ReplayResult {
    var result = ReplayResult()
    let window = Window(frame: Rect(x: 0, y: 0, width: 1000, height: 600))
    let app = Application(window: window)
    app.onEvent = { e in
        result.maxSimultaneous = max(result.maxSimultaneous, e.orderedTouches.filter { $0.phase != .ended && $0.phase != .cancelled }.count)
        for t in e.orderedTouches {
            switch t.phase {
            case .began: result.began += 1; result.tapCounts.append(t.tapCount)
            case .ended: result.ended += 1
            case .cancelled: result.cancelled += 1
            default: break
            }
        }
    }
    var warnings: [String] = []
    let list = frames ?? RecordingPlayer.frames(of: recording, target: window.bounds) { warnings.append($0) }
    for f in list { app.handle(f) }
    result.stillDown = app.activeTouches.count
    result.warnings = warnings
    return result
}
