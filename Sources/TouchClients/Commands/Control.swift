import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// touchbridgectl's control commands (protocol 2): each sends one command and prints the daemon's
/// answer; a refusal is printed on stderr and exits 1.
extension Ctl {
    /// `set rotation DEG [--device N|NAME]` (every device when no --device).
    package static let setRotation = Command("set rotation", operands: "DEG",
        "turn a device (default: every device, those plugged in later too) by 0, 90, 180 or 270\ndegrees clockwise, from its next touch sequence on", options: [
        .option("device", "N|NAME", "the device: its index (the \"device\" of touch and device lines), or a\nname or shell pattern matched against device names and nodes (\"N-Trig*\")"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "the degrees: 0, 90, 180 or 270")
        guard let degrees = Int(a.positional[0]), CoordinateMapping.Rotation(rawValue: degrees) != nil else {
            throw Arguments.Failure(description: "touchbridgectl set rotation: takes 0, 90, 180 or 270 (degrees clockwise), not \"\(a.positional[0])\"")
        }
        var target = ClientCommand.DeviceTarget.all
        if let d = a["device"] {
            if let n = Int(d) {
                guard n >= 0 else { throw Arguments.Failure(description: "touchbridgectl set rotation: --device takes an index ≥ 0 or a name, not \"\(d)\"") }
                target = .index(n)
            } else {
                target = .name(d)
            }
        }
        return try command(a, .setDevice(target, .init(rotation: CoordinateMapping.Rotation(rawValue: degrees))))
    }

    /// `set display off|on`: for the idle manager (swayidle, hypridle), next to the command that turns
    /// the outputs off or on.
    package static let setDisplay = Command("set display", operands: "off|on",
        "tell the daemon the display was turned off or on: while it is off, a touch only wakes it\n(a \"wake\" line on the devices topic; no view, gesture or app gets it), and after on,\ntouches within --wake-holdoff are swallowed too; needs the panel grabbed (pass-through);\nwith the scene's \"display\", off also turns the backlight off and on gives it back", options: [
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "off or on")
        let state = a.positional[0]
        guard state == "off" || state == "on" else {
            let hint = DidYouMean.hint(state, in: ["off", "on"])
            throw Arguments.Failure(description: "touchbridgectl set display: takes off or on, not \"\(state)\"\(hint)")
        }
        return try command(a, .setDisplay(on: state == "on"))
    }

    /// `set brightness F`: the panel's backlight (docs/display.md), F of its maximum; also accepts "40%".
    package static let setBrightness = Command("set brightness", operands: "F|N%",
        "set the panel's backlight to a fraction of its maximum (0.4, or 40%): the display comes\non at that brightness, which a touch gives back after the scene's dimming", options: [
        DaemonSocket.option,
    ]) { a in
        try a.expect(1, "the brightness: a fraction such as 0.4, or a percentage such as 40%")
        let text = a.positional[0]
        let value = text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
        guard let f = value, f > 0, f <= 1 else {
            throw Arguments.Failure(description: "touchbridgectl set brightness: takes a fraction above 0 and at most 1 (0.4) or a percentage (40%), not \"\(text)\"; to turn the panel off, touchbridgectl set display off")
        }
        return try command(a, .setBrightness(f))
    }

    /// `set focus --app A [--title T] [--source S]` or `--none`: the focused app, for scripts (a
    /// follower keeps it with its connection: `follow-focus`).
    package static let setFocus = Command("set focus",
        "tell the daemon which app is focused (docs/focus.md): recognizers with \"apps\" or\n\"exceptApps\" follow it from the next touch sequence on; it stays until changed", options: [
        .option("app", "APP", "the focused window's app id (its X11 class under Xwayland)"),
        .option("title", "TITLE", "its title"),
        .option("source", "NAME", "who says so (default touchbridgectl)"),
        .flag("none", "no focus known"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing (--app APP or --none)")
        if a.has("none") {
            guard a["app"] == nil && a["title"] == nil else {
                throw Arguments.Failure(description: "touchbridgectl set focus: --none takes no --app or --title")
            }
            return try command(a, .setFocus(nil))
        }
        guard let app = a["app"], !app.isEmpty else {
            throw Arguments.Failure(description: "touchbridgectl set focus: give --app APP (the app id, \"firefox\"), or --none")
        }
        return try command(a, .setFocus(Focus(app: app, title: a["title"], source: a["source"] ?? "touchbridgectl")))
    }

    package static let enable = recognizerSwitch(true)
    package static let disable = recognizerSwitch(false)

    /// `enable NAME...` / `disable NAME...`: names or shell patterns.
    private static func recognizerSwitch(_ enabled: Bool) -> Command {
        let verb = enabled ? "enable" : "disable"
        return Command(verb, operands: "NAME...", enabled
            ? "enable recognizers, by name or shell pattern (\"edge*\")"
            : "disable recognizers, by name or shell pattern (\"edge*\"): a gesture under way is cancelled",
            options: [DaemonSocket.option]) { a in
            guard !a.positional.isEmpty else {
                throw Arguments.Failure(description: "touchbridgectl \(verb): name at least one recognizer (or a pattern such as \"edge*\")")
            }
            return try command(a, .setRecognizers(patterns: a.positional, enabled: enabled))
        }
    }

    /// Sends one control command and waits for its answer.
    private static func command(_ a: Arguments, _ command: ClientCommand) throws -> Int32 {
        switch try DaemonConnection.request(command, at: try DaemonSocket.path(a)) {
        case .ok(let warning?):
            FileHandleStandardError.write("touchbridgectl: warning: \(warning)\n")
            return 0
        case .ok: return 0
        case .refused(let message):
            FileHandleStandardError.write("touchbridgectl: the daemon refused: \(message)\n")
            return 1
        case .closed:
            FileHandleStandardError.write("touchbridgectl: the daemon closed the connection before answering\n")
            return 1
        }
    }
}
