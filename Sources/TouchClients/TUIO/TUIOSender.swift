import CLiblo
import Glibc
import TouchProtocol
import TouchSystem

/// TUIO's profiles as OSC bundles, encoded by liblo and sent over UDP by liblo, or handed whole to
/// `onBundle` (the WebSocket bridge sends each as one binary frame). docs/tuio.md says it all; in short:
///
/// TUIO 1.1, one bundle a frame, every device's cursors in one alive set under one source:
///
///     /tuio/2Dcur source NAME                  who sends (TUIO 1.1's optional source message)
///     /tuio/2Dcur alive S1 S2 …                every session down
///     /tuio/2Dcur set S x y X Y m              each session that began or moved in the frame
///     /tuio/2Dcur fseq F                       the frame's sequence number
///
/// TUIO 2.0, one bundle a frame of one device, under that device's source (`NAME:DEVICE@HOST`):
///
///     /tuio2/frm F TIME DIM SOURCE             frame id, OSC time, window width<<16|height (points)
///     /tuio2/ptr S TU C x y angle shear radius press X Y P m p    each pointer that began or moved
///     /tuio2/alv S1 S2 …                       the device's sessions down
///
/// and, with `--gestures`, a bundle of `/touchbridge/gesture` messages after the frame's. liblo's
/// `lo_send_bundle` writes one datagram to each target's socket (its own, blocking: a UDP send waits
/// only for room in the socket's buffer, which loopback and a LAN drain at once).
package final class TUIOSender {
    package struct Target: Equatable {
        package var host: String
        package var port: Int
        package var text: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// `--profile`.
    package enum Profile: String, CaseIterable, Sendable {
        case v1_1 = "1.1", v2_0 = "2.0"
    }

    /// TUIO 2.0's pointer type ids (the spec's table): a finger the spec's default, since a panel cannot
    /// tell which finger touches (the spec's 1–10 name a hand's fingers), a pencil its stylus.
    package enum PointerType: UInt16 {
        case finger = 0
        case stylus = 41
    }

    package let targets: [Target]
    private let addresses: [lo_address]
    package let source: String
    package let profiles: [Profile]
    /// Each bundle's bytes as OSC encodes them, and its profile (nil for a gesture bundle).
    package var onBundle: ((Profile?, UnsafeRawBufferPointer) -> Void)?
    /// The last 1.1 frame's sequence number (0: none sent yet). An idle re-send repeats it: TUIO 1.1
    /// clients take a bundle whose fseq is not older than the last one they took.
    package private(set) var fseq: Int32 = 0
    /// The last 2.0 frame id. Every 2.0 bundle has a new one, re-sends too: 2.0 clients (the reference
    /// library, TuioNet) drop a frame whose id is not newer than the last, so a repeated id would not
    /// end a lost cursor.
    package private(set) var frameID: Int32 = 0
    /// The window's size in points, for 2.0's dimension.
    package var window = (width: 0.0, height: 0.0)
    /// The devices a 2.0 source was said for: each gets its alive set again while idle, and an empty
    /// one when the daemon goes or the bridge stops.
    private var sources: Set<Int> = []
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
    private let framePath = strdup("/tuio2/frm")!
    private let pointerPath = strdup("/tuio2/ptr")!
    private let alivePath = strdup("/tuio2/alv")!
    private let gesturePath = strdup("/touchbridge/gesture")!

    /// Host names are resolved here, once, before the event loop runs: liblo would resolve a name at
    /// each send while the lookup fails, and a lookup that waits for a DNS server would stop the loop.
    package init(targets: [Target], source: String, profiles: [Profile] = [.v1_1]) throws {
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
        self.profiles = profiles
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
        for p in [cursorPath, framePath, pointerPath, alivePath, gesturePath] { free(p) }
    }

    /// OSC's "immediately" time tag: the bundles carry no time of their own (2.0's frame says its time).
    private static let immediately = lo_timetag(sec: 0, frac: 1)

    /// TUIO 2.0's source of `device`: `NAME:DEVICE@HOST` from `--source NAME@HOST` (the spec's
    /// name, instance and address), so that a client tells the devices' pointers apart.
    package func source(device: Int?) -> String {
        guard let device else { return source }
        if let at = source.firstIndex(of: "@") {
            return "\(source[..<at]):\(device)\(source[at...])"
        }
        return "\(source):\(device)"
    }

    /// A frame that changed something: its cursors that began or moved, and every cursor down.
    package func send(frame: TUIOSessions.Frame) {
        for p in profiles {
            switch p {
            case .v1_1: send11(alive: frame.alive, changed: frame.changed, newFrame: true)
            case .v2_0:
                sources.insert(frame.device)
                send20(device: frame.device, alive: frame.alive.filter { $0.device == frame.device }, changed: frame.changed)
            }
        }
    }

    /// The alive sets again, with no change: `newFrame` false is the idle re-send (1.1 repeats its
    /// fseq); `alive` empty ends every cursor (the start, the daemon gone, the bridge stopping).
    /// `removed`: a device gone, whose 2.0 source gets an empty alive set one last time.
    package func sendAlive(_ alive: [TUIOSessions.Cursor], newFrame: Bool, removed: Int? = nil) {
        for p in profiles {
            switch p {
            case .v1_1: send11(alive: alive, changed: [], newFrame: newFrame)
            case .v2_0:
                if let removed, sources.remove(removed) != nil { send20(device: removed, alive: [], changed: []) }
                // Before any device was heard of, the plain source: what an earlier run left under it ends.
                if sources.isEmpty && removed == nil { send20(device: nil, alive: [], changed: []) }
                for d in sources.sorted() { send20(device: d, alive: alive.filter { $0.device == d }, changed: []) }
            }
        }
    }

    /// The daemon went: its device numbers mean nothing now (the sessions' empty alive sets were sent).
    package func forgetDevices() { sources = [] }

    private func send11(alive: [TUIOSessions.Cursor], changed: [TUIOSessions.Cursor], newFrame: Bool) {
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
        deliver(bundle, .v1_1)
    }

    /// The spec's dimension: width in the upper 16 bits, height in the lower (points, at most 65535).
    package var dimension: Int32 {
        let w = UInt32(min(65535, max(0, window.width.rounded()))), h = UInt32(min(65535, max(0, window.height.rounded())))
        return Int32(bitPattern: w << 16 | h)
    }

    private func send20(device: Int?, alive: [TUIOSessions.Cursor], changed: [TUIOSessions.Cursor]) {
        frameID = frameID == Int32.max ? 1 : frameID + 1
        guard let bundle = lo_bundle_new(Self.immediately) else { return fail("liblo: out of memory") }
        defer { lo_bundle_free_recursive(bundle) }
        let id = frameID, dim = dimension, src = source(device: device)
        message(bundle, framePath) { m in
            var now = lo_timetag()
            lo_timetag_now(&now)
            lo_message_add_int32(m, id)
            lo_message_add_timetag(m, now)
            lo_message_add_int32(m, dim)
            lo_message_add_string(m, src)
        }
        for c in changed {
            message(bundle, pointerPath) { m in
                let type = (c.pencil ? PointerType.stylus : .finger).rawValue
                lo_message_add_int32(m, c.session)
                lo_message_add_int32(m, Int32(type))             // user 0 in the upper 16 bits, the type in the lower
                lo_message_add_int32(m, Int32(clamping: c.touch))
                lo_message_add_float(m, Float(c.x))
                lo_message_add_float(m, Float(c.y))
                lo_message_add_float(m, 0)                       // angle: a touch's orientation is not read
                lo_message_add_float(m, Float(c.shear))
                lo_message_add_float(m, Float(c.radius))
                lo_message_add_float(m, Float(c.pressure))
                lo_message_add_float(m, Float(c.vx))
                lo_message_add_float(m, Float(c.vy))
                lo_message_add_float(m, Float(c.pressureSpeed))
                lo_message_add_float(m, Float(c.acceleration))
                lo_message_add_float(m, Float(c.pressureAcceleration))
            }
        }
        message(bundle, alivePath) { m in
            for c in alive { lo_message_add_int32(m, c.session) }
        }
        deliver(bundle, .v2_0)
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
        deliver(bundle, nil)
    }

    private func message(_ bundle: lo_bundle, _ path: UnsafeMutablePointer<CChar>, _ fill: (lo_message) -> Void) {
        guard let m = lo_message_new() else { return }
        fill(m)
        if lo_bundle_add_message(bundle, path, m) != 0 { lo_message_free(m) }
    }

    private func deliver(_ bundle: lo_bundle, _ profile: Profile?) {
        lastSendWorked = true
        if let onBundle {
            var size = 0
            if let bytes = lo_bundle_serialise(bundle, nil, &size) {
                onBundle(profile, UnsafeRawBufferPointer(start: bytes, count: size))
                free(bytes)
            }
        }
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
