import Glibc
import TouchSystem

/// The one connection to the daemon every client uses (bind, mqtt, follow-rotation, visualize, doctor,
/// the control commands): it connects, subscribes, hands out each line the daemon sends as a
/// `DaemonLine`, sends commands and gives each its answer, and, for a long-running client, connects
/// again with one `Backoff` when the daemon goes away. Everything happens on the client's event loop and
/// nothing in it waits: the socket is non-blocking, what the daemon does not take yet waits in an
/// `OutputQueue`, and a retry is a timer.
///
///     idle ──start──▶ connected ──the daemon goes away──▶ waiting ──timer──▶ connected …
///       ▲               │  │                              │  ▲                  (or waiting again)
///       └────stop───────┘  └──(reconnect off)──▶ closed   └──┘ connect failed
///
/// A command's answer is the daemon's next `ok` or `error` line: the daemon answers every control
/// command, in the order they came (docs/protocol.md). Commands still unanswered when the connection
/// ends are answered `.closed`.
public final class DaemonConnection {
    public enum State: Equatable {
        /// Not started, or stopped: no socket, no retry armed.
        case idle
        /// Connected and subscribed: lines come in, commands go out.
        case connected
        /// Not connected: the next attempt is at `retryAt` (seconds of CLOCK_MONOTONIC), after `failures`
        /// attempts that failed in a row (0: the connection was there and ended).
        case waiting(retryAt: Double, failures: Int)
        /// The connection ended (or could not be made) and `reconnects` is off: nothing more happens.
        case closed
    }

    /// What the daemon said to a command.
    public enum Answer: Equatable {
        /// Carried out; a warning when the daemon added one.
        case ok(warning: String?)
        /// Refused: the error line's message.
        case refused(String)
        /// The connection ended before the answer came.
        case closed
    }

    public let path: String
    /// The topics subscribed on every connect.
    public private(set) var topics: [String]
    /// Whether a connection that ends (or cannot be made) is tried again, with `backoff`.
    public let reconnects: Bool
    public private(set) var state: State = .idle {
        didSet { assert(socket == nil || state == .connected, "a socket outside the connected state") }
    }
    private var backoff: Backoff
    private let loop: EventLoop
    private let retry: Timer
    private var socket: FileDescriptor?
    private let output = OutputQueue()
    private var input: [UInt8] = []
    /// Read at most this much a wakeup: a client that does other work (a broker, pages) gets its turn.
    private static let readBudget = 64 * 1024
    /// What may wait unsent: commands are small, and a daemon that takes none of 1 MiB is stuck.
    private static let outputLimit = 1 << 20
    private var chunk = [UInt8](repeating: 0, count: DaemonConnection.readBudget)
    /// Commands sent and not yet answered, in the order sent.
    private var unanswered: [(Answer) -> Void] = []

    /// Connected and subscribed (each time, after a reconnect too).
    public var onConnect: (() -> Void)?
    /// A line of the daemon's (valid during the call: copy what you keep).
    public var onLine: ((DaemonLine) -> Void)?
    /// The lines read in one wakeup were all handed out: for a client that batches them (the daemon
    /// writes a frame's lines together, so a frame's last line is read by the end of the wakeup).
    public var onReadEnd: (() -> Void)?
    /// The connection could not be made, or ended: why, and in how many seconds the next attempt is (nil:
    /// none, `reconnects` is off). `failures` counts the attempts failed in a row (0: it ended).
    public var onDisconnect: ((_ reason: String, _ retryIn: Double?, _ failures: Int) -> Void)?

    public init(path: String, topics: [String], loop: EventLoop, reconnects: Bool = true,
                backoff: Backoff = Backoff(maximum: 10)) throws {
        self.path = path
        self.topics = topics
        self.loop = loop
        self.reconnects = reconnects
        self.backoff = backoff
        retry = try Timer()
        try loop.add(retry.fd) { [unowned self] _ in
            retry.acknowledge()
            if case .waiting = state { connect() }
        }
    }

