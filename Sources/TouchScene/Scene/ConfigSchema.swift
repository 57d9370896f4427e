import TouchCore
import TouchInput
import TouchProtocol
import TouchSystem

/// What kind of value a key takes, for a program that builds a form from the schema (the scene editor,
/// `SchemaDescription`): the tables say it beside the reader, so a key added there comes with its form.
package enum ValueForm: Sendable, Equatable {
    case bool
    /// A whole number, at least `min`, at most `max`.
    case integer(min: Int, max: Int? = nil)
    /// A number, at least `min`, at most `max`.
    case number(min: Double? = nil, max: Double? = nil)
    case string
    /// One of these words.
    case choice([String])
    /// A list of these words (a swipe's directions, an edge pan's edges).
    case names([String])
    /// A list of strings (names, app patterns).
    case strings
    /// `count` numbers (a frame: 4).
    case numbers(Int)
    /// Anything else: edited as JSON.
    case json
}

/// One key of a configuration object (a scene's device entry, its keyboard, an action's options, the
/// MQTT bridge's file): how its value is read
/// onto the value the object describes (checked, with an error naming the JSON path) and how it is
/// written back (the scene line). As `RecognizerProperty` is for recognizers: the allowed keys, the
/// reader, the writer and the did-you-mean all come from one table, so a key is written once.
package struct ConfigKey<Value>: Sendable {
    package let key: String
    /// Reads the value at `path` onto the object.
    package let read: @Sendable (inout Value, JSON, String, ConfigReader) throws -> Void
    /// Writes `"key": value`, or nothing where a file would leave the key out; nil for a configuration
    /// only read (nothing writes an MQTT bridge's file back).
    package let write: (@Sendable (Value, inout JSONWriter) -> Void)?
    /// What kind of value it takes (SchemaDescription).
    package var form: ValueForm

    package init(_ key: String, form: ValueForm = .json, read: @escaping @Sendable (inout Value, JSON, String, ConfigReader) throws -> Void,
                 write: (@Sendable (Value, inout JSONWriter) -> Void)?) {
        self.key = key
        self.form = form
        self.read = read
        self.write = write
    }

    package static func bool(_ key: String, _ kp: WritableKeyPath<Value, Bool> & Sendable) -> ConfigKey {
        ConfigKey(key, form: .bool, read: { v, json, p, r in v[keyPath: kp] = try r.bool(json, p) },
                  write: { v, w in w.key(string: key); w.bool(v[keyPath: kp]) })
    }

    /// A string, always written.
    package static func string(_ key: String, _ kp: WritableKeyPath<Value, String> & Sendable,
                               check: (@Sendable (String) -> String?)? = nil) -> ConfigKey {
        ConfigKey(key, form: .string, read: { v, json, p, r in
            let s = try r.string(json, p)
            if let problem = check?(s) { throw r.error(p, problem) }
            v[keyPath: kp] = s
        }, write: { v, w in w.key(string: key); w.string(v[keyPath: kp]) })
    }

    /// A string that may be absent (written only when present); `check` says what is wrong with one.
    package static func optionalString(_ key: String, _ kp: WritableKeyPath<Value, String?> & Sendable,
                                       check: (@Sendable (String) -> String?)? = nil) -> ConfigKey {
        ConfigKey(key, form: .string, read: { v, json, p, r in
            let s = try r.string(json, p)
            if let problem = check?(s) { throw r.error(p, problem) }
            v[keyPath: kp] = s
        }, write: { v, w in
            if let s = v[keyPath: kp] { w.key(string: key); w.string(s) }
        })
    }

    /// A list of app ids or shell patterns of them (docs/focus.md), none empty; written when not empty.
    package static func appPatterns(_ key: String, _ kp: WritableKeyPath<Value, [String]> & Sendable) -> ConfigKey {
        ConfigKey(key, form: .strings, read: { v, json, p, r in
            let patterns = try r.strings(json, p)
            if let i = patterns.firstIndex(where: \.isEmpty) {
                throw r.error("\(p)[\(i)]", "must not be empty: an app id or a shell pattern of one (\"krita\", \"com.github.xournalpp.*\")")
            }
            v[keyPath: kp] = patterns
        }, write: { v, w in
            guard !v[keyPath: kp].isEmpty else { return }
            w.key(string: key)
            w.beginArray()
            for s in v[keyPath: kp] { w.string(s) }
            w.endArray()
        })
    }

    /// `[x, y, width, height]`, written only when present; `check` says what is wrong with one.
    package static func rect(_ key: String, _ kp: WritableKeyPath<Value, Rect?> & Sendable, what: String,
                             check: @escaping @Sendable ([Double]) -> String?) -> ConfigKey {
        ConfigKey(key, form: .numbers(4), read: { v, json, p, r in
            let f = try r.numbers(json, p, count: 4, what: what)
            if let problem = check(f) { throw r.error(p, problem) }
            v[keyPath: kp] = Rect(x: f[0], y: f[1], width: f[2], height: f[3])
        }, write: { v, w in
            if let a = v[keyPath: kp] { w.key(string: key); w.numbers([a.origin.x, a.origin.y, a.width, a.height]) }
        })
    }

}

