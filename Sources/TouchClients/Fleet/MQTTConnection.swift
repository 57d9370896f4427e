import CMosquitto
import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// One MQTT connection through libmosquitto, driven from our epoll loop (no thread of libmosquitto's
/// own): its socket is watched for input, and for output while libmosquitto has bytes to write; a timer
/// runs `mosquitto_loop_misc` (keep-alive) every second and reconnects with backoff when the broker is
/// away. The broker's last will is `offline` on the status topic, retained.
///
///     disconnected(retryAt) ──time──▶ connecting ──CONNACK 0──▶ connected
///            ▲                            │                        │
///            └──── refused, lost, failed ─┴────────────────────────┘
///
/// QoS 1 messages published while not connected wait in a bounded queue (`queueLimit` messages, and
/// `queueByteLimit` bytes); past it the oldest are dropped, and the count is logged when the broker is
/// back. A publish that libmosquitto refuses goes through the same bound (`enqueue`).
package final class MQTTConnection {
    package enum State: Equatable {
        case disconnected(retryAt: Double)
        case connecting
        case connected
    }

    package private(set) var state = State.disconnected(retryAt: 0) {
        didSet { hearLibraryLog(state != .connected) }
    }
    private let mosq: OpaquePointer
    package let config: MQTTConfig
    private let loop: EventLoop
    private let log: Logger
    private let timer: Timer
    /// libmosquitto's socket while watched (it changes on each reconnect).
    private var watched: FileDescriptor?
    private var wantsWrite = false
    private var backoff = Backoff(first: MQTTConnection.firstBackoff, maximum: MQTTConnection.maximumBackoff)
    private var queue: [(topic: String, payload: [UInt8], retain: Bool)] = []
    /// The payload bytes `queue` holds: bounded too (`queueByteLimit`), whatever the messages' count.
    private var queuedBytes = 0
    package static let queueByteLimit = 64 * 1024 * 1024
    private var dropped = 0
    /// Messages handed to the broker's connection, for the log at exit.
    package private(set) var published = 0
    /// The broker accepted the connection (again): retained state and discovery are due.
    package var onConnected: (() -> Void)?
    /// A message on a subscribed topic: its topic, payload, and whether the broker replayed it as
    /// retained (a message kept from before this subscription, not one just published).
    package var onMessage: ((String, [UInt8], Bool) -> Void)?

    package static let firstBackoff = 0.5, maximumBackoff = 30.0
    nonisolated(unsafe) private static var initialized = false

    package init(config: MQTTConfig, clientID: String, willTopic: String, loop: EventLoop, log: Logger) throws {
        if !Self.initialized { mosquitto_lib_init(); Self.initialized = true }
        guard let m = mosquitto_new(clientID, true, nil) else { throw MQTTConfigError(description: "libmosquitto: cannot make a client: \(Errno.current)") }
        mosq = m
        self.config = config
        self.loop = loop
        self.log = log
        timer = try Timer()
        mosquitto_user_data_set(m, Unmanaged.passUnretained(self).toOpaque())
        hearLibraryLog(true)
        _ = mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, Int32(config.protocolVersion == 5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311))
        if let u = config.username {
            guard mosquitto_username_pw_set(m, u, config.password) == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTConfigError(description: "libmosquitto: the username or password is not valid UTF-8")
            }
        }
        let offline = Array("offline".utf8)
        _ = mosquitto_will_set(m, willTopic, Int32(offline.count), offline, 1, true)
        if config.scheme == .mqtts {
            // The broker's certificate is verified against the CA given, or the system's; its name must
            // match the host (tls_insecure stays false).
            if config.cafile == nil { _ = mosquitto_int_option(m, MOSQ_OPT_TLS_USE_OS_CERTS, 1) }
            let rc = mosquitto_tls_set(m, config.cafile, config.cafile == nil ? "/etc/ssl/certs" : nil, config.certfile, config.keyfile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTConfigError(description: "TLS: \(String(cString: mosquitto_strerror(rc))) (cafile \(config.cafile ?? "the system's"), certfile \(config.certfile ?? "none"))")
            }
            _ = mosquitto_tls_opts_set(m, 1, nil, nil)
            _ = mosquitto_tls_insecure_set(m, false)
        }
        mosquitto_connect_callback_set(m) { _, obj, rc in
            guard let obj else { return }
            Unmanaged<MQTTConnection>.fromOpaque(obj).takeUnretainedValue().connected(rc)
        }
        mosquitto_message_callback_set(m) { _, obj, message in
            guard let obj, let message else { return }
            let topic = String(cString: message.pointee.topic)
            let payload = message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.pointee.payloadlen))) } ?? []
            Unmanaged<MQTTConnection>.fromOpaque(obj).takeUnretainedValue().onMessage?(topic, payload, message.pointee.retain)
        }
        try loop.add(timer.fd) { [unowned self] _ in
            timer.acknowledge()
            tick()
        }
        timer.arm(at: monotonicNow() + 1, interval: 1)
    }

    deinit {
        mosquitto_destroy(mosq)
    }

    /// Connects (or tries again at the next tick).
    package func start() {
        connect()
    }

    private func connect() {
        state = .connecting
        let rc = mosquitto_connect_async(mosq, config.host, Int32(config.port), 30)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            lost("cannot connect to \(config.scheme.rawValue)://\(config.host):\(config.port): \(reason(rc))")
            return
        }
        watch()
    }

    /// The CONNACK (libmosquitto's on_connect): 0 accepted, else refused.
    private func connected(_ rc: Int32) {
        guard rc == 0 else {
            let why = String(cString: mosquitto_connack_string(rc))
            lost("the broker refused the connection: \(why)" + (rc == 4 || rc == 5 || rc == 134 || rc == 135 ? " (check username and passwordFile)" : ""))
            return
        }
        state = .connected
        backoff.reset()
        log.info("connected to \(config.scheme.rawValue)://\(config.host):\(config.port)")
        if dropped > 0 {
            log.warning("\(dropped) message\(dropped == 1 ? "" : "s") dropped while the broker was away (the queue holds \(config.queueLimit))")
            dropped = 0
        }
        onConnected?()
        let waiting = queue
        queue = []
        queuedBytes = 0
        for m in waiting { publish(m.topic, m.payload, retain: m.retain) }
        updateInterest()
    }

    /// Publishes at the configured QoS; queued while not connected (QoS 1), dropped at QoS 0.
    package func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false, qos: Int? = nil) {
        let q = qos ?? config.qos
        guard state == .connected else {
            if q > 0 { enqueue(topic, payload, retain) }
            return
        }
        let rc = payload.withUnsafeBytes { mosquitto_publish(mosq, nil, topic, Int32($0.count), $0.baseAddress, Int32(q), retain) }
        if rc == MOSQ_ERR_SUCCESS.rawValue { published += 1 }
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            if q > 0 { enqueue(topic, payload, retain) }
            if rc == MOSQ_ERR_NO_CONN.rawValue || rc == MOSQ_ERR_CONN_LOST.rawValue { lost("connection lost") }
            else { log.error("publish to \(topic): \(reason(rc))") }
            return
        }
        updateInterest()
    }

    /// Keeps a message for the broker's return within the one bound of the queue: the oldest go first.
    private func enqueue(_ topic: String, _ payload: [UInt8], _ retain: Bool) {
        queue.append((topic, payload, retain))
        queuedBytes += payload.count
        var drop = 0
        while queue.count - drop > config.queueLimit || (queuedBytes > Self.queueByteLimit && queue.count - drop > 1) {
            queuedBytes -= queue[drop].payload.count
            drop += 1
        }
        if drop > 0 {
            queue.removeFirst(drop)
            dropped += drop
        }
        assert(queue.count <= config.queueLimit)
    }

    package func subscribe(_ topic: String) {
        _ = mosquitto_subscribe(mosq, nil, topic, 1)
        updateInterest()
    }

    /// A clean goodbye: what is written is flushed, then DISCONNECT (the will is not sent).
    package func close() {
        log.info("published \(published) message\(published == 1 ? "" : "s")" + (queue.isEmpty ? "" : "; \(queue.count) still queued for a broker that is away"))
        if state == .connected {
            for _ in 0..<20 where mosquitto_want_write(mosq) { _ = mosquitto_loop_write(mosq, 1) }
            _ = mosquitto_disconnect(mosq)
        }
        unwatch()
        loop.remove(timer.fd)
        timer.arm(at: nil)
    }

    /// libmosquitto's own errors (a TLS verification failure names the certificate's problem; it never
    /// logs a password) go to our log while a connection is being made. Once connected the callback is
    /// off: with one set, libmosquitto formats a debug message for every packet it sends or receives
    /// (a malloc, a vsnprintf and a lock each, none of which we would print), and a loss mid-session is
    /// logged by us with libmosquitto's return code.
    private func hearLibraryLog(_ on: Bool) {
        guard on != hearsLibraryLog else { return }
        hearsLibraryLog = on
        mosquitto_log_callback_set(mosq, on ? MQTTConnection.libraryLog : nil)
    }

    private var hearsLibraryLog = false

    private static let libraryLog: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = { _, obj, level, text in
        guard let obj, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
        Unmanaged<MQTTConnection>.fromOpaque(obj).takeUnretainedValue().log.error("libmosquitto: " + String(cString: text))
    }

    // MARK: The loop

    private func watch() {
        let raw = mosquitto_socket(mosq)
        guard raw >= 0 else { return }
        let fd = FileDescriptor(rawValue: raw)
        if fd != watched {
            unwatch()
            watched = fd
            try? loop.add(fd, events: .readable) { [unowned self] events in ready(events) }
            wantsWrite = false
        }
        updateInterest()
    }

    private func unwatch() {
        if let watched { loop.remove(watched) }
        watched = nil
    }

    private func updateInterest() {
        guard let watched else { return }
        let w = mosquitto_want_write(mosq) || state == .connecting
        if w != wantsWrite {
            wantsWrite = w
            loop.modify(watched, events: w ? [.readable, .writable] : .readable)
        }
    }

    private func ready(_ events: EventLoop.Events) {
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.closed) {
            let rc = mosquitto_loop_read(mosq, 16)
            if rc != MOSQ_ERR_SUCCESS.rawValue { return lost("connection lost: \(reason(rc))") }
        }
        if mosquitto_want_write(mosq) || events.contains(.writable) {
            let rc = mosquitto_loop_write(mosq, 16)
            if rc != MOSQ_ERR_SUCCESS.rawValue { return lost("connection lost: \(reason(rc))") }
        }
        updateInterest()
    }

    private func tick() {
        switch state {
        case .connected, .connecting:
            let rc = mosquitto_loop_misc(mosq)
            if rc != MOSQ_ERR_SUCCESS.rawValue { lost("connection lost: \(reason(rc))") }
        case .disconnected(let at):
            if monotonicNow() >= at {
                log.info("connecting to \(config.scheme.rawValue)://\(config.host):\(config.port) again")
                let rc = mosquitto_reconnect_async(mosq)
                if rc == MOSQ_ERR_SUCCESS.rawValue { state = .connecting; watch() } else {
                    // Said at every attempt (the backoff bounds them), with why: not only "again".
                    lost("cannot connect to \(config.scheme.rawValue)://\(config.host):\(config.port): \(reason(rc))", always: true)
                }
            }
        }
    }

    private func lost(_ why: String, always: Bool = false) {
        unwatch()
        let retry = backoff.next()
        if case .disconnected = state, !always {} else { log.warning("\(why); trying again in \(retry) s") }
        state = .disconnected(retryAt: monotonicNow() + retry)
    }

    private func reason(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue {
            let e = Errno.current
            if e == .connectionRefused {
                return "\(e) (is the broker running there? systemctl status mosquitto; or correct \"broker\" in \(config.file ?? "the configuration"))"
            }
            return "\(e)"
        }
        return String(cString: mosquitto_strerror(rc))
    }
}
