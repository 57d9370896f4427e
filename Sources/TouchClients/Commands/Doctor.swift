import CLinux
import Glibc
import TouchCore
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// `touchbridgectl doctor`: what a newcomer cannot tell by looking, one check a line, ✓ or ✗ with the
/// remedy: the daemon's socket (reachable, whose, which protocol), the caller's groups, each touchscreen
/// (what udev and the device say without a grab: a grab would take the panel from the compositor),
/// /dev/uinput for the daemon's user, the scene in use, the keyboard layout, and with --mqtt the broker.
/// Exit 0 only when everything needed is there.
package struct Doctor {
    package enum Mark: String { case ok = "✓", missing = "✗", note = "·" }

    package private(set) var lines: [(Mark, String)] = []
    package var failed: Bool { lines.contains { $0.0 == .missing } }

    package mutating func say(_ mark: Mark, _ text: String) {
        lines.append((mark, text))
        print(Terminal.oneLine("\(mark.rawValue) \(text)"))
    }

    /// What the daemon told on its socket, when it answered.
    package struct Daemon {
        var peer: PeerCredentials?
        var version = "", protocolVersion = 0
        var sceneLine: JSON?
        var devices: [Int: (node: String, name: String)] = [:]
    }

    package mutating func socket(_ path: String) -> Daemon? {
        var d = Daemon()
        do {
            let loop = try EventLoop()
            // The hello, then what the scene and devices topics give at once.
            let daemon = try DaemonConnection(path: path, topics: ["scene", "devices"], loop: loop, reconnects: false)
            let timer = try Timer()
            let end = monotonicNow() + 2
            try loop.add(timer.fd) { _ in loop.stop() }
            // The handler holds the loop: removed on every way out, or the two keep each other alive.
            defer { loop.remove(timer.fd) }
            daemon.onConnect = { [unowned daemon] in d.peer = daemon.peer }
            daemon.onLine = { line in
                guard let json = line.json else { return }
                switch line.event {
                case .hello:
                    let h = HelloLine.decode(json)
                    d.version = h?.version ?? "?"
                    d.protocolVersion = h?.protocolVersion ?? 0
                case .scene: d.sceneLine = json
                case .device:
                    if let dev = DeviceLine.decode(json), dev.action != "removed" { d.devices[dev.device] = (dev.node, dev.name) }
                default: return
                }
                // Until the scene has come and nothing more for 0.1 s (the devices present come with it).
                if d.sceneLine != nil { timer.arm(at: min(end, monotonicNow() + 0.1)) }
            }
            timer.arm(at: end)
            try daemon.runOnce(loop)
        } catch {
            say(.missing, "the daemon's socket: \(error)")
            return nil
        }
        let who = d.peer.map { p in "pid \(p.pid), user \(Doctor.userName(p.uid))" } ?? "an unknown peer"
        let protocolOK = d.protocolVersion == Version.protocolVersion
        say(protocolOK ? .ok : .missing, "the daemon's socket \(path): touchbridged \(d.version) answers (\(who)), protocol \(d.protocolVersion)"
            + (protocolOK ? "" : "; this touchbridgectl speaks \(Version.protocolVersion): install one version of both"))
        return d
    }

    package mutating func groups(socketPath: String) {
        let mine = Doctor.callerGroups()
        let names = mine.compactMap { g in getgrgid(g).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } }
        var st = stat()
        let socketGroup = stat(socketPath, &st) == 0 ? getgrgid(st.st_gid).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } : nil
        let reader = socketGroup ?? "touchbridge"
        if getuid() == 0 || names.contains(reader) || (stat(socketPath, &st) == 0 && st.st_uid == getuid()) {
            say(.ok, "your groups: \(names.isEmpty ? "none" : names.joined(separator: ", ")) (you may read the socket" + (getuid() == 0 ? ": root" : "") + ")")
        } else {
            say(.missing, "your groups: \(names.isEmpty ? "none" : names.joined(separator: ", ")); reading gestures needs group \"\(reader)\": "
                + "sudo usermod -aG \(reader) $USER, then log in again")
        }
        if !names.contains("input") && getuid() != 0 {
            say(.note, "you are not in group input: fine, the daemon reads the panels; `touchbridgectl devices` then shows no ranges")
        }
    }

    package mutating func touchscreens(daemon: Daemon?) {
        guard let monitor = try? DeviceMonitor(includeTablets: false) else {
            say(.missing, "touchscreens: udev cannot be asked (is systemd-udevd running?)")
            return
        }
        let found = monitor.enumerate().filter { !$0.isMirror }
        // Recordings the daemon plays (--replay) are devices too.
        let replays = (daemon?.devices ?? [:]).filter { $0.value.node.hasPrefix("replay:") }.sorted { $0.key < $1.key }
        for (i, d) in replays {
            say(.ok, "device \(i) of the daemon: \"\(d.name)\", played from \(d.node.dropFirst("replay:".count))")
        }
        guard !found.isEmpty || !replays.isEmpty else {
            say(.missing, "touchscreens: udev lists none with ID_INPUT_TOUCHSCREEN=1 (is the panel's driver loaded? `libinput list-devices`; "
                + "without hardware, touchbridged --replay RECORDING plays one)")
            return
        }
        for info in found {
            let index = daemon?.devices.first { $0.value.node == info.devnode }?.key
            var size = ""
            if let d = try? EvdevDevice(path: info.devnode, deviceIndex: 0, target: Rect(x: 0, y: 0, width: 1, height: 1), acceptTablets: true) {
                let abs = d.description.absInfo
                if let x = abs[AbsCode.mtPositionX] ?? abs[AbsCode.x], let y = abs[AbsCode.mtPositionY] ?? abs[AbsCode.y], x.resolution > 0, y.resolution > 0 {
                    size = String(format1(Double(x.maximum - x.minimum) / Double(x.resolution))) + " × "
                        + String(format1(Double(y.maximum - y.minimum) / Double(y.resolution))) + " mm"
                } else if let x = abs[AbsCode.mtPositionX] ?? abs[AbsCode.x], let y = abs[AbsCode.mtPositionY] ?? abs[AbsCode.y] {
                    size = "\(x.maximum - x.minimum + 1) × \(y.maximum - y.minimum + 1) units (no resolution)"
                }
                d.close()
            } else {
                size = "size unknown (not readable by you; the daemon reads it)"
            }
            say(.ok, "touchscreen \(info.devnode) \"\(info.name)\" \(info.vendorProduct)"
                + (index.map { ", device \($0) of the daemon" } ?? (daemon == nil ? "" : ", not opened by the daemon (does its scene select it?)"))
                + (size.isEmpty ? "" : ", \(size)"))
        }
    }

    /// /dev/uinput, writable by the daemon's user (pass-through's mirrors and actions write it).
    package mutating func uinput(daemon: Daemon?) {
        let path = UinputDevice.path
        var st = stat()
        guard stat(path, &st) == 0 else {
            say(.missing, "\(path) does not exist: sudo modprobe uinput (make install loads it at boot); pass-through and actions need it")
            return
        }
        guard let pid = daemon?.peer?.pid, let (uid, groups) = Doctor.credentials(ofProcess: pid) else {
            say(.note, "\(path) exists (mode \(String(st.st_mode & 0o777, radix: 8)), group \(Doctor.groupName(st.st_gid))); whether the daemon may write it is known when it runs")
            return
        }
        let writable = uid == 0 || (st.st_uid == uid && st.st_mode & 0o200 != 0)
            || (groups.contains(st.st_gid) && st.st_mode & 0o020 != 0) || st.st_mode & 0o002 != 0
        if writable {
            say(.ok, "\(path): writable by the daemon's user (\(Doctor.userName(uid)))")
        } else {
            say(.missing, "\(path): not writable by the daemon's user \(Doctor.userName(uid)) (it is \(Doctor.userName(st.st_uid)):\(Doctor.groupName(st.st_gid)) "
                + "mode \(String(st.st_mode & 0o777, radix: 8))): make install's udev rule gives it to group uinput, which the service joins")
        }
    }

    package mutating func scene(daemon: Daemon?) {
        guard let o = daemon?.sceneLine.flatMap(SceneLine.Outline.decode) else {
            if daemon != nil { say(.missing, "the scene: the daemon did not send it") }
            return
        }
        let views = o.viewCount, recognizers = o.recognizers.count, w = o.width, h = o.height
        say(recognizers > 0 ? .ok : .missing, "the scene in use: window \(Int(w))×\(Int(h)) pt, \(counted(views, "view")), \(counted(recognizers, "recognizer"))"
            + (recognizers > 0 ? "" : ": nothing to recognize (touchbridged --scene FILE; touchbridgectl scene default is a start)"))
    }

    package mutating func keyboard(daemon: Daemon?) {
        var names = KeyboardNames.system()
        if let k = daemon?.sceneLine?["scene"]?[SceneSchema.keyboard] {
            // The scene line writes the keyboard as a scene file does: read by the same schema.
            var said = KeyboardNames()
            if (try? KeyboardSchema.schema.read(k, "scene.keyboard", ConfigReader(file: "the daemon's scene", lines: [:]), into: &said)) != nil {
                names = said
            }
        }
        do {
            _ = try KeyboardLayout.compiled(names)
            say(.ok, "keyboard layout \(names) resolves (keys actions type in it)")
        } catch {
            say(.missing, "keyboard layout \(names): \(error) (apt install xkb-data, or name another in the scene's \"keyboard\")")
        }
    }

    package mutating func broker(_ file: String) {
        let config: MQTTConfig
        do { config = try MQTTConfig.load(path: file) } catch {
            say(.missing, "MQTT: \(error)")
            return
        }
        do {
            try InetSocket.probe(host: config.host, port: config.port, timeout: 3)
            say(.ok, "MQTT broker \(config.scheme.rawValue)://\(config.host):\(config.port) accepts connections")
        } catch {
            say(.missing, "MQTT broker \(config.scheme.rawValue)://\(config.host):\(config.port): \(error.errno) (is it running? systemctl status mosquitto)")
        }
    }

    // MARK: Who is who

    package static func userName(_ uid: UInt32) -> String {
        getpwuid(uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "uid \(uid)"
    }

    package static func groupName(_ gid: UInt32) -> String {
        getgrgid(gid).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } ?? "gid \(gid)"
    }

    package static func callerGroups() -> [UInt32] {
        var list = [gid_t](repeating: 0, count: 256)
        let n = getgroups(Int32(list.count), &list)
        return Array(Set(list.prefix(max(0, Int(n))) + [getgid()]))
    }

    /// A process's real uid and its groups, from /proc/PID/status.
    package static func credentials(ofProcess pid: Int32) -> (UInt32, [UInt32])? {
        guard let text = try? Files.readText("/proc/\(pid)/status") else { return nil }
        var uid: UInt32?, groups: [UInt32] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("Uid:") { uid = line.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " }).first.flatMap { UInt32($0) } }
            if line.hasPrefix("Gid:"), let g = line.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " }).first.flatMap({ UInt32($0) }) { groups.append(g) }
            if line.hasPrefix("Groups:") { groups += line.dropFirst(7).split(whereSeparator: { $0 == "\t" || $0 == " " }).compactMap { UInt32($0) } }
        }
        return uid.map { ($0, groups) }
    }
}

/// One decimal: "216.5".
private func format1(_ v: Double) -> String {
    let tenths = Int((v * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10))"
}

extension Ctl {
    package static let doctor = Command("doctor", "check what TouchBridge needs, a line each with ✓ or ✗ and the remedy: the daemon's\nsocket, your groups, the touchscreens, /dev/uinput, the scene, the keyboard layout", options: [
        .option("mqtt", "FILE", "also check the MQTT configuration FILE and that its broker accepts connections"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing")
        var doctor = Doctor()
        let path = try DaemonSocket.path(a)
        let daemon = doctor.socket(path)
        doctor.groups(socketPath: path)
        doctor.touchscreens(daemon: daemon)
        doctor.uinput(daemon: daemon)
        doctor.scene(daemon: daemon)
        doctor.keyboard(daemon: daemon)
        if let file = a["mqtt"] { doctor.broker(file) }
        let bad = doctor.lines.filter { $0.0 == .missing }.count
        print(bad == 0 ? "everything TouchBridge needs is here" : "\(counted(bad, "problem")) above, each with its remedy")
        return bad == 0 ? 0 : 1
    }
}