    deinit {
        loop.remove(retry.fd)
        if let socket { loop.remove(socket); socket.close() }
    }

    /// Who is at the other end while connected (the daemon's pid and user, from the kernel).
    public var peer: PeerCredentials? { socket.flatMap(PeerCredentials.of) }

    /// Connects now (from `idle`; a later call does nothing).
    public func start() {
        guard state == .idle else { return }
        connect()
    }

    /// Ends the connection and any retry; unanswered commands are answered `.closed`.
    public func stop() {
        drop()
        retry.arm(at: nil)
        state = .idle
    }

    /// Changes the topics: sent now when connected, and on every connect after.
    public func subscribe(_ topics: [String]) {
        self.topics = topics
        if state == .connected { queue(ClientCommand.subscribeLine(topics)) }
    }

    /// Sends `command` (a control command: `set`, `scene`); `answer` gets the daemon's ok or error, or
    /// `.closed`. Not connected: answered `.closed` at once (a long-running client sends again on
    /// `onConnect`, which knows what it still wants).
    public func send(_ command: ClientCommand, answer: @escaping (Answer) -> Void) {
        guard state == .connected else { return answer(.closed) }
        unanswered.append(answer)
        queue(command.line)
    }

    /// For a command-line client that does not reconnect: connects, runs `loop` until it is stopped or
    /// the connection ends (`ended` gets why), and throws when the daemon could not be reached at all.
    public func runOnce(_ loop: EventLoop, ended: ((String) -> Void)? = nil) throws {
        precondition(!reconnects, "runOnce is for a connection that does not reconnect")
        var failure: String?
        onDisconnect = { reason, _, failures in
            if failures > 0 { failure = reason } else { ended?(reason) }
            loop.stop()
        }
        start()
        if state == .connected { loop.run() }
        stop()
        if let failure { throw SocketError(failure) }
    }

    /// For a one-shot command: connects to `path`, sends `command` and waits, on a loop of its own,
    /// for the answer. A daemon that cannot be reached is an error (with its remedy).
    public static func request(_ command: ClientCommand, at path: String) throws -> Answer {
        let loop = try EventLoop()
        let connection = try DaemonConnection(path: path, topics: [], loop: loop, reconnects: false)
        var answer = Answer.closed
        connection.onConnect = { [unowned connection] in
            connection.send(command) { answer = $0; loop.stop() }
        }
        try connection.runOnce(loop)
        return answer
    }

    // MARK: Connecting

    private func connect() {
        do {
            let fd = try DaemonConnection.open(path)
            socket = fd
            state = .connected
            input.removeAll(keepingCapacity: true)
            try loop.add(fd, events: .readable) { [unowned self] events in handle(events) }
            backoff.reset()
            queue(ClientCommand.subscribeLine(topics))
            onConnect?()
        } catch {
            if let fd = socket { fd.close(); socket = nil }
            let failures: Int
            if case .waiting(_, let f) = state { failures = f + 1 } else { failures = 1 }
            lost("\(error)", failures: failures)
        }
    }

    /// The socket at `path`, connected and non-blocking; an error says what to do when no daemon runs
    /// there or the socket is not ours to use.
    public static func open(_ path: String) throws -> FileDescriptor {
        do {
            return try UnixSocket.connect(to: try UnixSocketAddress(path), nonBlocking: true)
        } catch {
            switch error.errno {
            case .noSuchFile where !directoryExists(of: path):
                // A mistyped path, more often than a daemon that is not running.
                throw SocketError("\(path): there is no directory \(directory(of: path)): is the path right? "
                                  + "(the default is \(DaemonSocket.defaultPath() ?? "/run/touchbridge/touchbridge.sock"); --socket PATH names another)")
            case .noSuchFile, .connectionRefused:
                throw SocketError("\(path): touchbridged is not running there (start it: systemctl start touchbridged, or `make run`; or pass --socket PATH)")
            case .accessDenied, .notPermitted:
                let g = Files.groupName(of: path) ?? "touchbridge"
                throw SocketError("\(path): permission denied (the socket is for group \"\(g)\": sudo usermod -aG \(g) $USER, then log in again)")
            case .wouldBlock:
                throw SocketError("\(path): the daemon is not accepting connections now (its queue of new ones is full)")
            default:
                throw SocketError("\(path): cannot connect: \(error.errno)")
            }
        }
    }

