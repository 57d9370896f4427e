import CWslay
import Glibc
import TouchProtocol
import TouchSystem

/// Where a WebSocket connection's bytes go: an HTTPServer peer's bounded queue (or, in the fuzz target,
/// memory).
package protocol WebSocketTransport: AnyObject {
    /// Appends to the output; false when it would then hold more than the transport allows.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool
    /// Bytes waiting to go out.
    var waiting: Int { get }
    /// Sends what it can; `closeAfter`: the connection ends once everything went.
    func flush(closeAfter: Bool)
    /// Ends the connection now.
    func drop()
}

/// An HTTPServer peer as a WebSocket's transport.
final class PeerTransport: WebSocketTransport {
    let peer: HTTPServer.Peer
    unowned let server: HTTPServer
    init(peer: HTTPServer.Peer, server: HTTPServer) {
        self.peer = peer
        self.server = server
    }
    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { peer.output.append(bytes, limit: server.queueLimit) }
    var waiting: Int { peer.output.count }
    func flush(closeAfter: Bool) {
        if closeAfter { peer.closeWhenSent = true }
        server.flush(peer)
    }
    func drop() { server.drop(peer) }
}

/// One WebSocket connection (RFC 6455) on a peer of the HTTPServer, after the upgrade. wslay does the
/// protocol (framing, masking, fragments, ping and pong, the close handshake) and no I/O: the server's
/// reads are handed to it (`received`), and what it writes goes to the peer's bounded output queue.
///
///     open ──close(code, reason)──▶ closing ──the close frame sent──▶ (dropped)
///       └────the client's close──▶ (wslay answers it) ──sent──▶ (dropped)
///
/// A client that falls behind (`backlogLimit` bytes waiting for it) is sent a close frame with the
/// reason and dropped once it is out, as the socket drops a slow reader; the others are not slowed.
package final class WebSocketConnection {
    package enum State: Equatable { case open, closing }

    /// What a client may send in one message (a control command is a line of JSON): more is closed with 1009.
    package static let maximumMessage = 64 * 1024
    /// Bytes waiting for a client before it is closed as too far behind (default the socket's 1 MiB,
    /// `--client-queue`).
    package static let defaultBacklog = 1024 * 1024
    package let backlogLimit: Int

    /// The HTTPServer peer it runs on (nil over another transport).
    package let peer: HTTPServer.Peer?
    private let transport: WebSocketTransport
    private var context: wslay_event_context_ptr?
    private var inbox: [UInt8] = []
    private var inboxStart = 0
    package private(set) var state = State.open
    /// A text or binary message from the client.
    package var onMessage: (WebSocketConnection, _ text: Bool, UnsafeRawBufferPointer) -> Void = { _, _, _ in }
    /// What the connection is for (the bridge's subscription), kept with it.
    package var info: AnyObject?

    package convenience init(peer: HTTPServer.Peer, server: HTTPServer, backlog: Int = WebSocketConnection.defaultBacklog,
                             maximumMessage: Int = WebSocketConnection.maximumMessage) throws {
        precondition(server.queueLimit > backlog + 1024, "the server's queue must fit a close frame past the backlog")
        try self.init(transport: PeerTransport(peer: peer, server: server), peer: peer, backlog: backlog, maximumMessage: maximumMessage)
        peer.owner = self
    }

    /// Over `transport`, which must take a close frame (at most 127 bytes) past `backlog`; a message
    /// longer than `maximumMessage` closes the connection (1009).
    package init(transport: WebSocketTransport, peer: HTTPServer.Peer? = nil, backlog: Int,
                 maximumMessage: Int = WebSocketConnection.maximumMessage) throws {
        self.transport = transport
        self.peer = peer
        backlogLimit = backlog
        var callbacks = Self.callbacks
        let rc = wslay_event_context_server_init(&context, &callbacks, Unmanaged.passUnretained(self).toOpaque())
        guard rc == 0, let context else { throw SocketError("wslay: cannot make a context (\(rc))") }
        wslay_event_config_set_max_recv_msg_length(context, UInt64(maximumMessage))
    }

    deinit { if let context { wslay_event_context_free(context) } }

    /// The handshake's answer to `Sec-WebSocket-Key`: base64(SHA-1(key + the RFC's GUID)), by nettle.
    package static func acceptKey(_ key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var sha = sha1_ctx()
        var digest = [UInt8](repeating: 0, count: Int(SHA1_DIGEST_SIZE))
        nettle_sha1_init(&sha)
        nettle_sha1_update(&sha, input.count, input)
        nettle_sha1_digest(&sha, digest.count, &digest)
        var out = [CChar](repeating: 0, count: (digest.count + 2) / 3 * 4)
        nettle_base64_encode_raw(&out, digest.count, digest)
        return String(decoding: out.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Bytes the client sent.
    package func received(_ bytes: UnsafeRawBufferPointer) {
        guard let context else { return }
        if inboxStart == inbox.count { inbox.removeAll(keepingCapacity: true); inboxStart = 0 }
        inbox.append(contentsOf: bytes)
        if wslay_event_recv(context) != 0 { return transport.drop() }
        pump()
    }

    /// Queues a message; false when the connection is closing (or was just closed as too far behind).
    @discardableResult
    package func send(_ bytes: UnsafeRawBufferPointer, text: Bool) -> Bool {
        guard state == .open, let context else { return false }
        if transport.waiting >= backlogLimit {
            close(code: UInt16(WSLAY_CODE_POLICY_VIOLATION.rawValue), reason: "too far behind: \(transport.waiting) bytes waited for this client")
            return false
        }
        var msg = wslay_event_msg(opcode: UInt8(text ? WSLAY_TEXT_FRAME.rawValue : WSLAY_BINARY_FRAME.rawValue),
                                  msg: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), msg_length: bytes.count)
        guard wslay_event_queue_msg(context, &msg) == 0 else { return false }
        return true
    }

    /// Sends a close frame with `reason` (at most 123 bytes of it) and drops the connection once it is out.
    package func close(code: UInt16, reason: String) {
        guard state == .open, let context else { return }
        state = .closing
        let r = Array(reason.utf8.prefix(123))
        wslay_event_queue_close(context, code, r, r.count)
        pump()
    }

    /// wslay's close frame went out (the connection ends once it is sent).
    package var closeSent: Bool { context.map { wslay_event_get_close_sent($0) != 0 } ?? true }

    /// Writes what wslay has queued into the transport, and sends it.
    package func pump() {
        guard let context else { return }
        if wslay_event_want_write(context) != 0, wslay_event_send(context) != 0 { return transport.drop() }
        transport.flush(closeAfter: wslay_event_get_close_sent(context) != 0)
    }

    // MARK: wslay's callbacks

    private static func from(_ user: UnsafeMutableRawPointer?) -> WebSocketConnection {
        Unmanaged<WebSocketConnection>.fromOpaque(user!).takeUnretainedValue()
    }

    private static let callbacks = wslay_event_callbacks(
        recv_callback: { context, buffer, length, _, user in
            let c = WebSocketConnection.from(user)
            let available = c.inbox.count - c.inboxStart
            guard available > 0, let buffer else {
                wslay_event_set_error(context, Int32(WSLAY_ERR_WOULDBLOCK.rawValue))
                return -1
            }
            let n = min(available, length)
            c.inbox.withUnsafeBufferPointer { _ = memcpy(buffer, $0.baseAddress! + c.inboxStart, n) }
            c.inboxStart += n
            return n
        },
        send_callback: { context, data, length, _, user in
            let c = WebSocketConnection.from(user)
            // Into the peer's queue (bounded above the backlog limit, so a close frame always fits).
            guard let data, c.transport.append(UnsafeBufferPointer(start: data, count: length)) else {
                wslay_event_set_error(context, Int32(WSLAY_ERR_CALLBACK_FAILURE.rawValue))
                return -1
            }
            return length
        },
        genmask_callback: nil,
        on_frame_recv_start_callback: nil,
        on_frame_recv_chunk_callback: nil,
        on_frame_recv_end_callback: nil,
        on_msg_recv_callback: { _, arg, user in
            guard let arg else { return }
            let c = WebSocketConnection.from(user)
            let op = arg.pointee.opcode
            guard op == UInt8(WSLAY_TEXT_FRAME.rawValue) || op == UInt8(WSLAY_BINARY_FRAME.rawValue) else { return }
            c.onMessage(c, op == UInt8(WSLAY_TEXT_FRAME.rawValue), UnsafeRawBufferPointer(start: arg.pointee.msg, count: arg.pointee.msg_length))
        })
}
