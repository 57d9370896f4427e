import Glibc
import Testing
import TouchCore
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// The kiosk that dims itself, as scripts on the pipeline's clock (docs/display.md, uikit-semantics
/// DS1–DS4): a scene with `"display"`, frames and time, and the display, wake and gesture lines in order.
@Suite("Display: dimming, going off, a touch that brings it back, the commands")
struct DisplayPowerTests {
    static func rig(display: String? = #""display": {"dimAfter": 120, "dimTo": 0.1, "offAfter": 600},"#) throws -> (PipelineRig, VirtualBacklight) {
        let rig = try PipelineRig(#"{"window": {"width": 800, "height": 480}, \#(display ?? "") "views": [{"name": "v", "frame": [0, 0, 800, 480], "recognizers": [{"name": "tap", "type": "tap"}]}]}"#,
                                  describe: Self.describe)
        let backlight = VirtualBacklight()
        rig.pipeline.backlights = backlight
        rig.pipeline.startDisplayClock(at: 0)
        return (rig, backlight)
    }

    /// "display STATE BRIGHTNESS CAUSE @T", "wake @T", "tap recognized".
    static func describe(_ j: JSON) -> String? {
        let t = j["time"]?.numberValue.map { "@\($0)" } ?? ""
        switch j["event"]?.stringValue {
        case "display": return "display \(j["state"]!.stringValue!) \(j["brightness"]?.numberValue.map { "\($0)" } ?? "-") \(j["cause"]!.stringValue!) \(t)"
        case "wake": return "wake \(t)"
        case "gesture": return "\(j["recognizer"]!.stringValue!) \(j["state"]!.stringValue!)"
        default: return nil
        }
    }

    @Test("DS1, DS2: dimAfter seconds after the last lift it dims to dimTo, offAfter seconds after it goes off")
    func dimsThenOff() throws {
        let (rig, backlight) = try Self.rig()
        #expect(rig.pipeline.nextDeadline == 120)
        rig.pipeline.advance(to: 119.9)
        #expect(rig.take() == [])
        rig.pipeline.advance(to: 130)
        #expect(rig.take() == ["display dimmed 0.1 idle @120.0"])
        #expect(backlight.value == 0.1)
        #expect(rig.pipeline.nextDeadline == 600)
        rig.pipeline.advance(to: 600)
        #expect(rig.take() == ["display off 0.0 idle @600.0"])
        #expect(backlight.value == 0 && rig.pipeline.nextDeadline == nil)
    }

    @Test("DS3: a touch on a dark display brings back the brightness it had, and is swallowed; the timers start again at its lift")
    func touchWakesFromOff() throws {
        let (rig, backlight) = try Self.rig()
        _ = backlight.set(nil, 0.6, off: false)
        rig.pipeline.finish()
        #expect(rig.take() == ["display dimmed 0.1 idle @120.0", "display off 0.0 idle @600.0"])
        rig.tap(400, 240, at: 700)
        #expect(rig.take() == ["wake @700.0", "display on 0.6 touch @700.0"])      // no tap recognized
        #expect(backlight.value == 0.6)
        #expect(rig.pipeline.nextDeadline == 700.05 + 120)
        // The next tap, after the hold-off, is a tap.
        rig.tap(400, 240, at: 702)
        #expect(rig.take() == ["tap recognized"])
    }

    @Test("DS3: a touch on a dimmed display only brings it back; the next one, at once, is a tap (no hold-off: the picture never went)")
    func touchWakesFromDimmed() throws {
        let (rig, backlight) = try Self.rig()
        rig.pipeline.advance(to: 121)
        _ = rig.take()
        rig.tap(400, 240, at: 130)
        #expect(rig.take() == ["wake @130.0", "display on 1.0 touch @130.0"])
        #expect(backlight.value == 1)
        rig.tap(400, 240, at: 130.2)
        #expect(rig.take() == ["tap recognized"])
    }

    @Test("DS1: nothing dims while a finger is down; the time counts from its lift")
    func heldFingerKeepsItOn() throws {
        let (rig, _) = try Self.rig()
        rig.touch(1, 400, 240, at: 100)
        rig.pipeline.advance(to: 500)
        #expect(rig.take() == [])
        #expect(rig.pipeline.nextDeadline == nil)
        rig.lift(1, at: 500)
        #expect(rig.pipeline.nextDeadline == 620)
    }

    @Test("DS2: dimming never brightens: a backlight below dimTo stays where it is")
    func dimNeverBrightens() throws {
        let (rig, backlight) = try Self.rig()
        _ = backlight.set(nil, 0.05, off: false)
        rig.pipeline.advance(to: 121)
        #expect(rig.take() == ["display dimmed 0.05 idle @120.0"])
    }

    @Test("DS4: set display off and on, set brightness; without a backlight, set brightness is refused")
    func commands() throws {
        let (rig, backlight) = try Self.rig()
        _ = backlight.set(nil, 0.7, off: false)
        rig.pipeline.setDisplay(on: false, at: 10)
        #expect(rig.take() == ["display off 0.0 command @10.0"])
        rig.pipeline.setDisplay(on: true, at: 20)
        #expect(rig.take() == ["display on 0.7 command @20.0"])
        #expect(rig.pipeline.nextDeadline == 140)                                   // the idle manager says the user is back
        try rig.pipeline.setBrightness(0.25, at: 30)
        #expect(rig.take() == ["display on 0.25 command @30.0"])
        #expect(backlight.value == 0.25)
        rig.pipeline.backlights = nil
        #expect(throws: ClientCommand.Refusal.self) { try rig.pipeline.setBrightness(0.5, at: 40) }
    }