    /// The directory of a socket path ("." for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    package static func directoryExists(of path: String) -> Bool { Files.isDirectory(directory(of: path)) }

    // MARK: The connection

    private func handle(_ events: EventLoop.Events) {
        if events.contains(.writable) { flush() }
        guard state == .connected else { return }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.closed) { read() }
    }

    private func read() {
        guard let fd = socket else { return }
        defer { onReadEnd?() }
        var budget = DaemonConnection.readBudget
        while budget > 0, state == .connected {
            let result = chunk.withUnsafeMutableBytes { UnixSocket.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<budget]), dontWait: true) }
            switch result {
            case .failure(let e): return lost("the daemon's connection failed: \(e)", failures: 0)
            case .success(nil): return
            case .success(0?): return lost("the daemon closed the connection", failures: 0)
            case .success(let n?):
                let asked = budget
                budget -= n
                split(n)
                // A short read took all there was: asking again would only hear EAGAIN (a system call
                // per wakeup for nothing); epoll is level-triggered and wakes us for what comes next.
                if n < asked { return }
            }
        }
        // Past the budget with more waiting: epoll is level-triggered, so the rest is read next pass.
    }

    /// Hands out the complete lines among the `n` bytes just read.
    private func split(_ n: Int) {
        var start = 0
        chunk.withUnsafeBufferPointer { bytes in
            var i = 0
            while i < n {
                if bytes[i] == 0x0a {
                    if input.isEmpty {
                        deliver(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                    } else {
                        input.append(contentsOf: bytes[start..<i])
                        let line = input
                        input.removeAll(keepingCapacity: true)
                        line.withUnsafeBufferPointer { deliver($0) }
                    }
                    guard state == .connected else { return }
                    start = i + 1
                }
                i += 1
            }
            input.append(contentsOf: bytes[start..<n])
        }
    }

    private func deliver(_ line: UnsafeBufferPointer<UInt8>) {
        let l = DaemonLine(line)
        switch l.event {
        case .ok, .error:
            if !unanswered.isEmpty {
                let answer = unanswered.removeFirst()
                let json = l.json ?? .null
                answer(l.event == .ok ? .ok(warning: OkLine.decode(json)?.warning) : .refused(ErrorLine.decode(json) ?? ""))
            }
        default: break
        }
        onLine?(l)
    }

    private func queue(_ line: [UInt8]) {
        guard socket != nil else { return }
        guard output.append(line + [0x0a], limit: DaemonConnection.outputLimit) else {
            return lost("the daemon takes no commands (\(DaemonConnection.outputLimit) bytes wait unsent)", failures: 0)
        }
        flush()
    }

    private func flush() {
        guard let fd = socket else { return }
        switch output.flush(to: fd) {
        case .empty: loop.modify(fd, events: .readable)
        case .waiting: loop.modify(fd, events: [.readable, .writable])
        case .failed(let e): lost("the daemon's connection failed: \(e)", failures: 0)
        }
    }

    /// Closes the socket and answers what waited.
    private func drop() {
        if let fd = socket {
            loop.remove(fd)
            fd.close()
            socket = nil
        }
        output.removeAll()
        input.removeAll()
        let waiting = unanswered
        unanswered = []
        for answer in waiting { answer(.closed) }
    }

    private func lost(_ reason: String, failures: Int) {
        drop()
        guard reconnects else {
            state = .closed
            onDisconnect?(reason, nil, failures)
            return
        }
        // After a connection that was there, the first retry waits the first delay again.
        if failures == 0 { backoff.reset() }
        let wait = backoff.next()
        state = .waiting(retryAt: monotonicNow() + wait, failures: failures)
        retry.arm(at: monotonicNow() + wait)
        onDisconnect?(reason, wait, failures)
    }
}
