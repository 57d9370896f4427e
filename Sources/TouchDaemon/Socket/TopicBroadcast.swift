import TouchProtocol
import TouchScene
import TouchSystem

/// The lines of each topic, to the clients subscribed to it. Each client has a bounded output queue; a
/// client that stops reading until its queue overflows is dropped (`onOverflow`), so a slow client never
/// blocks the daemon or the others. Lines made during one turn of the event loop go out in one send per
/// client (`flushQueued`).
package final class TopicBroadcast {
    /// Bytes a client may have waiting (beyond the kernel's socket buffer) before it is dropped.
    package var queueLimit: Int
    /// The clients, in the order they connected.
    package private(set) var clients: [ClientConnection] = []
    /// Some client has lines queued during this turn of the event loop (each such client has
    /// `awaitsFlush` set).
    private var anyAwaitsFlush = false
    /// A client's queue overflowed: the owner drops it.
    package var onOverflow: ((ClientConnection) -> Void)?
    /// Sends a client's queue as far as its socket takes it (the owner's, which knows the event loop).
    package var flush: ((ClientConnection) -> Void)?

    package init(queueLimit: Int) {
        self.queueLimit = queueLimit
    }

    package func add(_ client: ClientConnection) { clients.append(client) }

    package func remove(_ client: ClientConnection) { clients.removeAll { $0 === client } }

    /// Every topic some client wants.
    package var topics: Topics {
        var all: Topics = []
        for c in clients { all.formUnion(c.topics) }
        return all
    }

    /// Sends complete lines (one, or several separated by newlines; no newline after the last) to every
    /// client subscribed to `topic`.
    package func broadcast(_ lines: UnsafeBufferPointer<UInt8>, topic: Topics) {
        // A client dropped on the way replaces `clients`: the walk goes over this local reference to
        // the old list, which keeps it alive.
        let list = clients
        list.forEach { client in
            if client.topics.contains(topic) { enqueue(client, lines) }
        }
    }

    /// Queues lines for one client.
    package func enqueue(_ client: ClientConnection, _ lines: UnsafeBufferPointer<UInt8>) {
        guard client.isOpen else { return }
        guard client.output.append(lines, terminator: 0x0a, limit: queueLimit) else {
            onOverflow?(client)
            return
        }
        if !client.awaitsFlush {
            client.awaitsFlush = true
            anyAwaitsFlush = true
        }
    }

    package func enqueue(_ client: ClientConnection, _ line: [UInt8]) {
        line.withUnsafeBufferPointer { enqueue(client, $0) }
    }

    /// Sends what was queued during this turn of the event loop: one send per client, however many
    /// lines a burst of frames made (the event loop calls it before it sleeps again).
    package func flushQueued() {
        // Again while a pass queued more: a write that fails drops its client, and the daemon tells the
        // others of what went with it (a follower's focus cleared) while this walk is under way, maybe to
        // a client already walked past. Left for the next wakeup, that line would wait as long as the
        // daemon idles. Each further pass needs a client dropped, so the passes end.
        while anyAwaitsFlush {
            anyAwaitsFlush = false
            // The clients are looked at in place, no list of the waiting ones kept: a handful at most, and
            // a list filled and emptied on every frame cost more than the walk.
            let list = clients
            list.forEach { client in
                guard client.awaitsFlush else { return }
                client.awaitsFlush = false
                if client.isOpen { flush?(client) }
            }
        }
    }
}
