// touchbridged: the TouchBridge daemon. See `touchbridged --help` and README.md.
import Glibc
import TouchDaemon
import TouchProtocol
import TouchSystem

let args = Array(CommandLine.arguments.dropFirst())
do {
    let (options, help, version) = try DaemonOptions.parse(args)
    if help { print(DaemonOptions.usage, terminator: ""); exit(0) }
    if version { print("touchbridged \(Version.string) (protocol \(Version.protocolVersion))"); exit(0) }
    let log = Logger(program: "touchbridged", level: options.verbose ? .debug : .info)
    do {
        let daemon = try Daemon(options: options, log: log)
        exit(daemon.run())
    } catch {
        for line in errorLines(error) { log.error(line) }
        exit(1)
    }
} catch {
    FileHandleStandardError.write("\(error)\n")
    exit(2)
}
