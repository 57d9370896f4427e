import TouchProtocol
import TouchSystem

/// Tells the daemon what a source on this machine says (follow-rotation: a device's rotation;
/// follow-focus: the focused app), and keeps telling it: the last wish is sent again whenever a daemon
/// appears on the socket (started late, restarted, upgraded), since a new daemon knows nothing of it.
/// One `DaemonConnection`, subscribed to nothing, watches the socket and carries the commands; when it
/// ends, it connects again with backoff (0.5 s doubling to 10 s). A refusal is logged and not repeated
/// to the same daemon.
///
///     idle ──source──▶ pending ──connected──▶ sent ──ok / refused──▶ settled
///                        ▲  ▲                  │                       │
///                        │  └─ daemon gone ────┘                       │
///                        └──────────────────── daemon gone ────────────┘
///     (the source speaks again in any state: sent at once when connected, else pending)
package final class DaemonTeller<Wish: Equatable> {
    package enum State: Equatable {
        /// The source has said nothing yet.
        case idle
        /// Waits for a daemon to tell.
        case pending(Wish)
        /// Told the daemon; its answer is awaited.
        case sent(Wish)
        /// The daemon answered (carried out, or refused): nothing more to tell it.
        case settled(Wish)

        package var wish: Wish? {
            switch self {
            case .idle: nil
            case .pending(let w), .sent(let w), .settled(let w): w
            }
        }
    }

    let socket: String
    let log: Logger
    /// What is told, for the log ("the rotation", "the focus").
    let subject: String
    /// The command a wish is.
    let command: (Wish) -> ClientCommand
    /// A wish in a few words, for the log ("left-up", "firefox").
    let describe: (Wish) -> String
    /// What the log says when the daemon carried a wish out (nil: nothing, for a wish that changes with
    /// every window the user clicks).
    let carriedOut: (Wish) -> String?
    package private(set) var state = State.idle
    private var connection: DaemonConnection?

    init(socket: String, subject: String, log: Logger, command: @escaping (Wish) -> ClientCommand,
         describe: @escaping (Wish) -> String, carriedOut: @escaping (Wish) -> String?) {
        self.socket = socket
        self.subject = subject
        self.log = log
        self.command = command
        self.describe = describe
        self.carriedOut = carriedOut
    }

    /// Starts watching the daemon's socket in `loop` (until `stopWatching`).
    func watch(in loop: EventLoop) throws {
        let c = try DaemonConnection(path: socket, topics: [], loop: loop)
        c.onConnect = { [unowned self] in connected() }
        c.onDisconnect = { [unowned self] reason, _, failures in disconnected(reason, failures: failures) }
        connection = c
        c.start()
    }

    /// Ends the connection (its handlers hold this teller).
    func stopWatching() {
        connection?.stop()
        connection = nil
    }

    /// Whether the daemon is connected now.
    var isConnected: Bool { connection?.state == .connected }

    /// The source says `wish`.
    func send(_ wish: Wish) {
        if isConnected { tell(wish) } else { state = .pending(wish) }
    }

    private func connected() {
        guard let w = state.wish else { return }
        if case .pending = state { log.info("the daemon is there: \(describe(w)) again") }
        tell(w)
    }

    private func disconnected(_ reason: String, failures: Int) {
        if let w = state.wish { state = .pending(w) }
        if failures == 0 {
            log.warning("the daemon went away; \(subject) is sent again when it is back")
        } else if failures == 1 {
            log.warning("\(reason); \(subject) is sent when the daemon is there")
        }
    }

    private func tell(_ w: Wish) {
        guard let connection else { return }
        state = .sent(w)
        connection.send(command(w)) { [unowned self] answer in
            // Only the answer to what is wanted now settles it (the source may have spoken since).
            guard state == .sent(w) else { return }
            switch answer {
            case .ok:
                if let said = carriedOut(w) { log.info(said) }
                state = .settled(w)
            case .refused(let message):
                log.error("\(describe(w)): the daemon refused: \(message)")
                state = .settled(w)
            case .closed:
                state = .pending(w)
            }
        }
    }
}
