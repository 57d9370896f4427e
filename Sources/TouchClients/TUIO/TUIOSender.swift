import CLiblo
import Glibc
import TouchProtocol
import TouchSystem

/// TUIO 1.1's `/tuio/2Dcur` profile as OSC bundles, encoded and sent over UDP by liblo (docs/tuio.md).
/// One bundle a frame:
///
///     /tuio/2Dcur source NAME                  who sends (TUIO 1.1's optional source message)
///     /tuio/2Dcur alive S1 S2 …                every session down
///     /tuio/2Dcur set S x y X Y m              each session that began or moved in the frame
///     /tuio/2Dcur fseq F                       the frame's sequence number
///
/// and, with `--gestures`, a bundle of `/touchbridge/gesture` messages after it. liblo's `lo_send_bundle`
/// writes one datagram to each target's socket (its own, blocking: a UDP send waits only for room in
/// the socket's buffer, which loopback and a LAN drain at once).
package final class TUIOSender {
    package struct Target: Equatable {
        package var host: String
        package var port: Int
        package var text: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    package let targets: [Target]
    private let addresses: [lo_address]
    package let source: String
    /// The last frame's sequence number (0: none sent yet). An idle re-send repeats it: TUIO 1.1
    /// clients take a bundle whose fseq is not older than the last one they took.
    package private(set) var fseq: Int32 = 0
    package private(set) var bundlesSent = 0
    /// Datagrams liblo could not send, and the last one's reason (the bridge logs a reason once, and
    /// the count when sending works again).
    package private(set) var failures = 0
    package private(set) var lastFailure: String?
    /// The last bundle reached every target.
    package private(set) var lastSendWorked = true

    // The OSC paths as C strings of our own, alive as long as the sender: liblo keeps a bundle's path
    // pointers until the bundle is sent.
    private let cursorPath = strdup("/tuio/2Dcur")!
    private let gesturePath = strdup("/touchbridge/gesture")!

    /// Host names are resolved here, once, before the event loop runs: liblo would resolve a name at
    /// each send while the lookup fails, and a lookup that waits for a DNS server would stop the loop.
    package init(targets: [Target], source: String) throws {
        var made: [lo_address] = []
        for t in targets {
            let numeric: String
            do { numeric = try Self.resolve(t.host) } catch {
                made.forEach { lo_address_free($0) }
                throw error
            }
            guard let a = lo_address_new(numeric, String(t.port)) else {
                made.forEach { lo_address_free($0) }
                throw TUIOError("--udp \(t.text): liblo cannot make an address of it (a host name or address and a port 1–65535)")
            }
            made.append(a)
        }
        self.targets = targets
        addresses = made
        self.source = source
    }

    /// `host` as a numeric address (the first getaddrinfo gives for UDP).
    static func resolve(_ host: String) throws -> String {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            throw TUIOError("--udp: cannot resolve \"\(host)\": \(String(cString: gai_strerror(rc))) (give an address, or a name this machine resolves)")
        }
        defer { freeaddrinfo(list) }
        var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST) == 0 else {
            throw TUIOError("--udp: cannot resolve \"\(host)\"")
        }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        addresses.forEach { lo_address_free($0) }
        free(cursorPath)
        free(gesturePath)
    }

    /// OSC's "immediately" time tag: TUIO 1.1 bundles carry no time of their own.
    private static let immediately = lo_timetag(sec: 0, frac: 1)

    /// A 1.1 bundle: `changed` get `set` messages; `newFrame` false repeats the last fseq (the idle
    /// re-send, and the empty alive when the daemon is gone).
    package func send(alive: [TUIOSessions.Cursor], changed: [TUIOSessions.Cursor], newFrame: Bool) {
        if newFrame || fseq == 0 { fseq = fseq == Int32.max ? 1 : fseq + 1 }
        guard let bundle = lo_bundle_new(Self.immediately) else { return fail("liblo: out of memory") }
        defer { lo_bundle_free_recursive(bundle) }
        message(bundle, cursorPath) { m in
            lo_message_add_string(m, "source")
            lo_message_add_string(m, source)
        }
        message(bundle, cursorPath) { m in
            lo_message_add_string(m, "alive")
            for c in alive { lo_message_add_int32(m, c.session) }
        }
        for c in changed {
            message(bundle, cursorPath) { m in
                lo_message_add_string(m, "set")
                lo_message_add_int32(m, c.session)
                lo_message_add_float(m, Float(c.x))
                lo_message_add_float(m, Float(c.y))
                lo_message_add_float(m, Float(c.vx))
                lo_message_add_float(m, Float(c.vy))
                lo_message_add_float(m, Float(c.acceleration))
            }
        }
        let f = fseq
        message(bundle, cursorPath) { m in
            lo_message_add_string(m, "fseq")
            lo_message_add_int32(m, f)
        }
        deliver(bundle)
    }

    /// One gesture, as `/touchbridge/gesture s recognizer, s type, s state, f x, f y, i touches`.
    package struct Gesture: Equatable {
        package var recognizer: String
        package var type: String
        package var state: String
        package var x: Double, y: Double
        package var touches: Int
    }

    /// A bundle of the frame's gestures (none: nothing is sent).
    package func send(gestures: [Gesture]) {
        guard !gestures.isEmpty, let bundle = lo_bundle_new(Self.immediately) else { return }
        defer { lo_bundle_free_recursive(bundle) }
        for g in gestures {
            message(bundle, gesturePath) { m in
                lo_message_add_string(m, g.recognizer)
                lo_message_add_string(m, g.type)
                lo_message_add_string(m, g.state)
                lo_message_add_float(m, Float(g.x))
                lo_message_add_float(m, Float(g.y))
                lo_message_add_int32(m, Int32(clamping: g.touches))
            }
        }
        deliver(bundle)
    }

    private func message(_ bundle: lo_bundle, _ path: UnsafeMutablePointer<CChar>, _ fill: (lo_message) -> Void) {
        guard let m = lo_message_new() else { return }
        fill(m)
        if lo_bundle_add_message(bundle, path, m) != 0 { lo_message_free(m) }
    }

    private func deliver(_ bundle: lo_bundle) {
        lastSendWorked = true
        for (i, a) in addresses.enumerated() {
            if lo_send_bundle(a, bundle) < 0 {
                let why = lo_address_errstr(a).map { String(cString: $0) } ?? "\(Errno.current)"
                fail("\(targets[i].text): \(why)")
            }
        }
        bundlesSent += 1
    }

    private func fail(_ why: String) {
        failures += 1
        lastFailure = why
        lastSendWorked = false
    }
}

package struct TUIOError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
