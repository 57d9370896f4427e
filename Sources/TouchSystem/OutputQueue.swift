
/// What waits for one non-blocking stream socket: the gesture socket's clients and the visualizer's
/// pages. Bytes are appended as lines are made and sent when the socket takes them; a peer that stops
/// reading is never waited for: the queue refuses to hold more than its owner's limit, and the owner
/// drops that peer, so the others go on.
package final class OutputQueue {
    package init() {}

    /// Queued bytes; those before `start` went out already.
    private let bytes = ByteBuffer()
    private var start = 0

    /// Bytes waiting to be sent.
    package var count: Int { bytes.count - start }

    /// What a flush left behind.
    package enum FlushResult: Equatable {
        /// Everything went out.
        case empty
        /// The socket is full; the rest goes when it is writable again.
        case waiting
        /// The socket failed (the peer went away).
        case failed(Errno)
    }

    /// Appends `line` and then `terminator` (if any), unless the queue would then hold more than `limit`
    /// bytes: then nothing is appended and the answer is false.
    @inline(__always)
    package func append(_ line: UnsafeBufferPointer<UInt8>, terminator: UInt8? = nil, limit: Int) -> Bool {
        let n = line.count + (terminator == nil ? 0 : 1)
        guard count + n <= limit else { return false }
        bytes.append(line)
        if let terminator { bytes.append(terminator) }
        return true
    }

    package func append(_ data: [UInt8], limit: Int) -> Bool {
        data.withUnsafeBufferPointer { append($0, limit: limit) }
    }

    /// Sends as much as `fd` takes now (MSG_DONTWAIT: never blocks; MSG_NOSIGNAL: a closed peer is an
    /// error, not SIGPIPE).
    package func flush(to fd: FileDescriptor) -> FlushResult {
        while count > 0 {
            switch UnixSocket.sendNow(fd, UnsafeRawBufferPointer(start: bytes.base + start, count: count)) {
            case .failure(let e): return .failed(e)
            case .success(0): break
            case .success(let n): start += n; continue
            }
            break
        }
        if count == 0 {
            // The storage is kept (up to 256 KiB) for the next burst rather than freed and grown again.
            bytes.removeAll(keepingCapacityUpTo: 256 * 1024)
            start = 0
            return .empty
        }
        // What went out is given back once it is worth a move (64 KiB), not on every partial send.
        if start > 65536 {
            bytes.removeFirst(start)
            start = 0
        }
        return .waiting
    }

    /// Forgets what waits (its peer is gone).
    package func removeAll() {
        bytes.removeAll(keepingCapacityUpTo: 256 * 1024)
        start = 0
    }
}
