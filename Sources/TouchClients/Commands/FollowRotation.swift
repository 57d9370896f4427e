import CSystemd
import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridgectl follow-rotation iio|sway` (docs/screen-aware.md): keeps the touchscreen turned with
/// the screen. `iio` claims the accelerometer from iio-sensor-proxy on the system D-Bus (the service
/// Phosh, GNOME and KDE read) and follows its `AccelerometerOrientation`; `sway` follows sway's output
/// transform over its IPC socket. Each change becomes `{"set":{"device":…,"rotation":…}}` to the daemon,
/// which applies it from the device's next touch sequence on (with the built-in scene, the window turns
/// too). Single-threaded: sd-bus's descriptor, or sway's socket, and the signals share one epoll loop.
package enum FollowRotation {
    /// What a source says → degrees clockwise for `set rotation` (and a flip, for sway's flipped
    /// transforms).
    ///
    /// iio-sensor-proxy names the screen edge that points up: "left-up" is the device turned a quarter
    /// clockwise, its left edge now on top, and the picture turned a quarter counterclockwise to stay
    /// upright (xrandr's "left", whose touch matrix is 0 −1 1 / 1 0 0). TouchBridge's rotation 90 maps
    /// the panel's (x, y) to (1 − y, x): that same matrix. So left-up → 90, bottom-up → 180, right-up →
    /// 270 (xrandr's "right", 0 1 0 / −1 0 1), normal → 0; "undefined" (flat on a table) changes nothing.
    package static let iioDefaults: [(String, Int)] = [("normal", 0), ("left-up", 90), ("bottom-up", 180), ("right-up", 270)]
    /// sway's `transform` of an output: its degrees, flipped ones with flipX.
    package static let swayDefaults: [(String, Int)] = [("normal", 0), ("90", 90), ("180", 180), ("270", 270),
                                                ("flipped", 0), ("flipped-90", 90), ("flipped-180", 180), ("flipped-270", 270)]

    package static let proxyName = "net.hadess.SensorProxy", proxyPath = "/net/hadess/SensorProxy"

    /// `--map left-up=270,right-up=90`: entries replacing the defaults (a panel mounted turned).
    package static func map(_ text: String?, defaults: [(String, Int)], source: String) throws -> [String: Int] {
        var m = Dictionary(uniqueKeysWithValues: defaults)
        guard let text else { return m }
        for item in text.split(separator: ",") {
            let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, m[kv[0]] != nil, let deg = Int(kv[1]), CoordinateMapping.Rotation(rawValue: deg) != nil else {
                throw Arguments.Failure(description: "touchbridgectl follow-rotation: --map takes NAME=DEG pairs, NAME one of "
                    + "\(defaults.map(\.0).joined(separator: ", ")) (\(source)) and DEG 0, 90, 180 or 270; not \"\(item)\"")
            }
            m[kv[0]] = deg
        }
        return m
    }

    /// What a source asked for: its words (for the log), degrees, and sway's flip.
    package struct Desired: Equatable {
        var what: String
        var rotation: Int
        var flip: Bool?
    }

    /// Tells the daemon the rotation, and again to every daemon that comes (DaemonTeller).
    package typealias Sender = DaemonTeller<Desired>

    package static func sender(socket: String, device: String, log: Logger) -> Sender {
        Sender(socket: socket, subject: "the rotation", log: log, command: { d in
            .setDevice(ClientCommand.DeviceTarget(option: device),
                       ClientCommand.MappingChange(rotation: CoordinateMapping.Rotation(rawValue: d.rotation), flipX: d.flip))
        }, describe: \.what, carriedOut: { d in
            "\(d.what): rotation \(d.rotation)°\(d.flip == true ? ", flipped" : "") for device \(device)"
        })
    }

    // MARK: iio-sensor-proxy

    /// Follows the accelerometer until SIGTERM or SIGINT (the claim is released) or the bus goes away.
    package static func iio(_ sender: Sender, map: [String: Int], log: Logger) throws -> Int32 {
        let bus = try DBus(.system)
        let loop = try EventLoop()
        let signals = try SignalReceiver([SIGTERM, SIGINT])
        var claimed = false
        /// The unique name owning net.hadess.SensorProxy: the only sender whose PropertiesChanged is
        /// believed (any connection on the bus may emit a signal with that path and interface).
        let proxy = try NameOwnerWatch(bus: bus, name: proxyName)
        func apply(_ orientation: String) {
            guard let deg = map[orientation] else {
                if orientation != "undefined" { log.warning("iio-sensor-proxy says \"\(orientation)\", which has no rotation: ignored") }
                return
            }
            sender.send(Desired(what: orientation, rotation: deg))
        }
        /// The claim, then the orientation now: each call answered later, on the loop (a sensor proxy
        /// that is slow to answer holds nothing up).
        func claim() {
            bus.callAsync(proxyName, proxyPath, proxyName, "ClaimAccelerometer") { result in
                if case .failure(let error) = result { return log.error("iio-sensor-proxy: \(error)") }
                claimed = true
                log.info("claimed the accelerometer of iio-sensor-proxy")
                bus.callAsync(proxyName, proxyPath, "org.freedesktop.DBus.Properties", "Get", [proxyName, "AccelerometerOrientation"]) { result in
                    switch result {
                    case .failure(let error): log.error("iio-sensor-proxy: \(error)")
                    case .success(let m):
                        guard let o = DBus.string(of: m, variant: true) else { return log.error("iio-sensor-proxy: AccelerometerOrientation is not a string") }
                        apply(o)
                    }
                }
            }
        }
        proxy.onChange = { owner, first in
            if owner != nil {
                if !first { log.info("iio-sensor-proxy is back") }
                claim()
            } else if first {
                log.warning("iio-sensor-proxy (\(proxyName)) is not on the system bus; waiting for it")
            } else {
                claimed = false
                log.warning("iio-sensor-proxy went away; waiting for it to come back")
            }
        }
        try bus.match("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(proxyPath)'") { [weak proxy] m in
            let (interface, changed) = DBus.changedStrings(m)
            guard let proxy, interface == proxyName, let o = changed["AccelerometerOrientation"] else { return }
            guard proxy.sentByOwner(m) else {
                log.debug("ignored a PropertiesChanged of \(proxyPath) from \(NameOwnerWatch.describeSender(m)), which does not own \(proxyName) (\(proxy.owner ?? "nobody does"))")
                return
            }
            apply(o)
        }
        try sender.watch(in: loop)
        defer { sender.stopWatching() }                 // its handlers hold it
        proxy.start()
        var status: Int32 = 0
        try loop.add(bus.fd) { _ in
            if !bus.process() {
                log.error("the system bus closed the connection")
                status = 1
                loop.stop()
            }
        }
        try loop.add(signals.fd) { _ in
            if !signals.take().isEmpty { loop.stop() }
        }
        _ = bus.process()
        loop.run()
        // The handlers hold the loop, the bus and the signals: let go of them (no cycle outlives this).
        loop.remove(bus.fd)
        loop.remove(signals.fd)
        if claimed && status == 0 {
            _ = try? bus.call(proxyName, proxyPath, proxyName, "ReleaseAccelerometer").map { sd_bus_message_unref($0) }
            log.info("released the accelerometer")
        }
        bus.close()
        return status
    }

    // MARK: sway

    /// Follows sway's output transform until SIGTERM or SIGINT, or until sway goes away (exit 1, so that
    /// a user service restarts it with sway). One connection (SwayIPC): subscribed to output events, and
    /// asking for the outputs at the start and after each event.
    package static func sway(_ sender: Sender, map: [String: Int], output: String?, socket: String, log: Logger) throws -> Int32 {
        let ipc = try SwayIPC(path: socket)
        var current: String?
        func follow(_ outputs: [JSON]) {
            let chosen = outputs.first { o in
                output.map { o["name"]?.stringValue == $0 } ?? (o["active"]?.boolValue == true)
            }
            guard let o = chosen else {
                log.warning("sway has no output \(output.map { "named \"\($0)\"" } ?? "that is active")")
                return
            }
            let transform = o["transform"]?.stringValue ?? "normal"
            guard transform != current, let deg = map[transform] else { return }
            current = transform
            sender.send(Desired(what: "\(o["name"]?.stringValue ?? "output") \(transform)", rotation: deg, flip: transform.hasPrefix("flipped")))
        }
        let loop = try EventLoop()
        let signals = try SignalReceiver([SIGTERM, SIGINT])
        try sender.watch(in: loop)
        defer { sender.stopWatching() }                 // its handlers hold it
        var status: Int32 = 0
        func fail(_ message: String) {
            log.warning(message)
            status = 1
            loop.stop()
        }
        guard ipc.send(SwayIPC.subscribe, #"["output"]"#), ipc.send(SwayIPC.getOutputs, "") else {
            throw SocketError("sway's IPC socket \(socket): sway closed it")
        }
        func watchWritable() { loop.modify(ipc.fd, events: ipc.isWaiting ? [.readable, .writable] : .readable) }
        try loop.add(ipc.fd, events: .readable) { events in
            if events.contains(.writable) {
                guard ipc.flush() else { return fail("sway closed its IPC socket") }
                watchWritable()
            }
            guard events.contains(.readable) || events.contains(.closed) || events.contains(.hangup) else { return }
            guard let messages = ipc.receive() else { return fail("sway closed its IPC socket") }
            for m in messages {
                switch m.type {
                case SwayIPC.subscribe:
                    if m.payload?["success"]?.boolValue != true { return fail("sway did not accept the subscription to output events") }
                case SwayIPC.getOutputs:
                    follow(m.payload?.arrayValue ?? [])
                case SwayIPC.outputEvent:
                    guard ipc.send(SwayIPC.getOutputs, "") else { return fail("sway closed its IPC socket") }
                    watchWritable()
                default:
                    break
                }
            }
        }
        watchWritable()
        try loop.add(signals.fd) { _ in
            if !signals.take().isEmpty { loop.stop() }
        }
        loop.run()
        loop.remove(ipc.fd)
        loop.remove(signals.fd)
        return status
    }
}

extension Ctl {
    package static let followRotation = Command("follow-rotation", operands: "iio|sway",
        "keep touchscreens turned with the screen: iio follows iio-sensor-proxy's accelerometer on the\nsystem D-Bus (claimed while it runs), sway follows a sway output's transform; each change is a\n`set rotation` from the device's next touch sequence on", options: [
        .option("device", "N|NAME", "the device to turn: an index, or a name or shell pattern (default: every device)"),
        .option("map", "NAME=DEG,...", "override the table from the source's names to degrees clockwise (iio: normal,\nleft-up, bottom-up, right-up; sway: normal, 90, 180, 270, flipped…), for a\npanel mounted turned"),
        .option("output", "NAME", "sway: the output to follow (default: the first active one)"),
        .option("swaysock", "PATH", "sway: its IPC socket (default: $SWAYSOCK)"),
        .flag("verbose", "log what is ignored too (iio: signals from a connection that does not own\nnet.hadess.SensorProxy)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "the source: iio or sway")
        let log = Logger(program: "touchbridgectl follow-rotation", level: a.has("verbose") ? .debug : .info)
        let sender = FollowRotation.sender(socket: try DaemonSocket.path(a), device: a["device"] ?? "*", log: log)
        switch a.positional[0] {
        case "iio":
            return try FollowRotation.iio(sender, map: try FollowRotation.map(a["map"], defaults: FollowRotation.iioDefaults, source: "iio-sensor-proxy's orientations"), log: log)
        case "sway":
            guard let sock = a["swaysock"] ?? getenv("SWAYSOCK").map({ String(cString: $0) }) else {
                throw Arguments.Failure(description: "touchbridgectl follow-rotation sway: SWAYSOCK is not set (run it in the sway session, or pass --swaysock PATH)")
            }
            return try FollowRotation.sway(sender, map: try FollowRotation.map(a["map"], defaults: FollowRotation.swayDefaults, source: "sway's transforms"),
                                          output: a["output"], socket: sock, log: log)
        default:
            throw Arguments.Failure(description: "touchbridgectl follow-rotation: the source is iio or sway, not \"\(a.positional[0])\"")
        }
    }
}
