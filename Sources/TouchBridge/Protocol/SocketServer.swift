import CLinux
import Glibc
import TouchCore

/// The gesture socket: newline-delimited JSON over a Unix stream socket (README "Socket protocol").
///
/// Each client has a bounded output queue; a client that stops reading until its queue overflows is
/// dropped with a log line, so a slow client never blocks the daemon or the others. Client lines are
/// commands (`{"subscribe": [...]}`); a bad one gets an error line and the connection stays usable;
/// a line over 64 KiB is an error and closes that client.
public final class SocketServer {
    public static let maximumLineLength = 64 * 1024
    /// Bytes a client may have waiting (beyond the kernel's 64 KiB socket buffer) before it is dropped.
    public static let defaultQueueLimit = 1024 * 1024
    public var queueLimit = SocketServer.defaultQueueLimit
    public static let maximumClients = 512

    public let path: String?
    public let listenFD: Int32
    private let ownsPath: Bool
    private let loop: EventLoop
    private let log: Logger
    private var clients: [Int32: Client] = [:] {
        didSet { clientList = Array(clients.values) }
    }
    /// `clients` as a list, for the broadcast of every line.
    private var clientList: [Client] = []
    /// Some client has lines queued during this turn of the event loop (`flushQueued`; each such
    /// client has `awaitsFlush` set).
    private var anyAwaitsFlush = false
    /// The first line every client gets.
    public var hello: [UInt8] = []
    /// Lines sent right after a subscription (the devices present for "devices", the scene for
    /// "scene"), given the topics subscribed.
    public var onSubscribe: ((Topics) -> [[UInt8]])?
    /// Carries out a control command (`set`, `scene`) of a permitted peer; a refusal changes nothing.
    public var onControl: ((ControlRequest) -> Result<Void, ClientCommand.Refusal>)?
    /// After a control command's answer is queued: what the command changed may be told now (the
    /// scene line, device lines), so that the sender reads its `ok` first.
    public var onControlAnswered: (() -> Void)?
    /// A connection went away (its client scenes go with it).
    public var onDisconnect: ((Int) -> Void)?
    /// Who may send control commands.
    public var controlPolicy = ControlPolicy()
    /// Numbers the connections (`ControlRequest.connection`).
    private var connections = 0

    /// A control command, and who sent it.
    public struct ControlRequest {
        /// The connection, unique for the daemon's life: what owns a client scene.
        public let connection: Int
        public let peer: PeerCredentials
        public let command: ClientCommand
    }
    /// Topics anyone is subscribed to, so the daemon only builds the lines someone wants.
    public var onTopicsChanged: ((Topics) -> Void)?

    final class Client {
        let fd: Int32
        let peer: String
        let id: Int
        let credentials: PeerCredentials?
        var topics: Topics = .gestures
        var input: [UInt8] = []
        /// Lines not yet sent.
        let output = OutputQueue()
        var wantsWritable = false
        /// Has lines queued during this turn of the event loop (`flushQueued`).
        var awaitsFlush = false
        /// Still connected (set false when dropped).
        var isOpen = true
        /// The client has finished sending (EOF: `socat - … </dev/null`, a script that wrote its line):
        /// it keeps its subscription and gets its lines until it hangs up or a send fails.
        var inputClosed = false

        init(fd: Int32, id: Int, credentials: PeerCredentials?) {
            self.fd = fd
            self.id = id
            self.credentials = credentials
            peer = credentials?.description ?? "unknown peer"
        }
    }

    /// Listens on `path` (mode 0660, `group` when given), or on the socket systemd passed (LISTEN_FDS).
    public init(path: String?, group: String?, loop: EventLoop, log: Logger) throws {
        self.loop = loop
        self.log = log
        if let activated = SocketServer.activatedSocket() {
            listenFD = activated
            self.path = path
            ownsPath = false
            _ = fcntl(listenFD, F_SETFL, fcntl(listenFD, F_GETFL) | O_NONBLOCK)
            log.info("listening on the socket systemd passed (fd \(activated))")
        } else {
            guard let path else { throw ServerError("no socket path: pass --socket PATH or set XDG_RUNTIME_DIR") }
            listenFD = try SocketServer.listen(path: path, group: group)
            self.path = path
            ownsPath = true
            log.info("listening on \(path)")
        }
        try loop.add(listenFD) { [unowned self] _ in self.acceptAll() }
    }

