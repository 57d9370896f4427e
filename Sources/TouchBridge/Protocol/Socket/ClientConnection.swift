import TouchInput

/// One client of the gesture socket: its descriptor, who it is, what it subscribed to, the line it is
/// sending and the lines waiting to go to it.
final class ClientConnection {
    let fd: FileDescriptor
    /// Unique for the daemon's life: what owns a client scene.
    let id: Int
    let credentials: PeerCredentials?
    /// "pid 123 uid 1000" (or "unknown peer"), for the log.
    let peer: String
    var topics: Topics = .gestures
    /// What has come of the line being sent.
    private var input: [UInt8] = []
    /// Lines not yet sent.
    let output = OutputQueue()
    var wantsWritable = false
    /// Has lines queued during this turn of the event loop (`TopicBroadcast.flushQueued`).
    var awaitsFlush = false
    /// Still connected (false once dropped).
    var isOpen = true
    /// The client has finished sending (EOF: `socat - … </dev/null`, a script that wrote its line):
    /// it keeps its subscription and gets its lines until it hangs up or a send fails.
    var inputClosed = false

    init(fd: FileDescriptor, id: Int) {
        self.fd = fd
        self.id = id
        credentials = PeerCredentials.of(fd)
        peer = credentials?.description ?? "unknown peer"
    }

    /// What reading found.
    enum Input {
        /// A complete line, without its newline.
        case line([UInt8])
        /// A line longer than the limit (a client bug): the connection is to be closed.
        case tooLong
        /// The client stopped sending (a last line without its newline came before as `.line`).
        case ended
        case failed(Errno)
    }

    /// Reads what the client sent and hands each line out as it completes, until nothing more is
    /// waiting. `handle` returns false when the client was dropped meanwhile (reading stops).
    func read(limit: Int, _ handle: (Input) -> Bool) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            switch buffer.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0) }) {
            case .failure(let e):
                _ = handle(.failed(e))
                return
            case .success(nil):
                return
            case .success(0?):
                if !input.isEmpty {
                    let line = input
                    input = []
                    guard handle(.line(line)) else { return }
                }
                inputClosed = true
                _ = handle(.ended)
                return
            case .success(let n?):
                input.append(contentsOf: buffer[0..<n])
                while let nl = input.firstIndex(of: 0x0a) {
                    let line = Array(input[..<nl])
                    input.removeSubrange(...nl)
                    guard line.count <= limit else { _ = handle(.tooLong); return }
                    guard handle(.line(line)) else { return }
                }
                if input.count > limit { _ = handle(.tooLong); return }
            }
        }
    }
}
