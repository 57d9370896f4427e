import TouchCore
import TouchInput

/// A problem in a scene file: the file, the line, the JSON path and what is wrong.
public struct SceneError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int?
    public var path: String
    public var message: String

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return path.isEmpty ? "\(place): \(message)" : "\(place): \(path): \(message)"
    }
}

/// Several problems of one scene file, found in one pass as a compiler finds them: each a line of its
/// own (file, line, path, what is wrong), in the order of the file; at most `limit`, after which the
/// reading stops (where going on would be meaningless, as after a JSON syntax error, it stops at one).
public struct SceneErrors: Error, CustomStringConvertible, Equatable {
    public static let limit = 20
    public var errors: [SceneError]
    /// The limit was reached: there may be more.
    public var stoppedAtLimit: Bool

    public init(errors: [SceneError], stoppedAtLimit: Bool) {
        self.errors = errors
        self.stoppedAtLimit = stoppedAtLimit
    }

    /// Each error a line; the last line counts them.
    public var lines: [String] {
        errors.map(\.description) + ["\(errors.count)\(stoppedAtLimit ? " or more" : "") errors in \(errors.first?.file ?? "the scene")"
                                        + (stoppedAtLimit ? " (the first \(SceneErrors.limit) shown)" : "")]
    }

    public var description: String { lines.joined(separator: "\n") }
}

/// How one input device is chosen and mapped (a scene's "devices" entry).
public struct DeviceConfig: Equatable, Sendable {
    public var selector = DeviceSelector()
    public var rotation: CoordinateMapping.Rotation = .none
    public var flipX = false
    public var flipY = false
    /// Overrides the device's udev LIBINPUT_CALIBRATION_MATRIX.
    public var calibration: [Double]?
    /// Take the device exclusively (EVIOCGRAB).
    public var grab = false
    /// Also accept pen tablets that are not display pens (ID_INPUT_TABLET without INPUT_PROP_DIRECT:
    /// an Intuos on the desk). Display pens are accepted by default (README "Pens").
    public var tablets = false
    /// While a pen of this device's screen is in range (and for a hold-off after), fingers are palms
    /// (PalmRejection, PR1–PR4). On by default; false on either the finger panel's or the pen's entry
    /// turns it off for the pair.
    public var palmRejection = true
    /// The part of the window the device maps onto (default: all of it), e.g. one of two screens.
    public var region: Rect?
    /// Pass-through (README "Pass-through"): the device is grabbed and the compositor reads a mirror
    /// of it that hears exactly what the scene's views hear.
    public var passthrough = false
    /// Where the touchscreen's output lies on the desktop, as fractions (0–1) of it: an action's
    /// pointer lands there (compositors spread an absolute pointer over the whole desktop). Nil: the
    /// whole desktop, right for one screen.
    public var pointerArea: Rect?
    /// A DRM connector's sysfs `dpms` attribute (`/sys/class/drm/card1-eDP-1/dpms`), read when a touch
    /// sequence begins: "Off" there swallows the sequence as `set display off` does (README "Screen-aware").
    public var dpms: String?

    public init() {}

    /// Applies this configuration (and the udev calibration when none is given here) to a mapping
    /// onto `window`.
    public func configure(_ m: inout CoordinateMapping, window: Rect, udevCalibration: [Double]?) {
        m.target = region ?? window
        m.rotation = rotation
        m.flipX = flipX
        m.flipY = flipY
        if let c = calibration ?? udevCalibration { m.calibration = c }
    }
}

/// Reads scene JSON into a `Scene`; every error names the JSON path, and unknown keys are errors.
struct SceneReader {
    let file: String
    let lines: [String: Int]

    func error(_ path: String, _ message: String) -> SceneError {
        // The nearest enclosing path with a known line.
        var p = path
        var line = lines[p]
        while line == nil, !p.isEmpty {
            if let cut = p.lastIndex(where: { $0 == "." || $0 == "[" }) { p = String(p[..<cut]) } else { p = "" }
            line = lines[p]
        }
        return SceneError(file: file, line: line, path: path, message: message)
    }

    /// The members of an object, after checking that every key is allowed.
    func object(_ json: JSON, _ path: String, allowed: [String]) throws -> [(String, JSON)] {
        guard let members = json.objectValue else { throw error(path, "must be an object, found \(json.kindName)") }
        for (key, _) in members where !allowed.contains(key) {
            let hint = SceneReader.closest(key, in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw error(join(path, key), "unknown key \"\(key)\"\(hint); allowed: \(allowed.joined(separator: ", "))")
        }
        return members
    }

    func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func number(_ json: JSON, _ path: String) throws -> Double {
        guard let n = json.numberValue else { throw error(path, "must be a number, found \(json.kindName)") }
        return n
    }

    func integer(_ json: JSON, _ path: String, min: Int) throws -> Int {
        guard let n = json.numberValue, n == n.rounded(), abs(n) < 1e15 else {
            throw error(path, "must be an integer ≥ \(min), found \(json.text)")
        }
        guard Int(n) >= min else { throw error(path, "must be an integer ≥ \(min), found \(Int(n))") }
        return Int(n)
    }

    func bool(_ json: JSON, _ path: String) throws -> Bool {
        guard let b = json.boolValue else { throw error(path, "must be true or false, found \(json.kindName)") }
        return b
    }

    func string(_ json: JSON, _ path: String) throws -> String {
        guard let s = json.stringValue else { throw error(path, "must be a string, found \(json.kindName)") }
        return s
    }

    func numbers(_ json: JSON, _ path: String, count: Int, what: String) throws -> [Double] {
        guard let a = json.arrayValue, a.count == count else {
            throw error(path, "must be an array of \(count) numbers \(what), found \(json.text.prefix(60))")
        }
        return try a.enumerated().map { try number($0.element, "\(path)[\($0.offset)]") }
    }

    func strings(_ json: JSON, _ path: String) throws -> [String] {
        guard let a = json.arrayValue else { throw error(path, "must be an array of strings, found \(json.kindName)") }
        return try a.enumerated().map { try string($0.element, "\(path)[\($0.offset)]") }
    }

    /// Levenshtein distance between two words, ignoring case.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var prev = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                cur[j] = Swift.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }

    /// The allowed key nearest to a misspelt one, by edit distance.
    static func closest(_ key: String, in allowed: [String]) -> String? {
        if let prefixed = allowed.first(where: { $0.lowercased().hasPrefix(key.lowercased()) && key.count >= 4 }) {
            return prefixed
        }
        let best = allowed.map { ($0, editDistance(key, $0)) }.min { $0.1 < $1.1 }
        if let best, best.1 <= max(2, key.count / 3) { return best.0 }
        // A word begun the same way, for most of its letters ("rotate" for "rotation").
        func shared(_ a: String, _ b: String) -> Int { zip(a.lowercased(), b.lowercased()).prefix { $0 == $1 }.count }
        let begun = allowed.map { ($0, shared(key, $0)) }.max { $0.1 < $1.1 }
        if let begun, begun.1 >= 4, begun.1 * 3 >= key.count * 2 { return begun.0 }
        return nil
    }
}