    /// Stops listening; removes the socket file unless systemd owns it.
    public func shutdown() {
        flushQueued()
        for fd in Array(clients.keys) { drop(fd, reason: nil) }
        loop.remove(listenFD)
        close(listenFD)
        // Only a socket is removed: if something else took the path meanwhile, it stays.
        var st = stat()
        if ownsPath, let path, lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
    }

    public var clientCount: Int { clients.count }

    /// The default socket: $TOUCHBRIDGE_SOCKET when set (daemon, touchbridgectl and the examples alike);
    /// else /run/touchbridge/touchbridge.sock as root, else $XDG_RUNTIME_DIR/touchbridge.sock.
    public static func defaultPath() -> String? {
        if let path = getenv("TOUCHBRIDGE_SOCKET"), path.pointee != 0 { return String(cString: path) }
        if getuid() == 0 { return "/run/touchbridge/touchbridge.sock" }
        guard let dir = getenv("XDG_RUNTIME_DIR") else { return nil }
        return String(cString: dir) + "/touchbridge.sock"
    }

    /// systemd socket activation: LISTEN_PID is us and LISTEN_FDS ≥ 1 → fd 3.
    static func activatedSocket() -> Int32? {
        guard let pidText = getenv("LISTEN_PID"), let fdsText = getenv("LISTEN_FDS"),
              Int32(String(cString: pidText)) == getpid(), let n = Int(String(cString: fdsText)), n >= 1 else { return nil }
        unsetenv("LISTEN_PID"); unsetenv("LISTEN_FDS"); unsetenv("LISTEN_FDNAMES")
        return 3
    }