    @Test("DS4: without \"display\" the idle manager owns the power: the commands are told, a touch only wakes (the wake line)")
    func withoutDisplayConfig() throws {
        let (rig, backlight) = try Self.rig(display: nil)
        #expect(rig.pipeline.nextDeadline == nil)
        rig.pipeline.setDisplay(on: false, at: 10)
        #expect(rig.take() == ["display off - command @10.0"])
        rig.tap(400, 240, at: 20)
        #expect(rig.take() == ["wake @20.0"])
        rig.pipeline.setDisplay(on: true, at: 30)
        #expect(rig.take() == ["display on - command @30.0"])
        #expect(backlight.value == 1)                                               // never touched
    }

    @Test("The scene's \"display\" is checked whole and written back in the scene line")
    func schema() throws {
        func error(_ display: String) -> String {
            do { _ = try Scene.parse(#"{"window": {"width": 10, "height": 10}, "display": \#(display), "views": []}"#, file: "s", systemKeyboard: KeyboardNames()); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"dimAfter": 120, "offAfter": 60}"#).contains("must come after \"dimAfter\""))
        #expect(error(#"{"dimTo": 0.5}"#).contains("needs \"dimAfter\" or \"offAfter\""))
        #expect(error(#"{"dimAfter": 10, "dimTo": 0}"#).contains("above 0 and at most 1"))
        #expect(error(#"{"dimAfter": 10, "backlight": "../x"}"#).contains("directory name of /sys/class/backlight"))
        #expect(error(#"{"dimAfter": 10, "dimFor": 3}"#).contains("dimFor"))
        let s = try Scene.parse(#"{"window": {"width": 10, "height": 10}, "display": {"offAfter": 300, "backlight": "intel_backlight"}, "views": []}"#, file: "s", systemKeyboard: KeyboardNames())
        let line = String(decoding: SceneLine.encode(s, clients: [], passthroughDevices: []), as: UTF8.self)
        #expect(line.contains(#""display":{"dimTo":0.1,"offAfter":300,"backlight":"intel_backlight"}"#))
    }

    // MARK: The kernel's backlight class, on a tree the test makes

    /// A sysfs tree with backlights `[(name, type, max, brightness)]`.
    static func sysfs(_ lights: [(String, String, Int, Int)]) throws -> String {
        var template = Array("/tmp/tb-sysfs-XXXXXX".utf8CString)
        let root = String(cString: mkdtemp(&template)!)
        mkdir(root + "/class", 0o755)
        mkdir(root + "/class/backlight", 0o755)
        for (name, type, max, now) in lights {
            let d = root + "/class/backlight/" + name
            mkdir(d, 0o755)
            try Files.writeText(d + "/type", type + "\n")
            try Files.writeText(d + "/max_brightness", "\(max)\n")
            try Files.writeText(d + "/brightness", "\(now)\n")
        }
        return root
    }

    @Test("A backlight is found as systemd-backlight ranks them, set with a floor of 1 %, and its errors name the remedy")
    func sysfsBacklight() throws {
        let root = try Self.sysfs([("intel_backlight", "raw", 96000, 48000), ("acpi_video0", "firmware", 15, 7)])
        defer { _ = try? Files.list(root) }
        let b = try Backlight.find(nil, sysfs: root)
        #expect(b.name == "acpi_video0" && b.maximum == 15 && b.floor == 1)
        let intel = try Backlight.find("intel_backlight", sysfs: root)
        #expect(intel.floor == 960 && intel.raw(0.001) == 960 && intel.raw(0.5) == 48000 && intel.raw(0.3, off: true) == 0)
        try intel.setBrightness(intel.raw(0.25))
        #expect(try Files.readText(root + "/class/backlight/intel_backlight/brightness") == "24000\n")
        #expect(try intel.fraction() == 0.25)
        do { _ = try Backlight.find("intel_backlite", sysfs: root); Issue.record("found a backlight that is not there") } catch {
            #expect(error.message.contains("did you mean \"intel_backlight\"") && error.message.contains("present: acpi_video0, intel_backlight"))
        }
        let empty = try Self.sysfs([])
        do { _ = try Backlight.find(nil, sysfs: empty); Issue.record("found a backlight in an empty tree") } catch {
            #expect(error.message.contains("no backlight in"))
        }
        // The daemon's control logs once and goes on; a read-only brightness says what to install.
        let control = SysfsBacklights(sysfs: root, log: Logger(program: "test", level: .error))
        #expect(control.set("intel_backlight", 0.5, off: false) == 0.5)
        if getuid() != 0 {
            chmod(root + "/class/backlight/intel_backlight/brightness", 0o444)
            do { try intel.setBrightness(10); Issue.record("wrote a read-only brightness") } catch {
                #expect(error.message.contains("udev/70-touchbridge.rules"))
            }
        }
    }
}