extension JSONWriter {
    /// `[n, n, …]`: a rectangle, a matrix, a point, as the scene's tables write them.
    package mutating func numbers(_ list: [Double]) {
        beginArray()
        for n in list { number(n) }
        endArray()
    }
}

/// The keys of one kind of configuration object, in the order they are written.
package struct ConfigSchema<Value>: Sendable {
    package let keys: [ConfigKey<Value>]

    package init(keys: [ConfigKey<Value>]) {
        assert(Set(keys.map(\.key)).count == keys.count, "a key twice in one schema")
        self.keys = keys
    }

    package var names: [String] { keys.map(\.key) }

    /// Reads `json` (an object of these keys only) onto `value`.
    package func read(_ json: JSON, _ path: String, _ r: ConfigReader, into value: inout Value) throws {
        for (k, v) in try r.object(json, path, allowed: names) {
            guard let key = keys.first(where: { $0.key == k }) else { continue }
            try key.read(&value, v, r.join(path, k), r)
        }
    }

    /// Writes `value` as an object of these keys.
    package func write(_ value: Value, _ w: inout JSONWriter) {
        w.beginObject()
        for k in keys { k.write?(value, &w) }
        w.endObject()
    }
}

/// A scene's `"devices"` entry (docs/scenes.md): how a device is chosen and mapped.
package enum DeviceSchema {
    package static let passthroughAppsKey = "passthroughApps"
    package static let schema = ConfigSchema<DeviceConfig>(keys: [
        .optionalString("name", \.selector.name),
        ConfigKey("vendorProduct", read: { c, json, p, r in
            guard let vp = DeviceSelector.parseVendorProduct(try r.string(json, p)) else {
                throw r.error(p, "must be \"vvvv:pppp\" in hexadecimal, e.g. \"056a:00e6\"")
            }
            c.selector.vendorProduct = (vendor: vp.0, product: vp.1)
        }, write: { c, w in if let vp = c.selector.vendorProductText { w.key("vendorProduct"); w.string(vp) } }),
        .optionalString("devnode", \.selector.devnode),
        ConfigKey("property", read: { c, json, p, r in
            guard let kv = DeviceSelector.parseProperty(try r.string(json, p)) else {
                throw r.error(p, "must be \"KEY=VALUE\", e.g. \"ID_PATH=platform-3f204000.i2c\"")
            }
            c.selector.property = (key: kv.0, value: kv.1)
        }, write: { c, w in if let kv = c.selector.property { w.key("property"); w.string("\(kv.key)=\(kv.value)") } }),
        ConfigKey("rotation", read: { c, json, p, r in
            let deg = try r.integer(json, p, min: 0)
            guard let rot = CoordinateMapping.Rotation(rawValue: deg) else { throw r.error(p, "must be 0, 90, 180 or 270, found \(deg)") }
            c.rotation = rot
        }, write: { c, w in w.key("rotation"); w.int(c.rotation.rawValue) }),
        .bool("flipX", \.flipX),
        .bool("flipY", \.flipY),
        ConfigKey("calibration", read: { c, json, p, r in
            c.calibration = try r.numbers(json, p, count: 6, what: "(a libinput calibration matrix: a b c d e f)")
        }, write: { c, w in if let m = c.calibration { w.key("calibration"); w.numbers(m) } }),
        .bool("grab", \.grab),
        .bool("tablets", \.tablets),
        .rect("region", \.region, what: "[x, y, width, height] in window points") { f in
            f[2] > 0 && f[3] > 0 ? nil : "width and height must be greater than 0"
        },
        .bool("passthrough", \.passthrough),
        .appPatterns(DeviceSchema.passthroughAppsKey, \.passthroughApps),
        .bool("palmRejection", \.palmRejection),
        .rect("pointerArea", \.pointerArea, what: "[x, y, width, height] as fractions (0–1) of the desktop") { f in
            f.allSatisfy({ (0...1).contains($0) }) && f[2] > 0 && f[3] > 0 && f[0] + f[2] <= 1 + 1e-9 && f[1] + f[3] <= 1 + 1e-9 ? nil
                : "must lie within the desktop: fractions from 0 to 1, width and height above 0, x + width and y + height at most 1"
        },
        .optionalString("dpms", \.dpms) { path in
            path.hasPrefix("/sys/") && path.hasSuffix("/dpms") && !path.contains("/../") ? nil
                : "must be a DRM connector's dpms attribute in sysfs, such as \"/sys/class/drm/card1-eDP-1/dpms\" (ls /sys/class/drm/*/dpms)"
        },
    ])
}

