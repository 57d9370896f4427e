import CLinux
import Glibc

/// A small leveled logger to standard error. Under systemd (JOURNAL_STREAM set) each line carries its
/// syslog priority ("<6>") so the journal files it right.
public final class Logger: @unchecked Sendable {
    public enum Level: Int, Comparable, Sendable {
        case error = 3, warning = 4, info = 6, debug = 7
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var word: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    public var level: Level
    public let program: String
    private let journal: Bool
    /// Tests collect lines here instead of standard error.
    public var capture: ((Level, String) -> Void)?

    public init(program: String, level: Level = .info) {
        self.program = program
        self.level = level
        journal = getenv("JOURNAL_STREAM") != nil
    }

    public func log(_ l: Level, _ message: @autoclosure () -> String) {
        guard l.rawValue <= level.rawValue else { return }
        // What a file or a peer sent may be in the message: nothing unprintable reaches the terminal,
        // and a message is one entry of the journal (no newline of a peer's starts a forged one).
        let text = Terminal.oneLine(message())
        if let capture { capture(l, text); return }
        let line = journal ? "<\(l.rawValue)>\(text)\n" : "\(program): \(l.word): \(text)\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}
