import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// The gesture socket: newline-delimited JSON over a Unix stream socket (docs/protocol.md). Its parts:
/// where it listens (SocketListener: a path, or systemd's socket), each client (ClientConnection: its
/// line in, its queue out), and the topics' lines to their subscribers (TopicBroadcast). Here: taking
/// connections, and carrying out what clients send.
///
/// Client lines are commands (`{"subscribe": [...]}`, and for permitted peers `set` and `scene`); a bad
/// one gets an error line and the connection stays usable; a line over 64 KiB is an error and closes
/// that client. A client that stops reading is dropped once its queue is full (TopicBroadcast).
public final class SocketServer {
    public static let maximumLineLength = 64 * 1024
    /// Bytes a client may have waiting (beyond the kernel's 64 KiB socket buffer) before it is dropped.
    public static let defaultQueueLimit = 1024 * 1024
    public var queueLimit: Int {
        get { topics.queueLimit }
        set { topics.queueLimit = newValue }
    }
    public static let maximumClients = 512
    /// Connections one uid may hold (docs/protocol.md, "Flow and limits"); root and the daemon's own user are not
    /// counted against it. `touchbridged --max-clients-per-uid`.
    public static let defaultClientsPerUID = 64
    public var clientsPerUID = SocketServer.defaultClientsPerUID
    /// Slots of the `maximumClients` only control peers may take: readers of many uids together cannot
    /// lock root out (`touchbridgectl disable` always finds a slot).
    public static let controlReserve = 16
    /// Connections by uid (those counted against `clientsPerUID`).
    private var perUID: [UInt32: Int] = [:]
    /// Refusals not yet logged, by uid: said at most once every 10 s a uid, with their count.
    private var refusals: [UInt32: (count: Int, lastSaid: Double)] = [:]

    /// The socket file (nil: systemd's socket).
    public var path: String? { listener.path }
    private let listener: SocketListener
    private let loop: EventLoop
    private let log: Logger
    private let topics = TopicBroadcast(queueLimit: SocketServer.defaultQueueLimit)
    /// The clients by descriptor, for the event loop's wakeups.
    private var clients: [FileDescriptor: ClientConnection] = [:]
    /// The first line every client gets.
    public var hello: [UInt8] = []
    /// Lines sent right after a subscription (the devices present for "devices", the scene for
    /// "scene", every recognizer's state for "recognizers"), given the topics subscribed.
    public var onSubscribe: ((Topics) -> [[UInt8]])?
    /// Carries out a control command (`set`, `scene`) of a permitted peer; a refusal changes nothing.
    /// Carries out a control command: its warning for the `ok` line (nil: none), or the refusal.
    public var onControl: ((ControlRequest) -> Result<String?, ClientCommand.Refusal>)?
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

    /// Listens on `path` (mode 0660, `group` when given), or on the socket systemd passed (LISTEN_FDS).
    public init(path: String?, group: String?, loop: EventLoop, log: Logger) throws {
        self.loop = loop
        self.log = log
        listener = try SocketListener(path: path, group: group, log: log)
        topics.onOverflow = { [unowned self] client in
            self.drop(client, reason: "stopped reading: \(client.output.count) bytes queued (its queue holds \(self.queueLimit) bytes); dropped so the others go on")
        }
        topics.flush = { [unowned self] client in self.flush(client) }
        try loop.add(listener.fd) { [unowned self] _ in self.acceptAll() }
    }

    /// Stops listening (the socket file is removed unless systemd owns it), then closes every client:
    /// a client that connects again at once finds no daemon there, not one that is going away.
    public func shutdown() {
        flushQueued()
        loop.remove(listener.fd)
        listener.close()
        for client in topics.clients { drop(client, reason: nil) }
    }

    public var clientCount: Int { clients.count }

    // MARK: Output

    /// Sends one line to every client subscribed to `topic`.
    public func broadcast(_ line: [UInt8], topic: Topics) {
        line.withUnsafeBufferPointer { topics.broadcast($0, topic: topic) }
    }

    /// Sends complete lines (one, or several separated by newlines; no newline after the last).
    public func broadcast(_ lines: UnsafeBufferPointer<UInt8>, topic: Topics) {
        topics.broadcast(lines, topic: topic)
    }

