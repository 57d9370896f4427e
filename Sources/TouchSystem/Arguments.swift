/// One option of a command, declared once: its usage (`--socket PATH`), its help line, and how it is
/// parsed (a flag takes no value, an option takes one).
public struct OptionSpec: Sendable {
    public let name: String
    /// The value's placeholder (`FILE`, `PATH`); nil for a flag.
    public let value: String?
    public let help: String
    /// A one-letter spelling (`-g VALUE` for `--gesture VALUE`), where a peer program's users expect one.
    public var short: Character? = nil

    public static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, value: nil, help: help) }
    public static func option(_ name: String, _ value: String, _ help: String, short: Character? = nil) -> OptionSpec {
        OptionSpec(name: name, value: value, help: help, short: short)
    }

    /// `--name` or `--name VALUE`.
    public var longUsage: String { value.map { "--\(name) \($0)" } ?? "--\(name)" }
    /// As the help lists it: `-n, --name VALUE` when there is a short spelling.
    public var usage: String { (short.map { "-\($0), " } ?? "") + longUsage }
}

/// A command (or subcommand) of a program: its name, operands, summary and options. Its usage line,
/// its `--help` text and its parsing all come from this one declaration.
public struct CommandSpec: Sendable {
    /// The words after the program's name ("listen", "scene check"); empty for the program itself.
    public let name: String
    /// The program ("touchbridgectl", "touchbridged").
    public let program: String
    /// What follows the options in the usage line ("RECORDING...", "FILE"); empty when nothing does.
    public let operands: String
    public let summary: String
    public let options: [OptionSpec]

    public init(program: String, name: String, operands: String = "", summary: String, options: [OptionSpec]) {
        self.program = program
        self.name = name
        self.operands = operands
        self.summary = summary
        self.options = options
    }

    /// "touchbridgectl listen" — how messages name it.
    public var fullName: String { name.isEmpty ? program : "\(program) \(name)" }

    /// `replay RECORDING... [--touches] [--scene FILE]`, as the overview lists it.
    public var usageLine: String {
        ([name.isEmpty ? program : name] + (operands.isEmpty ? [] : [operands]) + options.map { "[\($0.longUsage)]" })
            .joined(separator: " ")
    }

    /// What `--help` prints: the usage, the summary and every option with its help.
    public var help: String {
        var text = "usage: \(name.isEmpty ? usageLine : "\(program) \(usageLine)")\n\n\(summary)\n"
        if !options.isEmpty {
            text += "\noptions:\n"
            let width = min(24, (options.map { $0.usage.count } + ["--help".count]).max()! + 2)
            for o in options + [.flag("help", "print this help and exit")] {
                let lead = "  " + o.usage
                let pad = lead.count < width + 2 ? String(repeating: " ", count: width + 2 - lead.count) : "\n" + String(repeating: " ", count: width + 2)
                let indent = "\n" + String(repeating: " ", count: width + 2)
                text += lead + pad + o.help.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: indent) + "\n"
            }
        }
        return text
    }
}

/// A small command-line parser for a `CommandSpec`: `--flag`, `--option VALUE`, `--option=VALUE`, and
/// positional words; `--help` (or `-h`) on every command. Errors say what is wrong, suggest the
/// nearest option, and point at --help.
public struct Arguments {
    public private(set) var flags: Set<String> = []
    public private(set) var options: [String: String] = [:]
    /// Every value of each option, in order (an option given twice keeps both here; `options` the last).
    public private(set) var allValues: [String: [String]] = [:]
    public private(set) var positional: [String] = []
    /// `--help` or `-h` was given: the command prints its help and exits 0.
    public private(set) var wantsHelp = false
    public let spec: CommandSpec

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public init(_ args: [String], spec: CommandSpec) throws {
        self.spec = spec
        let program = spec.fullName
        let known = spec.options.map(\.name)
        var i = 0
        var onlyPositional = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositional || a == "-" || !a.hasPrefix("-") {
                positional.append(a)
                continue
            }
            if a == "--" { onlyPositional = true; continue }
            if a == "-h" { wantsHelp = true; continue }
            // A declared short option: `-g VALUE` or `-gVALUE`.
            if !a.hasPrefix("--"), a.count >= 2, let option = spec.options.first(where: { $0.short == a.dropFirst().first }) {
                var value: String? = a.count > 2 ? String(a.dropFirst(2)) : nil
                if option.value == nil {
                    guard value == nil else { throw Failure(description: "\(program): -\(option.short!) takes no value") }
                    flags.insert(option.name)
                    continue
                }
                if value == nil {
                    guard i < args.count else { throw Failure(description: "\(program): -\(option.short!) needs a value, \(option.value!) (see --help)") }
                    value = args[i]
                    i += 1
                }
                options[option.name] = value
                allValues[option.name, default: []].append(value!)
                continue
            }
            guard a.hasPrefix("--") else {
                // A short option: say which long one was meant.
                let letter = a.dropFirst().prefix(1)
                let guess = known.first { $0.hasPrefix(letter) }.map { "did you mean --\($0)? " } ?? ""
                throw Failure(description: "\(program): unknown option \(a) (\(guess)options are long, such as --\(known.first ?? "help"); see --help)")
            }
            var name = String(a.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if name == "help" { wantsHelp = true; continue }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                let hint = DidYouMean.closest(name, in: known).map { "did you mean --\($0)? " } ?? ""
                let list = known.isEmpty ? "it takes no options" : "known: " + known.map { "--\($0)" }.joined(separator: " ")
                throw Failure(description: "\(program): unknown option --\(name) (\(hint)\(list); see --help)")
            }
            if option.value == nil {
                guard value == nil else { throw Failure(description: "\(program): --\(name) takes no value") }
                flags.insert(name)
            } else {
                if value == nil {
                    guard i < args.count else { throw Failure(description: "\(program): --\(name) needs a value, \(option.value!) (see --help)") }
                    value = args[i]
                    i += 1
                }
                options[name] = value
                allValues[name, default: []].append(value!)
            }
        }
    }

    public func has(_ flag: String) -> Bool {
        assert(spec.options.contains { $0.name == flag && $0.value == nil }, "\(flag) is not a declared flag")
        return flags.contains(flag)
    }

    public subscript(option: String) -> String? {
        assert(spec.options.contains { $0.name == option && $0.value != nil }, "\(option) is not a declared option")
        return options[option]
    }

    /// Every value given for `option`, in order.
    public func values(_ option: String) -> [String] { allValues[option] ?? [] }

    public func number(_ option: String) throws -> Double? {
        guard let text = self[option] else { return nil }
        guard let v = Double(text), v.isFinite, v >= 0 else {
            throw Failure(description: "\(spec.fullName): --\(option) needs a number of seconds ≥ 0, not \"\(text)\"")
        }
        return v
    }

    /// Exactly `count` positional words (`what` names them in the error), or a failure.
    public func expect(_ count: Int, _ what: String) throws {
        guard positional.count == count else {
            if positional.count > count {
                throw Failure(description: "\(spec.fullName): unexpected \"\(positional[count])\" (see --help)")
            }
            throw Failure(description: "\(spec.fullName): name \(what) (usage: \(spec.program) \(spec.usageLine))")
        }
    }
}
