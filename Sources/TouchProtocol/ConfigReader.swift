import TouchSystem

/// A problem in a configuration file (a scene, the MQTT bridge's, bind's): the file, the line, the JSON path and what is wrong.
public struct ConfigError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int?
    public var path: String
    public var message: String

    public init(file: String, line: Int?, path: String, message: String) {
        self.file = file
        self.line = line
        self.path = path
        self.message = message
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return path.isEmpty ? "\(place): \(message)" : "\(place): \(path): \(message)"
    }
}

/// Several problems of one configuration file, found in one pass as a compiler finds them: each a line of its
/// own (file, line, path, what is wrong), in the order of the file; at most `limit`, after which the
/// reading stops (where going on would be meaningless, as after a JSON syntax error, it stops at one).
public struct ConfigErrors: MultilineError, CustomStringConvertible, Equatable {
    public static let limit = 20
    public var errors: [ConfigError]
    /// The limit was reached: there may be more.
    public var stoppedAtLimit: Bool

    public init(errors: [ConfigError], stoppedAtLimit: Bool) {
        self.errors = errors
        self.stoppedAtLimit = stoppedAtLimit
    }

    /// Each error a line; the last line counts them.
    public var lines: [String] {
        errors.map(\.description) + ["\(errors.count)\(stoppedAtLimit ? " or more" : "") errors in \(errors.first?.file ?? "the file")"
                                        + (stoppedAtLimit ? " (the first \(ConfigErrors.limit) shown)" : "")]
    }

    public var description: String { lines.joined(separator: "\n") }
}

/// Reads a JSON configuration (a scene, the MQTT bridge's file, bind's bindings) with its line table:
/// every error names the file, the line and the JSON path, and unknown keys are errors.
public struct ConfigReader {
    public let file: String
    public let lines: [String: Int]

    /// `lines`: the JSON paths' line numbers (JSONParser's line table).
    public init(file: String, lines: [String: Int]) {
        self.file = file
        self.lines = lines
    }

    public func error(_ path: String, _ message: String) -> ConfigError {
        // The nearest enclosing path with a known line.
        var p = path
        var line = lines[p]
        while line == nil, !p.isEmpty {
            if let cut = p.lastIndex(where: { $0 == "." || $0 == "[" }) { p = String(p[..<cut]) } else { p = "" }
            line = lines[p]
        }
        return ConfigError(file: file, line: line, path: path, message: message)
    }

    /// The members of an object, after checking that every key is allowed.
    public func object(_ json: JSON, _ path: String, allowed: [String]) throws -> [(String, JSON)] {
        guard let members = json.objectValue else { throw error(path, "must be an object, found \(json.kindName)") }
        for (key, _) in members where !allowed.contains(key) {
            let hint = DidYouMean.hint(key, in: allowed)
            throw error(join(path, key), "unknown key \"\(key)\"\(hint); allowed: \(allowed.joined(separator: ", "))")
        }
        return members
    }

    public func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public func number(_ json: JSON, _ path: String) throws -> Double {
        guard let n = json.numberValue else { throw error(path, "must be a number, found \(json.kindName)") }
        return n
    }

    public func integer(_ json: JSON, _ path: String, min: Int) throws -> Int {
        guard let n = json.numberValue, n == n.rounded(), abs(n) < 1e15 else {
            throw error(path, "must be an integer ≥ \(min), found \(json.text)")
        }
        guard Int(n) >= min else { throw error(path, "must be an integer ≥ \(min), found \(Int(n))") }
        return Int(n)
    }

    public func bool(_ json: JSON, _ path: String) throws -> Bool {
        guard let b = json.boolValue else { throw error(path, "must be true or false, found \(json.kindName)") }
        return b
    }

    public func string(_ json: JSON, _ path: String) throws -> String {
        guard let s = json.stringValue else { throw error(path, "must be a string, found \(json.kindName)") }
        return s
    }

    public func numbers(_ json: JSON, _ path: String, count: Int, what: String) throws -> [Double] {
        guard let a = json.arrayValue, a.count == count else {
            throw error(path, "must be an array of \(count) numbers \(what), found \(json.text.prefix(60))")
        }
        return try a.enumerated().map { try number($0.element, "\(path)[\($0.offset)]") }
    }

    public func strings(_ json: JSON, _ path: String) throws -> [String] {
        guard let a = json.arrayValue else { throw error(path, "must be an array of strings, found \(json.kindName)") }
        return try a.enumerated().map { try string($0.element, "\(path)[\($0.offset)]") }
    }
}
