import Glibc

/// touchbridgectl (README "touchbridgectl"): a command per file in Commands/, each declared once as a
/// `Command` (its `CommandSpec` gives its usage line, its `--help` and its parsing).
public enum Ctl {
    static let program = "touchbridgectl"

    /// A command: its declaration and what it does with its parsed arguments.
    struct Command: Sendable {
        let spec: CommandSpec
        let run: @Sendable (Arguments) throws -> Int32

        init(_ name: String, operands: String = "", _ summary: String, options: [OptionSpec] = [],
             run: @escaping @Sendable (Arguments) throws -> Int32) {
            spec = CommandSpec(program: Ctl.program, name: name, operands: operands, summary: summary, options: options)
            self.run = run
        }
    }

    /// Every command, in the order the overview lists them. Subcommands are named by both words
    /// ("scene check").
    static let commands: [Command] = [
        listen, devices, replay, visualize, setRotation, setDisplay, followRotation, mqtt, enable, disable,
        scenePush, sceneCheck, sceneDefault, bind, doctor, udevMirrorProperties,
    ]

    /// `--socket PATH`, shared by the commands that talk to the daemon.
    static let socketOption = OptionSpec.option("socket", "PATH",
        "the daemon's socket (default: $TOUCHBRIDGE_SOCKET; else $XDG_RUNTIME_DIR/touchbridge.sock\nwhen it exists, else /run/touchbridge/touchbridge.sock)")

    public static var usage: String {
        var text = "usage: touchbridgectl COMMAND [options]   (touchbridgectl COMMAND --help: a command's options)\n\ncommands:\n"
        for c in commands {
            text += "  \(c.spec.usageLine)\n"
            for line in c.spec.summary.split(separator: "\n") { text += "      \(line)\n" }
        }
        return text + "  --help, --version\n"
    }

    /// Runs a command; returns the exit status.
    public static func main(_ args: [String]) -> Int32 {
        guard let first = args.first else {
            FileHandleStandardError.writeText(usage)
            return 2
        }
        switch first {
        case "--help", "-h", "help": print(usage, terminator: ""); return 0
        case "--version": print("touchbridgectl \(Version.string) (protocol \(Version.protocolVersion))"); return 0
        default: break
        }
        // The longest name that the words begin with: "scene check" before "scene".
        let two = args.count > 1 ? "\(args[0]) \(args[1])" : ""
        let command = commands.first { $0.spec.name == two } ?? commands.first { $0.spec.name == first }
        guard let command else { return unknown(args) }
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
    private static func unknown(_ args: [String]) -> Int32 {
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
            let hint = args.count > 1 ? SceneReader.closest(args[1], in: names).map { " (did you mean \"\(word) \($0)\"?)" } ?? "" : ""
            FileHandleStandardError.write("touchbridgectl: \(said)\(hint); usage:")
            FileHandleStandardError.writeText(lines)
            return 2
        }
        let names = Array(Set(commands.map { String($0.spec.name.split(separator: " ")[0]) })).sorted()
        let hint = SceneReader.closest(word, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
        FileHandleStandardError.write("touchbridgectl: unknown command \"\(word)\"\(hint); the commands are \(names.joined(separator: ", ")) (see --help)\n")
        return 2
    }

    /// The daemon's socket: --socket, else $TOUCHBRIDGE_SOCKET, else the user's own daemon's socket
    /// when it exists, else the system service's.
    static func socketPath(_ a: Arguments) throws -> String {
        if let p = a["socket"] { return p }
        if let p = getenv("TOUCHBRIDGE_SOCKET"), p.pointee != 0 { return String(cString: p) }
        if let p = SocketServer.defaultPath(), access(p, F_OK) == 0 { return p }
        if access("/run/touchbridge/touchbridge.sock", F_OK) == 0 { return "/run/touchbridge/touchbridge.sock" }
        guard let p = SocketServer.defaultPath() else {
            throw SocketError("no socket path: pass --socket PATH or set TOUCHBRIDGE_SOCKET (XDG_RUNTIME_DIR is not set)")
        }
        return p
    }
}
