import TouchInput
import TouchSystem

/// touchbridged's options (docs/commands.md).
public struct DaemonOptions {
    public var scenePath: String?
    public var socketPath: String?
    public var socketGroup: String?
    /// Members of this group may send control commands (`set`, `scene`), beside root and the
    /// daemon's own user.
    public var controlGroup: String?
    /// Recordings played as devices, one after another (`--replay`, repeatable).
    public var replayPaths: [String] = []
    /// Play them again and again (`--replay-loop`).
    public var replayLoop = false
    /// Play them all at once, interleaved by time, as devices of one screen (`--replay-together`).
    public var replayTogether = false
    public var replayDescription: String?
    public var replayDelay = 1.0
    public var noDevices = false
    /// Every device passes through (README "Pass-through").
    public var passthrough = false
    /// Every device is turned this way (`--rotation DEG`), whatever the scene's entries say.
    public var rotation: CoordinateMapping.Rotation?
    public var verbose = false
    /// Scenes' actions are never performed (README "Actions"): gestures are only served.
    public var noActions = false
    /// Seconds after `set display on` in which a new touch sequence is still swallowed.
    public var wakeHoldoff = DisplayGate.defaultHoldoff
    /// Where sysfs is (`--sysfs-root`, for tests only): backlights are under its class/backlight.
    public var sysfsRoot = "/sys"
    public var clientQueueBytes = SocketServer.defaultQueueLimit
    /// Connections one uid (not root, not the daemon's user) may hold at once.
    public var clientsPerUID = SocketServer.defaultClientsPerUID

    public init() {}

    /// The daemon's options, declared once: `--help`, the parsing, and (checked by the tests) the man
    /// page and the README's table.
    public static let spec = CommandSpec(program: "touchbridged", name: "",
        summary: """
        Reads touchscreens (through udev and libevdev), recognizes UIKit-style gestures on the views of a
        scene, and serves them as newline-delimited JSON on a Unix socket.

        signals: SIGTERM/SIGINT exit cleanly (the socket file is removed); SIGHUP reloads the scene and keeps
        the old one when the new one is invalid.
        """,
        options: [
            .option("scene", "FILE", "the scene (views and recognizers); default: the built-in scene"),
            .option("socket", "PATH", "where to listen; default $TOUCHBRIDGE_SOCKET, else\n/run/touchbridge/touchbridge.sock as root, else $XDG_RUNTIME_DIR/touchbridge.sock\n(systemd socket activation wins)"),
            .option("socket-group", "NAME", "the group that may connect (the socket is mode 0660)"),
            .option("control-group", "NAME", "the group whose members may also control the daemon (set, scene\ncommands); root and the daemon's own user always may"),
            .option("replay", "FILE", "also play a recording as a device (evemu-record, libinput record's YAML,\nevtest text, or E: lines with --replay-desc); repeat it to play several, one\nafter another, each a device of its own; the scene must select it"),
            .flag("replay-together", "play the --replay recordings at once, interleaved by their times, as devices\nof one screen (a finger panel and a pen: the pen's palm rejection applies)"),
            .flag("replay-loop", "play the recordings again and again (demos); a pass ends as an unplug does,\nand each recording keeps its device index"),
            .option("replay-desc", "FILE", "the device description for a headerless recording"),
            .option("replay-delay", "S", "seconds before the replay starts (default 1)"),
            .flag("no-devices", "open no input device (with --replay: the recording only)"),
            .option("rotation", "DEG", "turn every device by 0, 90, 180 or 270 degrees clockwise (as lisgd's -r);\nwith 90 or 270 the built-in scene's window is the panel turned"),
            .flag("passthrough", "pass every device through: grab it and give the compositor a mirror that\ngets exactly the touches no gesture claims (without --scene: the built-in\npass-through scene)"),
            .option("client-queue", "BYTES", "how much a client may fall behind before it is dropped (default 1048576)"),
            .option("max-clients-per-uid", "N", "connections one user may hold at once (default \(SocketServer.defaultClientsPerUID); root and the\ndaemon's own user are not counted, and \(SocketServer.controlReserve) slots are kept for control peers)"),
            .flag("no-actions", "perform no action a scene gives its recognizers (no keys, clicks or scrolling\nare written); gestures are still served"),
            .option("wake-holdoff", "S", "after `set display on`, touches that begin within S seconds are swallowed\ntoo: the picture is not there yet (default 1)"),
            .option("sysfs-root", "DIR", "for tests only: read and write backlights under DIR/class/backlight instead\nof /sys/class/backlight (a tree the test makes)"),
            .flag("verbose", "log every recognizer transition"),
            .flag("version", "print the version and exit"),
        ])

    public static var usage: String { spec.help }

    public static func parse(_ args: [String]) throws -> (DaemonOptions, help: Bool, version: Bool) {
        let a = try Arguments(args, spec: spec)
        if a.wantsHelp || a.has("version") { return (DaemonOptions(), a.wantsHelp, a.has("version")) }
        var o = DaemonOptions()
        o.scenePath = a["scene"]
        o.socketPath = a["socket"]
        o.socketGroup = a["socket-group"]
        o.controlGroup = a["control-group"]
        o.replayPaths = a.values("replay")
        o.replayLoop = a.has("replay-loop")
        o.replayTogether = a.has("replay-together")
        if o.replayTogether && o.replayPaths.count < 2 {
            throw Arguments.Failure(description: "touchbridged: --replay-together plays several recordings at once: name two or more with --replay (a finger panel's and a pen's)")
        }
        if o.replayLoop && o.replayPaths.isEmpty {
            throw Arguments.Failure(description: "touchbridged: --replay-loop needs a recording to loop (--replay FILE)")
        }
        o.replayDescription = a["replay-desc"]
        if let d = try a.number("replay-delay") { o.replayDelay = d }
        o.noDevices = a.has("no-devices")
        if let r = a["rotation"] {
            guard let degrees = Int(r), let rotation = CoordinateMapping.Rotation(rawValue: degrees) else {
                throw Arguments.Failure(description: "touchbridged: --rotation takes 0, 90, 180 or 270 (degrees clockwise), not \"\(r)\"")
            }
            o.rotation = rotation
        }
        o.passthrough = a.has("passthrough")
        if let q = a["max-clients-per-uid"] {
            guard let n = Int(q), n >= 1, n <= SocketServer.maximumClients else {
                throw Arguments.Failure(description: "touchbridged: --max-clients-per-uid needs a number from 1 to \(SocketServer.maximumClients), not \"\(q)\"")
            }
            o.clientsPerUID = n
        }
        if let q = a["client-queue"] {
            guard let n = Int(q), n >= 1024 else {
                throw Arguments.Failure(description: "touchbridged: --client-queue needs a number of bytes ≥ 1024, not \"\(q)\"")
            }
            o.clientQueueBytes = n
        }
        o.verbose = a.has("verbose")
        o.noActions = a.has("no-actions")
        if let h = try a.number("wake-holdoff") {
            guard h >= 0, h <= 60 else { throw Arguments.Failure(description: "touchbridged: --wake-holdoff takes seconds from 0 to 60, not \(h)") }
            o.wakeHoldoff = h
        }
        if let root = a["sysfs-root"] {
            guard Files.isDirectory(root) else { throw Arguments.Failure(description: "touchbridged: --sysfs-root \(root) is not a directory") }
            o.sysfsRoot = root
        }
        try a.expect(0, "nothing")
        return (o, false, false)
    }
}
