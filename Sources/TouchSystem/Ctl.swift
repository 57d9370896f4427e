import Glibc

/// touchbridgectl's command table and dispatch (docs/commands.md): each command declared once as a
/// `Command` (its `CommandSpec` gives its usage line, its `--help` and its parsing) by the module that
/// does its work (TouchClients for what talks to the daemon, TouchDaemon for what runs its pipeline
/// offline); the executable lists them in the order the overview shows.
public enum Ctl {
    package static let program = "touchbridgectl"

    /// A command: its declaration and what it does with its parsed arguments.
    public struct Command: Sendable {
        public let spec: CommandSpec
        public let run: @Sendable (Arguments) throws -> Int32

        public init(_ name: String, operands: String = "", _ summary: String, options: [OptionSpec] = [],
             run: @escaping @Sendable (Arguments) throws -> Int32) {
            spec = CommandSpec(program: Ctl.program, name: name, operands: operands, summary: summary, options: options)
            self.run = run
        }
    }

    public static func usage(_ commands: [Command]) -> String {
        var text = "usage: touchbridgectl COMMAND [options]   (touchbridgectl COMMAND --help: a command's options)\n\ncommands:\n"
        for c in commands {
            text += "  \(c.spec.usageLine)\n"
            for line in c.spec.summary.split(separator: "\n") { text += "      \(line)\n" }
        }
        return text + "  --help, --version\n"
    }

    /// Runs a command; returns the exit status.
    public static func main(_ args: [String], commands: [Command], version: String) -> Int32 {
        guard let first = args.first else {
            FileHandleStandardError.writeText(usage(commands))
            return 2
        }
        switch first {
        case "--help", "-h", "help": print(usage(commands), terminator: ""); return 0
        case "--version": print("touchbridgectl \(version)"); return 0
        default: break
        }
        // The longest name that the words begin with: "scene check" before "scene".
        let two = args.count > 1 ? "\(args[0]) \(args[1])" : ""
        let command = commands.first { $0.spec.name == two } ?? commands.first { $0.spec.name == first }
        guard let command else { return unknown(args, commands) }
        let rest = Array(args.dropFirst(command.spec.name.split(separator: " ").count))
        do {
            let a = try Arguments(rest, spec: command.spec)
            if a.wantsHelp {
                print(command.spec.help, terminator: "")
                return 0
            }
            return try command.run(a)
        } catch let e as Arguments.Failure {
            FileHandleStandardError.write("\(e)\n")
            return 2
        } catch {
            for line in errorLines(error) { FileHandleStandardError.write("touchbridgectl: \(line)") }
            return 1
        }
    }

    /// A command word that names no command: a group's subcommands ("scene", "set"), or the nearest
    /// command name.
    private static func unknown(_ args: [String], _ commands: [Command]) -> Int32 {
        let word = args[0]
        let group = commands.filter { $0.spec.name.hasPrefix(word + " ") }
        if !group.isEmpty {
            let wantsHelp = args.dropFirst().contains { $0 == "--help" || $0 == "-h" }
            let lines = group.map { c in
                "  touchbridgectl \(c.spec.usageLine)\n" + c.spec.summary.split(separator: "\n").map { "      \($0)\n" }.joined()
            }.joined()
            if wantsHelp {
                print("usage:\n" + lines, terminator: "")
                return 0
            }
            let said = args.count > 1 ? "unknown subcommand \"\(word) \(args[1])\"" : "\"\(word)\" needs a subcommand"
            let names = group.map { String($0.spec.name.dropFirst(word.count + 1)) }
            let hint = args.count > 1 ? DidYouMean.closest(args[1], in: names).map { " (did you mean \"\(word) \($0)\"?)" } ?? "" : ""
            FileHandleStandardError.write("touchbridgectl: \(said)\(hint); usage:")
            FileHandleStandardError.writeText(lines)
            return 2
        }
        let names = Array(Set(commands.map { String($0.spec.name.split(separator: " ")[0]) })).sorted()
        let hint = DidYouMean.hint(word, in: names)
        FileHandleStandardError.write("touchbridgectl: unknown command \"\(word)\"\(hint); the commands are \(names.joined(separator: ", ")) (see --help)\n")
        return 2
    }
}
