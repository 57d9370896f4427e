import Glibc
import Testing
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

@Suite("ByteBuffer: the JSON writer's storage and a client's unsent lines")
struct ByteBufferTests {
    @Test("Keeps every byte through growth, short and long appends; removeFirst keeps the rest in order")
    func appendsAndCompacts() {
        let b = ByteBuffer(capacity: 8)
        var expected: [UInt8] = []
        for n in [0, 1, 7, 8, 9, 255, 256, 257, 1000] {           // around the word loop and the memmove cut
            let piece = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }
            piece.withUnsafeBufferPointer { b.append($0) }
            b.append(0x0a)
            expected += piece + [0x0a]
        }
        #expect(Array(UnsafeBufferPointer(start: b.base, count: b.count)) == expected)
        b.removeFirst(300)
        #expect(Array(UnsafeBufferPointer(start: b.base, count: b.count)) == Array(expected.dropFirst(300)))
        b.removeFirst(b.count)
        #expect(b.count == 0)
    }

    @Test("removeAll keeps storage up to the limit and gives back what is above it")
    func removeAll() {
        let b = ByteBuffer()
        let big = [UInt8](repeating: 7, count: 5000)
        big.withUnsafeBufferPointer { b.append($0) }
        b.removeAll(keepingCapacityUpTo: 1 << 20)
        #expect(b.count == 0 && b.capacity >= 5000)
        big.withUnsafeBufferPointer { b.append($0) }
        b.removeAll(keepingCapacityUpTo: 1024)
        #expect(b.count == 0 && b.capacity == 64)
        b.append(1)
        #expect(b.count == 1 && b.base[0] == 1)
    }
}

@Suite("OutputQueue: what waits for a stream peer")
struct OutputQueueTests {
    /// A connected pair of non-blocking Unix stream sockets with the smallest send buffer, so that a
    /// peer that does not read fills it soon.
    func pair() -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
        var small: Int32 = 4096
        _ = setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(4))
        return (fds[0], fds[1])
    }

    func drain(_ fd: Int32) -> [UInt8] {
        var got: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { return got }
            got += chunk[0..<n]
        }
    }

    @Test("A peer that does not read: lines wait, in order, up to the limit; past it nothing is taken; once it reads, every byte arrives once")
    func waitsUpToTheLimitAndKeepsOrder() {
        let (ours, theirs) = pair()
        defer { close(ours); close(theirs) }
        let q = OutputQueue()
        let limit = 1 << 20
        var sent: [UInt8] = []
        var line = 0
        // Lines until the socket is full and the queue holds some: they wait, none is lost.
        while q.count < 200_000 {
            let text = Array("{\"line\":\(line)}".utf8)
            #expect(text.withUnsafeBufferPointer { q.append($0, terminator: 0x0a, limit: limit) })
            sent += text + [0x0a]
            line += 1
            if line % 100 == 0 { #expect(q.flush(to: FileDescriptor(rawValue: ours)) != .empty || q.count == 0) }
        }
        #expect(q.flush(to: FileDescriptor(rawValue: ours)) == .waiting)
        // Past the limit: refused, and nothing of it is queued.
        let before = q.count
        let big = [UInt8](repeating: 0x41, count: limit - before + 1)
        #expect(!q.append(big, limit: limit))
        #expect(q.count == before)
        // The peer reads: everything arrives, in order, once.
        var received: [UInt8] = []
        var result = OutputQueue.FlushResult.waiting
        while result == .waiting {
            received += drain(theirs)
            result = q.flush(to: FileDescriptor(rawValue: ours))
        }
        received += drain(theirs)
        #expect(result == .empty && q.count == 0)
        #expect(received == sent)
    }

    @Test("A peer that went away is a failure with its errno, not SIGPIPE")
    func peerGone() {
        let (ours, theirs) = pair()
        defer { close(ours) }
        close(theirs)
        let q = OutputQueue()
        #expect(q.append(Array("hello\n".utf8), limit: 100))
        #expect(q.flush(to: FileDescriptor(rawValue: ours)) == .failed(Errno(EPIPE)))
    }
}
