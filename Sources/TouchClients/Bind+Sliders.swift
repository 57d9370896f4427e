import Glibc
import TouchSystem

extension Ctl {
    /// A slider's commands: values come up to once a frame, and a command such as wpctl takes longer
    /// than a frame to run. Each binding runs one at a time; a value that comes while it runs waits,
    /// replaced by any newer one, and runs when it exits: the last value is always set, no command
    /// piles up behind another, and two never race to set it out of order.
    struct SliderRuns {
        /// The command running for each binding (its argv as written), and the value waiting.
        private var busy: [[String]: pid_t] = [:]
        private var waiting: [[String]: [String: String]] = [:]

        mutating func offer(_ argv: [String], _ env: [String: String], running: inout [pid_t: String], log: Logger) {
            if let pid = busy[argv], running[pid] != nil {
                waiting[argv] = env
                return
            }
            start(argv, env, running: &running, log: log)
        }

        /// After a reap: the bindings whose command exited run their waiting value.
        mutating func next(running: inout [pid_t: String], log: Logger) {
            for (argv, pid) in busy where running[pid] == nil {
                busy[argv] = nil
                if let env = waiting.removeValue(forKey: argv) { start(argv, env, running: &running, log: log) }
            }
        }

        private mutating func start(_ argv: [String], _ env: [String: String], running: inout [pid_t: String], log: Logger) {
            let words = Bindings.expand(argv, env)
            if let pid = Bindings.spawn(words, environment: env) {
                running[pid] = words.joined(separator: " ")
                busy[argv] = pid
            } else {
                log.error("\(env["TOUCHBRIDGE_RECOGNIZER"] ?? "") value: cannot run \(argv[0]): \(Errno.current)")
            }
        }
    }
}