    /// Sends what was queued during this turn of the event loop: one send per client, however many
    /// lines a burst of frames made (the event loop calls it before it sleeps again).
    public func flushQueued() { topics.flushQueued() }

    // MARK: Clients

    private func acceptAll() {
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try listener.accept() else { return }
                fd = accepted
            } catch {
                log.warning("\(error)")
                return
            }
            let credentials = PeerCredentials.of(fd)
            if let refusal = admission(credentials) {
                let line = ErrorLine.encode(refusal) + [0x0a]
                _ = line.withUnsafeBytes { UnixSocket.sendNow(fd, $0) }
                fd.close()
                refused(credentials, refusal)
                continue
            }
            // A modest kernel buffer: a client that stops reading shows up in its queue soon.
            UnixSocket.setSendBuffer(fd, bytes: 65536)
            connections += 1
            let client = ClientConnection(fd: fd, id: connections, credentials: credentials)
            do {
                try loop.add(fd, events: [.readable, .hangup]) { [unowned self, unowned client] ev in self.service(client, ev) }
            } catch {
                log.warning("cannot watch client \(client.peer): \(error)")
                client.isOpen = false
                fd.close()
                continue
            }
            clients[fd] = client
            if let uid = countedUID(credentials) { perUID[uid, default: 0] += 1 }
            topics.add(client)
            log.info("client connected: \(client.peer)")
            topics.enqueue(client, hello)
            topicsChanged()
        }
    }

    /// The uid a connection counts against, or nil for root and the daemon's user (never bounded by uid).
    private func countedUID(_ credentials: PeerCredentials?) -> UInt32? {
        guard let uid = credentials?.uid else { return UInt32.max }      // unknown peers share one count
        return uid == 0 || uid == controlPolicy.daemonUID ? nil : uid
    }

    /// Why a new connection is refused, or nil: the total, the slots kept for control peers, the uid's
    /// own bound.
    private func admission(_ credentials: PeerCredentials?) -> String? {
        guard clients.count < SocketServer.maximumClients else {
            return "too many clients (\(SocketServer.maximumClients)); try again later"
        }
        let control = credentials.map { controlPolicy.permits($0) } ?? false
        if !control && clients.count >= SocketServer.maximumClients - SocketServer.controlReserve {
            return "too many clients (\(clients.count)); the last \(SocketServer.controlReserve) of \(SocketServer.maximumClients) are kept for control peers; try again later"
        }
        if let uid = countedUID(credentials), perUID[uid, default: 0] >= clientsPerUID {
            return "too many connections from uid \(uid) (\(clientsPerUID)); close some (touchbridged --max-clients-per-uid raises the bound)"
        }
        return nil
    }

    /// Logs refusals at most once every 10 s per uid, with how many there were: a peer that connects in a
    /// loop cannot fill the journal either.
    private func refused(_ credentials: PeerCredentials?, _ refusal: String) {
        let uid = credentials?.uid ?? UInt32.max, now = monotonicNow()
        var r = refusals[uid] ?? (0, -Double.infinity)
        r.count += 1
        if now - r.lastSaid >= 10 {
            log.warning("refused \(r.count) connection\(r.count == 1 ? "" : "s") of \(credentials?.description ?? "an unknown peer"): \(refusal)")
            r = (0, now)
        }
        refusals[uid] = r
    }

    private func service(_ client: ClientConnection, _ events: EventLoop.Events) {
        if events.contains(.writable) { flush(client) }
        guard client.isOpen else { return }
        if !client.inputClosed && !events.isDisjoint(with: [.readable, .hangup]) { readInput(client) }
        guard client.isOpen else { return }
        // Gone both ways: nobody reads what we would send.
        if !events.isDisjoint(with: .closed) { drop(client, reason: "disconnected") }
    }

    /// What the loop watches a client for: its lines until it stops sending, room to write while lines
    /// wait; a hang-up always.
    private func interest(_ client: ClientConnection) -> EventLoop.Events {
        // A client whose lines wait past its budget is not read until they are handed out.
        let reading: EventLoop.Events = client.inputClosed || client.backlogged ? [] : [.readable, .hangup]
        return reading.union(client.wantsWritable ? .writable : [])
    }

    /// Reads and carries out a bounded slice of what the client sent (ClientConnection's budget); lines
    /// past it wait for the loop's next pass, after the frames, timers and clients ready by then.
    private func readInput(_ client: ClientConnection) {
        let more = client.read(limit: SocketServer.maximumLineLength) { input in
            switch input {
            case .line(let line):
                handleLine(client, line)
            case .ended:
                // The client stopped sending; it may still be reading.
                loop.modify(client.fd, events: interest(client))
            case .tooLong:
                sendError(client, "line longer than \(SocketServer.maximumLineLength / 1024) KiB; closing the connection")
                flush(client)
                drop(client, reason: "sent a line over \(SocketServer.maximumLineLength / 1024) KiB (client bug)")
            case .failed(let e):
                drop(client, reason: "read error: \(e)")
            }
            return client.isOpen
        }
        guard more, client.isOpen, !client.backlogged else { return }
        client.backlogged = true
        loop.modify(client.fd, events: interest(client))
        loop.soon { [weak self, weak client] in
            guard let self, let client, client.isOpen else { return }
            client.backlogged = false
            self.loop.modify(client.fd, events: self.interest(client))
            self.readInput(client)
        }
    }

    /// A client's line (ClientCommand.swift): carried out whole, or refused whole.
    private func handleLine(_ client: ClientConnection, _ line: [UInt8]) {
        // A peer that may only read is refused a control command before it is parsed: parsing comes
        // first only where it must (a reader's subscribe).
        if let key = ClientCommand.leadingKey(line), key == "set" || key == "scene", !mayControl(client) {
            return refuseControl(client, key)
        }
        let command: ClientCommand?
        do { command = try ClientCommand.parse(line) } catch { return sendError(client, error.message) }
        switch command {
        case nil:
            return
        case .subscribe(let subscribed, let names):
            client.topics = subscribed
            topics.enqueue(client, SubscribedLine.encode(topics: ClientCommand.topicNames.filter { names.contains($0) }))
            for l in onSubscribe?(subscribed) ?? [] { topics.enqueue(client, l) }
            topicsChanged()
        case let command?:
            guard let peer = client.credentials, mayControl(client) else { return refuseControl(client, command.name) }
            let result = onControl?(ControlRequest(connection: client.id, peer: peer, command: command))
                ?? .failure(ClientCommand.Refusal(message: "\(command.name): not available here"))
            switch result {
            case .success(let warning):
                log.info("client \(client.peer): \(command.name) accepted\(command.logDetail)" + (warning.map { " (\($0))" } ?? ""))
                topics.enqueue(client, OkLine.encode(command: command.name, warning: warning))
            case .failure(let refusal):
                sendError(client, refusal.message)
            }
            onControlAnswered?()
        }
    }

    private func mayControl(_ client: ClientConnection) -> Bool {
        client.credentials.map { controlPolicy.permits($0) } ?? false
    }

    /// A control command from a peer that may not send one: logged, and answered with what would permit it.
    private func refuseControl(_ client: ClientConnection, _ command: String) {
        let who = client.credentials ?? PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
        log.warning("client \(client.peer): \(command) refused: not permitted")
        sendError(client, controlPolicy.refusal(of: who, command: command))
    }

    private func sendError(_ client: ClientConnection, _ message: String) {
        topics.enqueue(client, ErrorLine.encode(message))
    }

    private func topicsChanged() {
        onTopicsChanged?(topics.topics)
    }

    private func flush(_ client: ClientConnection) {
        if case .failed(let e) = client.output.flush(to: client.fd) {
            drop(client, reason: "write error: \(e)")
            return
        }
        let want = client.output.count > 0
        if want != client.wantsWritable {
            client.wantsWritable = want
            loop.modify(client.fd, events: interest(client))
        }
    }

    private func drop(_ client: ClientConnection, reason: String?) {
        guard client.isOpen else { return }
        client.isOpen = false
        clients[client.fd] = nil
        topics.remove(client)
        loop.remove(client.fd)
        client.fd.close()
        if let uid = countedUID(client.credentials), let n = perUID[uid] { perUID[uid] = n > 1 ? n - 1 : nil }
        if let reason { log.info("client \(client.peer) \(reason)") }
        topicsChanged()
        onDisconnect?(client.id)
    }
}
