import CEvdev
import Glibc
import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// Pass-through as scripts: a scene, a panel's kernel events through the daemon's pipeline, and one log
/// of what the mirror was written, write by write ("@1.05 down 0 (100,200)", "@1.4 up 0").
@Suite("Pass-through: the mirror hears what the views hear")
struct PassthroughTests {
    static let fixtures = "/" + #filePath.split(separator: "/").dropLast(2).joined(separator: "/") + "/Fixtures"

    /// `views`: the scene's views as JSON; the panel passes through from `exclusiveSince` on.
    static func rig(views: String, exclusiveSince: Double = -.infinity) throws -> PipelineRig {
        let rig = try PipelineRig(#"{"window": {"width": 800, "height": 480}, "views": [\#(views)]}"#, passthrough: true)
        rig.passThrough(grabbedSince: { exclusiveSince })
        return rig
    }

    @Test("A touch on no view passes in the same frame it arrived, at the panel's own coordinates")
    func plainTouch() throws {
        let rig = try Self.rig(views: "")
        rig.down(0, 100, 200); rig.frame(1.0)
        #expect(rig.mirror() == ["@1.0 down 0 (100,200)"])
        rig.move(0, 105, 200); rig.frame(1.01)
        rig.move(0, 105, 200); rig.frame(1.02)          // nothing changed: nothing written
        rig.up(0); rig.frame(1.03)
        #expect(rig.mirror() == ["@1.01 move 0 (105,_)", "@1.03 up 0"])
        #expect(rig.memory!.writes.isEmpty)
    }

    @Test("C1: a pan that begins cancels its touch on the mirror, which hears nothing more of it")
    func claimedByPan() throws {
        let rig = try Self.rig(views: #"{"name": "list", "frame": [0, 0, 800, 480], "recognizers": [{"name": "scroll", "type": "pan"}]}"#)
        rig.down(0, 100, 100); rig.frame(1.0)
        rig.move(0, 100, 105); rig.frame(1.01)
        rig.move(0, 100, 112); rig.frame(1.02)          // 12 pt: the pan begins
        rig.move(0, 100, 130); rig.frame(1.03)
        rig.up(0); rig.frame(1.04)
        #expect(rig.mirror() == ["@1.0 down 0 (100,100)", "@1.01 move 0 (_,105)", "@1.02 cancel 0"])
        #expect(rig.log == ["scroll began", "scroll changed", "scroll ended"])
    }

    @Test("cancelsTouchesInView false: the views, and so the compositor, get the whole touch while the pan runs")
    func notClaimed() throws {
        let rig = try Self.rig(views: #"{"name": "map", "frame": [0, 0, 800, 480], "recognizers": [{"name": "drag", "type": "pan", "cancelsTouchesInView": false}]}"#)
        rig.down(0, 100, 100); rig.frame(1.0)
        rig.move(0, 100, 120); rig.frame(1.01)
        rig.up(0); rig.frame(1.02)
        #expect(rig.mirror() == ["@1.0 down 0 (100,100)", "@1.01 move 0 (_,120)", "@1.02 up 0"])
        #expect(rig.log == ["drag began", "drag ended"])
    }

    @Test("C2: with delaysTouchesBegan, an edge swipe never reaches the mirror, and a tap there appears when the edge pan fails, down and up together")
    func delaysBegan() throws {
        let rig = try Self.rig(views: #"{"name": "edge", "frame": [0, 0, 100, 480], "recognizers": [{"name": "back", "type": "screenEdgePan", "edges": ["left"], "delaysTouchesBegan": true}]}"#)
        rig.down(0, 4, 200); rig.frame(1.0)
        for i in 1...6 { rig.move(0, Int32(4 + 10 * i), 200); rig.frame(1.0 + Double(i) / 100) }
        rig.up(0); rig.frame(1.1)
        #expect(rig.mirror() == [])
        #expect(rig.log.first == "back began")

        rig.down(0, 10, 300); rig.frame(2.0)            // within the edge pan's 24 pt: it may still begin
        rig.move(0, 11, 300); rig.frame(2.05)
        #expect(rig.mirror() == [])
        rig.up(0); rig.frame(2.1)                       // the edge pan fails at the lift: the gate opens
        #expect(rig.mirror() == ["@2.1 down 0 (10,300)", "@2.1 up 0 (11,_)"])
    }

    @Test("C3: a double tap recognizer holds back the lift of a single tap until it fails, 0.35 s later, written at that time")
    func delaysEnded() throws {
        let rig = try Self.rig(views: #"{"name": "photo", "frame": [0, 0, 800, 480], "recognizers": [{"name": "zoom", "type": "tap", "numberOfTapsRequired": 2, "cancelsTouchesInView": false}]}"#)
        rig.down(0, 300, 300); rig.frame(1.0)
        rig.up(0); rig.frame(1.05)
        #expect(rig.mirror() == ["@1.0 down 0 (300,300)"])
        rig.pipeline.advance(to: 2.0)
        #expect(rig.mirror() == ["@1.4 up 0"])
    }

    @Test("T9: a view without multiple touch hears one touch; the second finger on it never reaches the mirror")
    func multipleTouch() throws {
        let rig = try Self.rig(views: #"{"name": "button", "frame": [0, 0, 800, 480]}"#)
        rig.down(0, 100, 100); rig.frame(1.0)
        rig.down(1, 300, 100); rig.frame(1.01)
        rig.up(0); rig.up(1); rig.frame(1.02)
        #expect(rig.mirror() == ["@1.0 down 0 (100,100)", "@1.02 up 0"])
    }

    @Test("A \"passthrough\": false view and everything in it keep their touches from the mirror")
    func reserved() throws {
        let rig = try Self.rig(views: #"{"name": "strip", "frame": [0, 400, 800, 80], "passthrough": false, "subviews": [{"name": "handle", "frame": [10, 10, 50, 50]}]}"#)
        rig.down(0, 30, 430); rig.frame(1.0)
        rig.down(1, 300, 450); rig.frame(1.01)
        rig.down(2, 300, 100); rig.frame(1.02)
        rig.up(0); rig.up(1); rig.up(2); rig.frame(1.03)
        #expect(rig.mirror() == ["@1.02 down 0 (300,100)", "@1.03 up 0"])
    }

    @Test("SYN_DROPPED: a touch that vanished while events were lost is cancelled on the mirror; one still down goes on")
    func synDropped() throws {
        let rig = try Self.rig(views: "")
        rig.down(0, 100, 100); rig.down(1, 300, 100); rig.frame(1.0)
        rig.syn(SynCode.dropped, at: 1.01)
        rig.up(0); rig.move(1, 310, 100); rig.frame(1.02)   // lost with the drop; the resync reads them back
        rig.move(1, 320, 100); rig.frame(1.03)
        #expect(rig.mirror() == ["@1.0 down 0 (100,100)", "@1.0 down 1 (300,100)", "@1.02 cancel 0", "@1.02 move 1 (310,_)",
                                 "@1.03 move 1 (320,_)"])
    }

    @Test("Touches that began before the grab are the compositor's: never mirrored")
    func beforeTheGrab() throws {
        let rig = try Self.rig(views: "", exclusiveSince: 1.5)
        rig.down(0, 100, 100); rig.frame(1.0)
        rig.down(1, 200, 100); rig.frame(2.0)
        rig.move(0, 110, 100); rig.move(1, 210, 100); rig.frame(2.1)
        rig.up(0); rig.up(1); rig.frame(2.2)
        #expect(rig.mirror() == ["@2.0 down 0 (200,100)", "@2.1 move 0 (210,_)", "@2.2 up 0"])
    }

    @Test("A new scene mid-touch (SIGHUP): the touch on the mirror keeps moving and lifts; a claimed one stays claimed; new touches follow the new scene")
    func reload() throws {
        let rig = try Self.rig(views: #"{"name": "a", "frame": [0, 0, 400, 480]}, {"name": "b", "frame": [400, 0, 400, 480], "recognizers": [{"name": "grab", "type": "pan"}]}"#)
        rig.down(0, 100, 100); rig.down(1, 500, 100); rig.frame(1.0)
        rig.move(1, 500, 130); rig.frame(1.01)          // the pan on b claims finger 1
        #expect(rig.mirror() == ["@1.0 down 0 (100,100)", "@1.0 down 1 (500,100)", "@1.01 cancel 1"])
        let next = try Scene.parse(#"{"window": {"width": 800, "height": 480}, "views": [{"name": "all", "frame": [0, 0, 800, 480], "multipleTouchEnabled": true, "recognizers": [{"name": "swipe", "type": "pan"}]}]}"#,
                                   file: "new scene", passthrough: true)
        rig.pipeline.replace(scene: next, at: 1.02)
        rig.move(0, 100, 160); rig.move(1, 500, 160); rig.frame(1.03)
        rig.down(2, 700, 300); rig.frame(1.04)
        rig.move(2, 700, 330); rig.frame(1.05)          // the new scene's pan claims the new touch
        rig.up(0); rig.up(1); rig.up(2); rig.frame(1.06)
        #expect(rig.mirror() == ["@1.03 move 0 (_,160)", "@1.04 down 1 (700,300)", "@1.05 cancel 1", "@1.06 up 0"])
        #expect(rig.log == ["grab began", "grab cancelled", "swipe began", "swipe ended"])
    }

    @Test("replay --mirror through a transparent scene gives back every fixture's touch lines exactly, and the same bytes twice")
    func transparentReplays() throws {
        let fixtures = PassthroughTests.fixtures
        let log = Logger(program: "test", level: .error)
        let dir = "/tmp/touchbridge-mirror-\(getpid())"
        mkdir(dir, 0o755)
        defer { rmdir(dir) }
        let transparent = #"{"window": {"width": 800, "height": 480}, "views": []}"#
        for name in try fixtureNames() {
            let recording = try Recording.load(path: fixtures + "/" + name)
            guard recording.device.kind != .tablet else { continue }        // pens are never mirrored
            let out = dir + "/" + name + ".evemu", again = out + ".again"
            defer { unlink(out); unlink(again) }
            var options = OfflineReplay.Options(topics: .touches, mirrorPath: out)
            let source = try OfflineReplay.lines(of: recording, scene: try Scene.parse(transparent, file: "t", passthrough: true),
                                                 options: options, log: log)
            options.mirrorPath = again
            _ = try OfflineReplay.lines(of: recording, scene: try Scene.parse(transparent, file: "t", passthrough: true),
                                        options: options, log: log)
            let mirrored = try OfflineReplay.lines(of: try Recording.load(path: out), scene: try Scene.parse(transparent, file: "t"),
                                                   options: OfflineReplay.Options(topics: .touches), log: log)
            #expect(!source.isEmpty && mirrored == source, "\(name)")
            #expect(try Files.readText(out) == (try Files.readText(again)), "\(name): not deterministic")
        }
    }

    func fixtureNames() throws -> [String] {
        guard let dir = opendir(PassthroughTests.fixtures) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".evemu") || name.hasSuffix(".events") || name.hasSuffix(".yml") { names.append(name) }
        }
        return names.sorted()
    }
}
