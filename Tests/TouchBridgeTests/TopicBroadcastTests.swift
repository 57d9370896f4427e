import Testing
@testable import TouchDaemon
@testable import TouchProtocol
@testable import TouchSystem

/// The socket's topics: what one turn of the event loop queued goes out before the daemon sleeps again.
@Suite("Topic broadcast: a flush that drops a client")
struct TopicBroadcastTests {
    @Test("A line told because a client was dropped during the flush goes out in that flush, even to a client already passed")
    func dropDuringFlush() {
        let topics = TopicBroadcast(queueLimit: 1 << 20)
        let watcher = ClientConnection(fd: FileDescriptor(rawValue: -1), id: 1, credentials: nil)
        let follower = ClientConnection(fd: FileDescriptor(rawValue: -1), id: 2, credentials: nil)
        watcher.topics = .focus
        follower.topics = []
        topics.add(watcher)
        topics.add(follower)
        var sent: [Int] = []                                    // the bytes each flush of the watcher sent
        // The follower's write fails (it closed before its answer): it is dropped, and the daemon tells
        // the watcher its focus is cleared, after the watcher was flushed in this pass.
        // Unowned: the broadcast keeps this closure (the daemon's own captures itself unowned likewise).
        topics.flush = { [unowned topics] client in
            if client === follower {
                follower.isOpen = false
                topics.remove(follower)
                topics.enqueue(watcher, Array(#"{"event":"focus","app":null}"#.utf8))
            } else {
                sent.append(client.output.count)
                client.output.removeAll()
            }
        }
        let firefox = Array(#"{"event":"focus","app":"firefox"}"#.utf8)
        topics.enqueue(watcher, firefox)
        topics.enqueue(follower, Array(#"{"event":"ok","command":"set"}"#.utf8))
        topics.flushQueued()
        #expect(sent == [firefox.count + 1, #"{"event":"focus","app":null}"#.utf8.count + 1], "both lines, in order, in one call")
        #expect(!watcher.awaitsFlush)
    }
}