    static func listen(path: String, group: String?) throws -> Int32 {
        // Bound under a temporary name and renamed into place once it listens: a client that waits for
        // the socket file to appear never finds it refusing connections.
        let temporary = path + ".new"
        guard let addr = address(path), let temporaryAddr = address(temporary) else {
            throw ServerError("\(path): socket path too long (at most \(MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 5) bytes)")
        }
        // The directory: /run/touchbridge may not exist yet.
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let dir = String(path[..<slash])
            if access(dir, F_OK) != 0 && mkdir(dir, 0o755) != 0 {
                throw ServerError("\(dir): cannot create the socket's directory: \(String(cString: strerror(errno)))")
            }
        }
        // A socket file left by a daemon that died is removed; one a live daemon answers on is not, and
        // anything that is not a socket is never touched.
        for (p, a) in [(path, addr), (temporary, temporaryAddr)] {
            var st = stat()
            guard lstat(p, &st) == 0 else { continue }
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw ServerError("\(p) exists and is not a socket: refusing to replace it (pass --socket with a path for the socket, e.g. $XDG_RUNTIME_DIR/touchbridge.sock)")
            }
            if p == path && isListening(a) {
                throw ServerError("\(path): another touchbridged is already listening there (stop it, or pass --socket PATH)")
            }
            unlink(p)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        let old = umask(0o117)
        var bound = temporaryAddr
        let rc = withUnsafePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw ServerError("\(path): cannot bind the socket: \(String(cString: strerror(e)))\(e == EACCES ? " (choose a writable place with --socket PATH)" : "")")
        }
        chmod(temporary, 0o660)
        if let group {
            guard let gr = getgrnam(group) else {
                close(fd); unlink(temporary)
                throw ServerError("socket group \"\(group)\" does not exist (create it, or choose another with --socket-group)")
            }
            if chown(temporary, uid_t.max, gr.pointee.gr_gid) != 0 {
                let e = errno
                close(fd); unlink(temporary)
                throw ServerError("\(path): cannot give the socket to group \"\(group)\": \(String(cString: strerror(e)))")
            }
        }
        guard Glibc.listen(fd, 128) == 0 else {
            let e = errno
            close(fd); unlink(temporary)
            throw ServerError("listen: \(String(cString: strerror(e)))")
        }
        guard rename(temporary, path) == 0 else {
            let e = errno
            close(fd); unlink(temporary)
            throw ServerError("\(path): cannot put the socket in place: \(String(cString: strerror(e)))")
        }
        return fd
    }

    /// `path` as a Unix socket address, or nil when it is too long for one.
    private static func address(_ path: String) -> sockaddr_un? {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in
            for (i, b) in bytes.enumerated() { buf[i] = b }
            buf[bytes.count] = 0
        }
        return addr
    }

    /// Whether a daemon answers on the socket at `addr`.
    private static func isListening(_ addr: sockaddr_un) -> Bool {
        var a = addr
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(probe) }
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    // MARK: Clients

    private func acceptAll() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { log.warning("accept: \(String(cString: strerror(errno)))") }
                return
            }
            guard clients.count < SocketServer.maximumClients else {
                let refusal = ErrorLine.encode("too many clients (\(SocketServer.maximumClients)); try again later") + [0x0a]
                _ = refusal.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
                log.warning("refused a client: already \(SocketServer.maximumClients) clients")
                continue
            }
            // A modest kernel buffer: a client that stops reading shows up in its queue soon.
            var sndbuf: Int32 = 65536
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, socklen_t(4))
            connections += 1
            let client = Client(fd: fd, id: connections, credentials: PeerCredentials.of(fd))
            let peer = client.peer
            clients[fd] = client
            log.info("client connected: \(peer)")
            do {
                try loop.add(fd, events: EventLoop.readable | EventLoop.hangup) { [unowned self] ev in self.service(fd, ev) }
            } catch {
                log.warning("cannot watch client \(peer): \(error)")
                clients[fd] = nil
                client.isOpen = false
                close(fd)
                continue
            }
            enqueue(client, hello)
            topicsChanged()
        }
    }

    private func service(_ fd: Int32, _ events: UInt32) {
        guard let client = clients[fd] else { return }
        if events & EventLoop.writable != 0 { flush(client) }
        guard clients[fd] != nil else { return }
        if !client.inputClosed && events & (EventLoop.readable | EventLoop.hangup) != 0 { readInput(client) }
        guard clients[fd] != nil else { return }
        // Gone both ways: nobody reads what we would send.
        if events & EventLoop.closed != 0 { drop(fd, reason: "disconnected") }
    }

    /// What the loop watches a client for: its lines until it stops sending, room to write while lines
    /// wait; a hang-up always.
    private func interest(_ client: Client) -> UInt32 {
        (client.inputClosed ? 0 : EventLoop.readable | EventLoop.hangup) | (client.wantsWritable ? EventLoop.writable : 0)
    }

    private func readInput(_ client: Client) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            if n == 0 {
                // The client stopped sending; it may still be reading. A last line without its newline
                // counts.
                if !client.input.isEmpty {
                    let line = client.input
                    client.input = []
                    handleLine(client, line)
                    guard clients[client.fd] != nil else { return }
                }
                client.inputClosed = true
                loop.modify(client.fd, events: interest(client))
                return
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                drop(client.fd, reason: "read error: \(String(cString: strerror(errno)))")
                return
            }
            client.input.append(contentsOf: buffer[0..<n])
            while let nl = client.input.firstIndex(of: 0x0a) {
                let line = Array(client.input[..<nl])
                client.input.removeSubrange(...nl)
                guard line.count <= SocketServer.maximumLineLength else { return tooLong(client) }
                handleLine(client, line)
                guard clients[client.fd] != nil else { return }
            }
            if client.input.count > SocketServer.maximumLineLength { return tooLong(client) }
        }
    }

    private func tooLong(_ client: Client) {
        sendError(client, "line longer than \(SocketServer.maximumLineLength / 1024) KiB; closing the connection")
        flush(client)
        drop(client.fd, reason: "sent a line over \(SocketServer.maximumLineLength / 1024) KiB (client bug)")
    }

    /// A client's line (ClientCommand.swift): carried out whole, or refused whole.
    private func handleLine(_ client: Client, _ line: [UInt8]) {
        let command: ClientCommand?
        do { command = try ClientCommand.parse(line) } catch { return sendError(client, error.message) }
        switch command {
        case nil:
            return
        case .subscribe(let topics, let names):
            client.topics = topics
            enqueue(client, SubscribedLine.encode(topics: ClientCommand.topicNames.filter { names.contains($0) }))
            for l in onSubscribe?(topics) ?? [] { enqueue(client, l) }
            topicsChanged()
        case let command?:
            guard let peer = client.credentials, controlPolicy.permits(peer) else {
                let who = client.credentials ?? PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
                log.warning("client \(client.peer): \(command.name) refused: not permitted")
                return sendError(client, controlPolicy.refusal(of: who, command: command.name))
            }
            let result = onControl?(ControlRequest(connection: client.id, peer: peer, command: command))
                ?? .failure(ClientCommand.Refusal(message: "\(command.name): not available here"))
            switch result {
            case .success:
                log.info("client \(client.peer): \(command.name) accepted")
                enqueue(client, OkLine.encode(command: command.name))
            case .failure(let refusal):
                sendError(client, refusal.message)
            }
            onControlAnswered?()
        }
    }

    private func sendError(_ client: Client, _ message: String) {
        enqueue(client, ErrorLine.encode(message))
    }

    private func topicsChanged() {
        var all: Topics = []
        for c in clients.values { all.formUnion(c.topics) }
        onTopicsChanged?(all)
    }

    // MARK: Output

    /// Sends one line to every client subscribed to `topic`.
    public func broadcast(_ line: [UInt8], topic: Topics) {
        line.withUnsafeBufferPointer { broadcast($0, topic: topic) }
    }

    /// Sends complete lines (one, or several separated by newlines; no newline after the last).
    public func broadcast(_ line: UnsafeBufferPointer<UInt8>, topic: Topics) {
        // The list is walked without retaining each client. A client dropped on the way replaces
        // `clientList`: the walk goes over this local reference to the old list, which keeps it alive.
        let list = clientList
        list.forEach { client in
            if client.topics.contains(topic) { enqueue(client, line) }
        }
    }

    /// Sends what was queued during this turn of the event loop: one send per client, however many
    /// lines a burst of frames made (the event loop calls it before it sleeps again).
    public func flushQueued() {
        guard anyAwaitsFlush else { return }
        anyAwaitsFlush = false
        // The clients are looked at in place, no list of the waiting ones kept: every client is in
        // `clientList` (added before its first line), a handful at most, and a list filled and emptied
        // on every frame cost more than the walk. A client dropped on the way replaces `clientList`;
        // the walk goes over this local reference to the old list, which keeps it alive.
        let list = clientList
        list.forEach { client in
            guard client.awaitsFlush else { return }
            client.awaitsFlush = false
            if client.isOpen { flush(client) }
        }
    }

    private func enqueue(_ client: Client, _ line: [UInt8]) {
        line.withUnsafeBufferPointer { enqueue(client, $0) }
    }

    private func enqueue(_ client: Client, _ line: UnsafeBufferPointer<UInt8>) {
        guard client.isOpen else { return }
        guard client.output.append(line, terminator: 0x0a, limit: queueLimit) else {
            drop(client.fd, reason: "stopped reading: \(client.output.count) bytes queued (its queue holds \(queueLimit) bytes); dropped so the others go on")
            return
        }
        if !client.awaitsFlush {
            client.awaitsFlush = true
            anyAwaitsFlush = true
        }
    }

    private func flush(_ client: Client) {
        if case .failed(let e) = client.output.flush(to: client.fd) {
            drop(client.fd, reason: "write error: \(String(cString: strerror(e)))")
            return
        }
        let want = client.output.count > 0
        if want != client.wantsWritable {
            client.wantsWritable = want
            loop.modify(client.fd, events: interest(client))
        }
    }

    private func drop(_ fd: Int32, reason: String?) {
        guard let client = clients.removeValue(forKey: fd) else { return }
        client.isOpen = false
        loop.remove(fd)
        close(fd)
        if let reason { log.info("client \(client.peer) \(reason)") }
        topicsChanged()
        onDisconnect?(client.id)
    }
}

public struct ServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
