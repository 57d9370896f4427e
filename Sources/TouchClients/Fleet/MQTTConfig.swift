import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridgectl mqtt`'s configuration, `/etc/touchbridge/mqtt.json` (README "Fleets and Home
/// Assistant"). Errors name the file, the line and the JSON path, as a scene's do; unknown keys are errors
/// with a did-you-mean.
public struct MQTTConfig: Equatable, Sendable {
    /// The file it was read from (for messages that name the remedy); nil when made in code.
    public var file: String?
    public enum Scheme: String, Sendable { case mqtt, mqtts }

    public var scheme = Scheme.mqtt
    public var host = "localhost"
    public var port = 1883
    /// A CA bundle for `mqtts://` (default: the system's certificates).
    public var cafile: String?
    public var certfile: String?
    public var keyfile: String?
    public var username: String?
    /// The password, read from `passwordFile` (which must not be readable by group or others).
    public var password: String?
    public var passwordFile: String?
    /// Every topic starts with this: `touchbridge/<hostname>` by default.
    public var prefix: String
    public var qos = 1
    /// The socket's topics forwarded: gestures, devices and activity by default; touches, rate-limited.
    public var topics: Topics = [.gestures, .devices, .activity]
    /// Home Assistant discovery's prefix; nil: no discovery.
    public var discoveryPrefix: String?
    /// Commands on `<prefix>/command` are passed to the daemon: `set` only (what Home Assistant's
    /// entities send), and with `allowScenes` client scenes too, never with an `action`.
    public var control = false
    /// `scene` commands from the broker are passed on (without actions: those come only from scene files
    /// and local control peers).
    public var allowScenes = false
    /// QoS 1 messages kept while the broker is away; past it the oldest go, counted in the log.
    public var queueLimit = 10_000
    /// MQTT 5 (default) or 3.1.1.
    public var protocolVersion = 5

    public static let defaultPath = "/etc/touchbridge/mqtt.json"
    /// The file's keys, each read once from here (ConfigSchema); the checks between keys follow in `parse`.
    package static let schema = ConfigSchema<MQTTConfig>(keys: [
        ConfigKey("broker", read: { c, v, k, r in try c.readBroker(try r.string(v, k), r) }, write: nil),
        .optionalString("cafile", \.cafile),
        .optionalString("certfile", \.certfile),
        .optionalString("keyfile", \.keyfile),
        .optionalString("username", \.username),
        .optionalString("passwordFile", \.passwordFile),
        ConfigKey("prefix", read: { c, v, k, r in
            let p = try r.string(v, k)
            guard !p.isEmpty, !p.contains("+"), !p.contains("#"), !p.hasSuffix("/"), !p.hasPrefix("/") else {
                throw r.error(k, "must be a topic without wildcards (+, #) or a leading or trailing /, such as \"touchbridge/kiosk-3\"")
            }
            c.prefix = p
        }, write: nil),
        ConfigKey("qos", read: { c, v, k, r in
            c.qos = try r.integer(v, k, min: 0)
            guard c.qos <= 1 else { throw r.error(k, "must be 0 or 1, found \(c.qos)") }
        }, write: nil),
        ConfigKey("topics", read: { c, v, k, r in
            var set: Topics = []
            for (i, name) in try r.strings(v, k).enumerated() {
                guard let topic = Topics(name: name), forwardable.contains(topic) else {
                    let hint = DidYouMean.hint(name, in: topicNames)
                    throw r.error("\(k)[\(i)]", "unknown topic \"\(name)\"\(hint); one of \(topicNames.joined(separator: ", "))")
                }
                set.insert(topic)
            }
            c.topics = set
        }, write: nil),
        ConfigKey("homeassistant", read: { c, v, k, r in
            if let b = v.boolValue {
                c.discoveryPrefix = b ? defaultDiscoveryPrefix : nil
            } else {
                var prefix = defaultDiscoveryPrefix
                try discovery.read(v, k, r, into: &prefix)
                c.discoveryPrefix = prefix
            }
        }, write: nil),
        .bool("control", \.control),
        .bool("allowScenes", \.allowScenes),
        ConfigKey("queue", read: { c, v, k, r in c.queueLimit = try r.integer(v, k, min: 1) }, write: nil),
        ConfigKey("protocol", read: { c, v, k, r in
            let p = try r.string(v, k)
            guard let n = ["3.1.1": 4, "5": 5][p] else { throw r.error(k, "must be \"3.1.1\" or \"5\", found \"\(p)\"") }
            c.protocolVersion = n
        }, write: nil),
    ])
    package static var keys: [String] { schema.names }
    /// `"homeassistant": {"prefix": "…"}`: discovery under another prefix than Home Assistant's default.
    static let discovery = ConfigSchema<String>(keys: [
        ConfigKey("prefix", read: { prefix, v, k, r in prefix = try r.string(v, k) }, write: nil),
    ])
    package static let defaultDiscoveryPrefix = "homeassistant"
    /// The daemon's topics (`Topics.names`) a bridge forwards.
    package static let forwardable: Topics = [.gestures, .devices, .activity, .touches, .recognizers]
    package static var topicNames: [String] { forwardable.memberNames }

    public init(hostname: String = MQTTConfig.hostname()) {
        prefix = "touchbridge/\(hostname)"
    }

    /// This machine's name, as a topic level can hold it.
    public static func hostname() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count - 1) == 0 else { return "touchbridge" }
        let name = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Self.topicLevel(name.isEmpty ? "touchbridge" : name)
    }

    /// `s` with the characters a topic level may not hold (`/`, `+`, `#`, NUL) made `_`.
    package static func topicLevel(_ s: String) -> String {
        String(s.map { "/+#\u{0}".contains($0) ? "_" : $0 })
    }

    public static func load(path: String) throws -> MQTTConfig {
        let text: String
        do { text = try Files.readText(path) } catch {
            throw ConfigError(file: path, line: nil, path: "", message: "cannot read the configuration: \(error) "
                + "(pass --config FILE; an example is /usr/share/doc/touchbridge/examples/mqtt.json, examples/mqtt.json in the source)")
        }
        return try parse(text, file: path)
    }

    /// Parses the configuration; a `passwordFile` is read (and its mode checked) here.
    public static func parse(_ text: String, file: String, hostname: String = MQTTConfig.hostname()) throws -> MQTTConfig {
        var parser = JSONParser(text)
        let json: JSON
        do { json = try parser.parse() } catch let e as JSONSyntaxError {
            throw ConfigError(file: file, line: e.line, path: "", message: "column \(e.column): \(e.message)")
        }
        let r = ConfigReader(file: file, lines: parser.lines)
        var c = MQTTConfig(hostname: hostname)
        c.file = file
        try schema.read(json, "", r, into: &c)
        if c.certfile != nil && c.keyfile == nil || c.keyfile != nil && c.certfile == nil {
            throw r.error("", "certfile and keyfile go together (a client certificate and its key)")
        }
        if (c.cafile != nil || c.certfile != nil) && c.scheme != .mqtts {
            throw r.error("broker", "cafile, certfile and keyfile need an mqtts:// broker")
        }
        if c.allowScenes && !c.control {
            throw r.error("allowScenes", "needs \"control\": true (commands from the broker are off without it)")
        }
        if let pf = c.passwordFile {
            guard c.username != nil else { throw r.error("passwordFile", "needs a \"username\"") }
            do { c.password = try readPassword(pf) } catch let e as MQTTConfigError {
                throw r.error("passwordFile", e.description)
            }
        }
        return c
    }

    package mutating func readBroker(_ url: String, _ r: ConfigReader) throws {
        let s: Scheme
        if url.hasPrefix("mqtt://") { s = .mqtt } else if url.hasPrefix("mqtts://") { s = .mqtts } else {
            throw r.error("broker", "must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], found \"\(url)\"")
        }
        scheme = s
        var rest = String(url.dropFirst(s.rawValue.count + 3))
        if rest.hasSuffix("/") { rest.removeLast() }
        var h = rest, p: Int? = nil
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            h = String(rest[..<colon])
            guard let n = Int(rest[rest.index(after: colon)...]), (1...65535).contains(n) else {
                throw r.error("broker", "the port must be 1–65535, in \"\(url)\"")
            }
            p = n
        }
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        guard !h.isEmpty, !h.contains("/") else { throw r.error("broker", "no host in \"\(url)\"") }
        host = h
        port = p ?? (s == .mqtts ? 8883 : 1883)
    }

    /// The password in `path`, refused when the file is readable by group or others (say so, and how).
    package static func readPassword(_ path: String) throws -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { throw MQTTConfigError(description: "\(path): \(Errno.current)") }
        let mode = st.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw MQTTConfigError(description: "\(path) is readable by group or others (mode 0\(String(mode, radix: 8))): "
                + "a password must be yours alone: chmod 600 \(path)")
        }
        let text = try Files.readText(path)
        var pw = text
        while pw.hasSuffix("\n") || pw.hasSuffix("\r") { pw.removeLast() }
        guard !pw.isEmpty else { throw MQTTConfigError(description: "\(path) is empty") }
        return pw
    }

    /// Whether the broker is on this machine (a loopback name or address).
    public var brokerIsLoopback: Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1"
    }

    /// The warning for a password sent over `mqtt://`: it crosses the network in clear. Nil with
    /// `mqtts://` or no password.
    public var cleartextPasswordWarning: String? {
        guard scheme == .mqtt, password != nil else { return nil }
        return "the password for \(username ?? "") crosses the network in clear over mqtt://"
            + (brokerIsLoopback ? " (to \(host): it stays on this machine, but any local user who can capture loopback traffic reads it)" : "")
            + "; use mqtts:// (cafile) to keep it secret"
    }

    /// What the log may say about the configuration: never the password.
    public var summary: String {
        "\(scheme.rawValue)://\(host):\(port) as \(username ?? "anonymous"), prefix \"\(prefix)\", QoS \(qos), "
            + "MQTT \(protocolVersion == 5 ? "5" : "3.1.1"), topics \(topics.memberNames.sorted().joined(separator: ", "))"
            + (discoveryPrefix.map { ", Home Assistant discovery under \"\($0)\"" } ?? "")
            + (control ? (allowScenes ? ", control on (set, and scenes without actions)" : ", control on (set only)") : "")
    }
}

package struct MQTTConfigError: Error, CustomStringConvertible {
    package var description: String
}
