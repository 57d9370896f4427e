/// A small command-line parser: `--flag`, `--option VALUE`, `--option=VALUE`, and positional words.
/// Errors say what is wrong and point at --help.
public struct Arguments {
    public private(set) var flags: Set<String> = []
    public private(set) var options: [String: String] = [:]
    /// Every value of each option, in order (an option given twice keeps both here; `options` the last).
    public private(set) var allValues: [String: [String]] = [:]
    public private(set) var positional: [String] = []

    public struct Spec {
        public var flags: Set<String>
        public var options: Set<String>
        public init(flags: Set<String>, options: Set<String>) {
            self.flags = flags
            self.options = options
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(_ args: [String], spec: Spec, program: String) throws {
        var i = 0
        var onlyPositional = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositional || !a.hasPrefix("--") || a == "-" {
                if a.hasPrefix("-") && a.count > 1 && !onlyPositional && a != "-" {
                    throw Failure(description: "\(program): unknown option \(a) (options are long: --name; see --help)")
                }
                positional.append(a)
                continue
            }
            if a == "--" { onlyPositional = true; continue }
            var name = String(a.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if spec.flags.contains(name) {
                guard value == nil else { throw Failure(description: "\(program): --\(name) takes no value") }
                flags.insert(name)
            } else if spec.options.contains(name) {
                if value == nil {
                    guard i < args.count else { throw Failure(description: "\(program): --\(name) needs a value (see --help)") }
                    value = args[i]
                    i += 1
                }
                options[name] = value
                allValues[name, default: []].append(value!)
            } else {
                let known = (spec.flags.union(spec.options)).sorted().map { "--\($0)" }.joined(separator: " ")
                throw Failure(description: "\(program): unknown option --\(name) (known: \(known); see --help)")
            }
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public subscript(option: String) -> String? { options[option] }

    /// Every value given for `option`, in order.
    public func values(_ option: String) -> [String] { allValues[option] ?? [] }

    public func number(_ option: String, program: String) throws -> Double? {
        guard let text = options[option] else { return nil }
        guard let v = Double(text), v.isFinite, v >= 0 else {
            throw Failure(description: "\(program): --\(option) needs a number of seconds ≥ 0, not \"\(text)\"")
        }
        return v
    }
}

public enum Version {
    public static let string = "0.1.0"
    public static let protocolVersion = 2
}