/// A scene's `"display"` (docs/display.md): the panel's backlight dims after `dimAfter` seconds
/// without a finger down, to `dimTo` of its maximum, and goes off after `offAfter`.
public struct DisplayConfig: Equatable, Sendable {
    /// Seconds from the last finger's lift to dimming; nil: it does not dim.
    public var dimAfter: Double?
    /// The dimmed brightness, a fraction of the backlight's maximum.
    public var dimTo = 0.1
    /// Seconds from the last finger's lift to the backlight going off; nil: it stays on.
    public var offAfter: Double?
    /// The backlight's name in /sys/class/backlight; nil: the panel's (Backlight.find).
    public var backlight: String?

    public init() {}
}

package enum DisplaySchema {
    package static let schema = ConfigSchema<DisplayConfig>(keys: [
        seconds("dimAfter", \.dimAfter),
        ConfigKey("dimTo", form: .number(min: 0, max: 1), read: { c, json, p, r in
            c.dimTo = try r.number(json, p)
            guard c.dimTo > 0 && c.dimTo <= 1 else {
                throw r.error(p, "must be above 0 and at most 1 (a fraction of the backlight's maximum; \"offAfter\" turns it off), found \(c.dimTo)")
            }
        }, write: { c, w in w.key(string: "dimTo"); w.number(c.dimTo) }),
        seconds("offAfter", \.offAfter),
        .optionalString("backlight", \.backlight) { name in
            name.isEmpty || name.contains("/") || name == "." || name == ".." ? "must be a directory name of /sys/class/backlight (ls /sys/class/backlight)" : nil
        },
    ])

    private static func seconds(_ key: String, _ kp: WritableKeyPath<DisplayConfig, Double?> & Sendable) -> ConfigKey<DisplayConfig> {
        ConfigKey(key, form: .number(min: 0), read: { c, json, p, r in
            let v = try r.number(json, p)
            guard v > 0, v <= 86_400 * 7 else { throw r.error(p, "must be seconds above 0 (and at most a week), found \(v)") }
            c[keyPath: kp] = v
        }, write: { c, w in if let v = c[keyPath: kp] { w.key(string: key); w.number(v) } })
    }

    /// What is wrong with the whole: nothing to do, or off before dim.
    package static func check(_ c: DisplayConfig) -> String? {
        if c.dimAfter == nil && c.offAfter == nil { return "needs \"dimAfter\" or \"offAfter\" (seconds after the last finger lifts)" }
        if let d = c.dimAfter, let o = c.offAfter, o <= d {
            return "\"offAfter\" (\(o) s) must come after \"dimAfter\" (\(d) s): both count from the last finger's lift"
        }
        return nil
    }
}

/// A scene's `"keyboard"`: the xkb names its keys actions type in (docs/actions.md).
package enum KeyboardSchema {
    package static let schema = ConfigSchema<KeyboardNames>(keys: [
        .string("layout", \.layout) { $0.isEmpty ? "must name a layout (\"us\", \"de\", \"fr\")" : nil },
        .string("variant", \.variant),
        .string("options", \.options),
        .string("model", \.model),
    ])
}
