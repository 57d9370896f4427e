import Glibc
import Testing
import TouchCore
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// The repository's root and the built executables (`swift build --build-tests` builds them too).
enum Built {
    static let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    static var daemon: String { root + "/.build/debug/touchbridged" }
}

@Suite("A Swift client of the real daemon")
struct DaemonClientTests {
    @Test("touchbridged --replay sends exactly the gestures touchbridgectl replay computes (times shifted onto CLOCK_MONOTONIC)")
    func replayMatchesOffline() throws {
        guard access(Built.daemon, X_OK) == 0 else {
            Issue.record("\(Built.daemon) is not built: run `swift build --build-tests`")
            return
        }
        let recording = Built.root + "/Tests/Fixtures/evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu"
        let expected = try OfflineReplay.lines(of: try Recording.load(path: recording), scene: nil,
                                               log: Logger(program: "test", level: .error)).map { try JSONParser.parse($0) }
        let socketPath = "/tmp/tb-swift-client-\(getpid()).sock"
        var pid: pid_t = 0
        let argv = [Built.daemon, "--no-devices", "--socket", socketPath, "--replay", recording, "--replay-delay", "0.3"]
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        #expect(posix_spawn(&pid, Built.daemon, &actions, nil, cArgs, environ) == 0)
        posix_spawn_file_actions_destroy(&actions)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            #expect(access(socketPath, F_OK) != 0)      // SIGTERM removed the socket
        }
        // The clients' one connection: it tries again until the daemon listens.
        let loop = try EventLoop()
        let daemon = try DaemonConnection(path: socketPath, topics: ["gestures"], loop: loop,
                                          backoff: Backoff(first: 0.02, maximum: 0.02))
        let deadline = try Timer()
        try loop.add(deadline.fd) { _ in loop.stop() }
        deadline.arm(at: monotonicNow() + 30)
        var firstLines: [DaemonLine.Event] = []
        var live: [JSON] = []
        daemon.onLine = { line in
            if firstLines.count < 2 {
                firstLines.append(line.event)
                if line.event == .hello, let json = line.json { #expect(HelloLine.decode(json)?.protocolVersion == 2) }
                return
            }
            if let json = line.json { live.append(json) }
            if live.count == expected.count { loop.stop() }
        }
        daemon.start()
        loop.run()
        daemon.stop()
        loop.remove(deadline.fd)
        #expect(firstLines == [.hello, .subscribed])
        #expect(live.count == expected.count)
        let offset = (live.first?["time"]?.numberValue ?? 0) - (expected.first?["time"]?.numberValue ?? 0)
        for (a, b) in zip(live, expected) {
            for key in ["recognizer", "type", "state", "view", "touches", "taps", "device"] { #expect(a[key] == b[key], "\(key)") }
            for key in ["x", "y"] { #expect(abs(a[key]!.numberValue! - b[key]!.numberValue!) < 1e-4) }
            #expect(abs(a["time"]!.numberValue! - b["time"]!.numberValue! - offset) < 2e-3)
        }
    }
}
