import Glibc
import Testing
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem
import TouchInput

/// `touchbridgectl mqtt`'s configuration (docs/mqtt.md): defaults, brokers, errors
/// with file, line and path, and a password that stays out of every message.
@Suite("MQTT bridge configuration")
struct MQTTConfigTests {
    static func parse(_ text: String) throws -> MQTTConfig { try MQTTConfig.parse(text, file: "m.json", hostname: "kiosk-3") }

    static func error(_ text: String) -> String {
        do { _ = try parse(text); return "" } catch { return "\(error)" }
    }

    @Test("Defaults: the host's prefix, QoS 1, gestures and devices, no discovery, no control, MQTT 5")
    func defaults() throws {
        let c = try Self.parse(#"{"broker": "mqtt://broker.lan"}"#)
        #expect(c.host == "broker.lan" && c.port == 1883 && c.scheme == .mqtt)
        #expect(c.prefix == "touchbridge/kiosk-3" && c.qos == 1 && c.topics == [.gestures, .devices, .activity])
        #expect(c.discoveryPrefix == nil && !c.control && c.protocolVersion == 5 && c.queueLimit == 10_000)
    }

    @Test("Brokers: mqtts defaults to 8883, ports and IPv6 literals are read")
    func brokers() throws {
        #expect(try Self.parse(#"{"broker": "mqtts://b.example"}"#).port == 8883)
        let six = try Self.parse(#"{"broker": "mqtt://[::1]:1884"}"#)
        #expect(six.host == "::1" && six.port == 1884)
        #expect(Self.error(#"{"broker": "http://b"}"#).contains("must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"))
        #expect(Self.error(#"{"broker": "mqtt://b:99999"}"#).contains("the port must be 1–65535"))
        #expect(Self.error(#"{"broker": "mqtt://b", "cafile": "/ca.pem"}"#).contains("need an mqtts:// broker"))
    }

    @Test("Errors name the file, the line and the path, with a did-you-mean")
    func errors() {
        #expect(Self.error("{\n\"qso\": 1}") == #"m.json:2: qso: unknown key "qso" (did you mean "qos"?); allowed: broker, cafile, certfile, keyfile, username, passwordFile, prefix, qos, topics, homeassistant, control, allowScenes, queue, protocol"#)
        #expect(Self.error(#"{"topics": ["gestures", "gesturs"]}"#).contains(#"topics[1]: unknown topic "gesturs" (did you mean "gestures"?)"#))
        #expect(Self.error(#"{"qos": 2}"#).contains("qos: must be 0 or 1"))
        #expect(Self.error(#"{"prefix": "a/#"}"#).contains("prefix: must be a topic without wildcards"))
        #expect(Self.error(#"{"homeassistant": {"prefx": "ha"}}"#).contains(#"(did you mean "prefix"?)"#))
        #expect(try! Self.parse(#"{"homeassistant": {"prefix": "ha"}}"#).discoveryPrefix == "ha")
    }

    @Test("A password file readable by group or others is refused, naming the file and the fix; the password never shows")
    func passwordFile() throws {
        let path = "/tmp/tb-mqtt-pw-\(getpid())"
        defer { unlink(path) }
        try Files.writeText(path, "s3cret\n")
        chmod(path, 0o640)
        #expect(Self.error(#"{"username": "k", "passwordFile": "\#(path)"}"#)
                .contains("passwordFile: \(path) is readable by group or others (mode 0640): a password must be yours alone: chmod 600 \(path)"))
        chmod(path, 0o600)
        let c = try Self.parse(#"{"username": "k", "passwordFile": "\#(path)"}"#)
        #expect(c.password == "s3cret")
        #expect(!c.summary.contains("s3cret") && !"\(c)".isEmpty)
        #expect(Self.error(#"{"passwordFile": "\#(path)"}"#).contains(#"passwordFile: needs a "username""#))
    }

    @Test("Command messages: control commands pass, others are refused with why")
    func commands() {
        if case .success(let c?) = MQTTBridge.command(Array(#"{"set":{"recognizers":["tap"],"enabled":false}}"#.utf8)) {
            #expect(c == .setRecognizers(patterns: ["tap"], enabled: false))
        } else { Issue.record("a set was refused") }
        if case .failure(let r) = MQTTBridge.command(Array(#"{"subscribe":["gestures"]}"#.utf8)) {
            #expect(r.message.hasPrefix("subscribe: not on the command topic"))
        } else { Issue.record("a subscribe was passed on") }
        if case .failure = MQTTBridge.command(Array("not json".utf8)) {} else { Issue.record("not JSON passed") }
    }

    /// What the broker may hand the daemon: set by default, scenes only when allowed, never an action,
    /// nothing retained or over 16 KiB.
    @Test("The command topic is least privilege: set only, scenes without actions when allowed")
    func commandTopicLeastPrivilege() {
        func refusal(_ payload: String, retained: Bool = false, allowScenes: Bool = false) -> String? {
            if case .failure(let r) = MQTTBridge.command(Array(payload.utf8), retained: retained, allowScenes: allowScenes, topic: "t/command") { return r.message }
            return nil
        }
        let plain = #"{"scene":{"name":"k","views":[{"name":"pad","frame":[0,0,10,10],"recognizers":[{"name":"tap","type":"tap"}]}]}}"#
        let keys = #"{"scene":{"name":"k","views":[{"name":"outer","frame":[0,0,10,10],"subviews":[{"name":"pad","frame":[0,0,5,5],"recognizers":[{"name":"t","type":"tap","action":{"keys":["KEY_POWER"]}}]}]}]}}"#
        #expect(refusal(plain)?.contains(#"unless the configuration says "allowScenes": true"#) == true)
        #expect(refusal(plain, allowScenes: true) == nil)
        #expect(refusal(keys, allowScenes: true) == #"scene "k": view "pad", recognizer "t" has an "action": actions come only from scene files and local control peers, never from the broker; the scene is refused whole"#)
        let set = #"{"set":{"display":"off"}}"#
        #expect(refusal(set) == nil)
        #expect(refusal(set, retained: true) == "retained commands are not carried out: clear it with `mosquitto_pub -r -n -t t/command`")
        let big = #"{"set":{"recognizers":["\#(String(repeating: "a", count: 17000))"],"enabled":true}}"#
        #expect(refusal(big)?.hasPrefix("a command of 17") == true)
        if case .success(nil) = MQTTBridge.command(Array("".utf8), retained: true) {} else { Issue.record("a cleared retained message was not ignored") }
    }

    @Test("Home Assistant's switch payloads name a recognizer whatever its name holds")
    func switchPayloads() throws {
        let name = #"t","*"#
        let on = try JSONParser.parse(MQTTBridge.setCommand(recognizer: name, enabled: true))
        #expect(on["set"]?["recognizers"]?.arrayValue?.compactMap(\.stringValue) == [name])
        #expect(on["set"]?["enabled"] == .bool(true))
    }

    @Test("A password over mqtt:// is warned about; over mqtts:// it is not")
    func cleartextPassword() {
        var c = MQTTConfig(hostname: "h")
        c.username = "u"
        c.password = "s3cret-pw"
        c.host = "broker.lan"
        #expect(c.cleartextPasswordWarning?.contains("crosses the network in clear over mqtt://") == true)
        #expect(!(c.cleartextPasswordWarning ?? "").contains("s3cret-pw"))             // never the secret
        c.scheme = .mqtts
        #expect(c.cleartextPasswordWarning == nil)
    }
}
