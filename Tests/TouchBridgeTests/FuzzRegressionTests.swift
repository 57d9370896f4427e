import Glibc
import Testing
import TouchClients
import TouchDaemon
import TouchProtocol
import TouchSystem
import TouchBridgeFuzzing
import TouchInput

/// Every input that ever crashed a fuzz target (`make fuzz` keeps them in fuzz/crashes/; they are moved
/// to Tests/FuzzRegressions/TARGET/ with the fix) runs again through the same target's body, with
/// its contracts checked: a regression crashes this test.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let root = "/" + #filePath.split(separator: "/").dropLast(2).joined(separator: "/") + "/FuzzRegressions"

    @Test("Every kept input runs through its target without breaking a contract", arguments: Fuzz.targets)
    func kept(target: String) throws {
        for path in Self.files(in: Self.root + "/" + target) {
            let bytes = try Files.readBytes(path)
            bytes.withUnsafeBytes { Fuzz.run(target, $0) }
        }
    }

    @Test("The targets take the empty input and a few plain ones")
    func plain() {
        for target in Fuzz.targets {
            for input in ["", "{}", "E: 0.0 0003 0035 1\nE: 0.0 0000 0000 0\n", "\u{1}\u{1}\u{35}\u{10}\u{0}\u{5}\u{0}"] {
                Array(input.utf8).withUnsafeBytes { Fuzz.run(target, $0) }
            }
        }
    }

    @Test("A description that claims millions of slots is believed for 256 (the recording target ran out of memory)")
    func absurdSlotCount() throws {
        // The target reads its input also as E: lines of a protocol B panel, whose A: lines the input's
        // header changes: ABS_MT_SLOT's maximum became 27,760,000.
        let text = try Files.readText(Self.root + "/recording/a-description-of-27-million-slots")
        let recording = try Recording.parse(text, file: "fuzz", description: .panel(name: "protocol B"))
        #expect(recording.device.absInfo[AbsCode.mtSlot]?.maximum == 27_760_000)
        #expect(recording.device.touchProtocol == .slots(count: DeviceDescription.maximumSlots))
    }

    @Test("A rotation of 10^67 is refused, not converted to an Int (the mqtt and client-line targets trapped)")
    func hugeRotation() {
        do throws(ClientCommand.Refusal) {
            _ = try ClientCommand.parse(Array(#"{"set":{"device":0,"rotation":9222222222222222222222222222222222222222}}"#.utf8))
            Issue.record("taken")
        } catch {
            #expect(error.message.hasPrefix("set.rotation: must be 0, 90, 180 or 270"))
        }
        #expect(JSON.number(1e300).intValue == nil && JSON.number(-3).intValue == -3 && JSON.number(2.5).intValue == nil)
    }

    static func files(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(dir + "/" + name) }
        }
        return names.sorted()
    }
}
