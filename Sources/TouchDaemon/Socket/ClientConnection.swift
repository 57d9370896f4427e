import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// One client of the gesture socket: its descriptor, who it is, what it subscribed to, the line it is
/// sending and the lines waiting to go to it.
package final class ClientConnection {
    package let fd: FileDescriptor
    /// Unique for the daemon's life: what owns a client scene.
    package let id: Int
    package let credentials: PeerCredentials?
    /// "pid 123 uid 1000" (or "unknown peer"), for the log.
    package let peer: String
    package var topics: Topics = .gestures
    /// What has come from the client and is not yet handed out: `input[start...]`; no newline before
    /// `scanned` (each byte is searched once, however the lines arrive: splitting is linear).
    private var input: [UInt8] = []
    private var start = 0
    private var scanned = 0
    /// Lines wait in `input` past this wakeup's budget: the socket is not read again until they are
    /// handed out (SocketServer takes them on the event loop's next pass).
    package var backlogged = false
    /// Lines not yet sent.
    package let output = OutputQueue()
    package var wantsWritable = false
    /// Has lines queued during this turn of the event loop (`TopicBroadcast.flushQueued`).
    package var awaitsFlush = false
    /// Still connected (false once dropped).
    package var isOpen = true
    /// The client has finished sending (EOF: `socat - … </dev/null`, a script that wrote its line):
    /// it keeps its subscription and gets its lines until it hangs up or a send fails.
    package var inputClosed = false

    package init(fd: FileDescriptor, id: Int, credentials: PeerCredentials?) {
        self.fd = fd
        self.id = id
        self.credentials = credentials
        peer = credentials?.description ?? "unknown peer"
    }

    /// What one wakeup may take from one client, so that a client sending as fast as it can (a flood of
    /// newlines, objects of thousands of keys) delays frames, the watchdog and the other clients by one
    /// bounded slice at most: bytes read from the socket, and the cost of the lines handed out (a line's
    /// bytes plus `lineCost`, so that blank lines count too).
    package static let readBudget = 64 * 1024
    package static let parseBudget = 16 * 1024
    package static let lineCost = 64

    /// What reading found.
    package enum Input {
        /// A complete line, without its newline.
        case line([UInt8])
        /// A line longer than the limit (a client bug): the connection is to be closed.
        case tooLong
        /// The client stopped sending (a last line without its newline came before as `.line`).
        case ended
        case failed(Errno)
    }

    /// Hands out the lines that wait, then reads what the client sent and hands each line out as it
    /// completes, within one wakeup's budget. `handle` returns false when the client was dropped
    /// meanwhile (reading stops). Returns true when complete lines still wait (the budget ran out):
    /// the caller comes back for them on the loop's next pass, without waiting for more input.
    package func read(limit: Int, _ handle: (Input) -> Bool) -> Bool {
        var spent = 0
        switch takeLines(limit: limit, spent: &spent, handle) {
        case .stopped: return false
        case .budgetSpent: return true
        case .drained: break
        }
        var buffer = [UInt8](repeating: 0, count: 16384)
        var received = 0
        while received < ClientConnection.readBudget {
            switch buffer.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0) }) {
            case .failure(let e):
                _ = handle(.failed(e))
                return false
            case .success(nil):
                return false
            case .success(0?):
                if start < input.count {
                    let line = Array(input[start...])
                    input = []
                    start = 0
                    scanned = 0
                    guard handle(.line(line)) else { return false }
                }
                inputClosed = true
                _ = handle(.ended)
                return false
            case .success(let n?):
                received += n
                input.append(contentsOf: buffer[0..<n])
                switch takeLines(limit: limit, spent: &spent, handle) {
                case .stopped: return false
                case .budgetSpent: return true
                case .drained: continue
                }
            }
        }
        // The read budget is spent; what the socket still holds wakes the loop again (level-triggered).
        return false
    }

    private enum Taken { case drained, budgetSpent, stopped }

    /// Hands out the complete lines in `input` until none is left or the budget is spent.
    private func takeLines(limit: Int, spent: inout Int, _ handle: (Input) -> Bool) -> Taken {
        while true {
            let newline: Int? = input.withUnsafeBufferPointer { b in
                guard scanned < b.count, let base = b.baseAddress,
                      let hit = memchr(base + scanned, 0x0a, b.count - scanned) else { return nil }
                return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            guard let nl = newline else {
                scanned = input.count
                if input.count - start > limit { _ = handle(.tooLong); return .stopped }
                compact()
                return .drained
            }
            guard nl - start <= limit else { _ = handle(.tooLong); return .stopped }
            if spent >= ClientConnection.parseBudget {
                scanned = nl
                if start >= ClientConnection.parseBudget { compact() }
                return .budgetSpent
            }
            let line = Array(input[start..<nl])
            spent += line.count + ClientConnection.lineCost
            start = nl + 1
            scanned = start
            guard handle(.line(line)) else { return .stopped }
        }
    }

    /// Drops what was handed out (once a wakeup, not once a line).
    private func compact() {
        guard start > 0 else { return }
        input.removeSubrange(0..<start)
        scanned -= start
        start = 0
    }
}
