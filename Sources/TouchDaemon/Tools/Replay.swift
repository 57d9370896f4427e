import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    /// `replay`: recordings through the daemon's pipeline offline, on their own timestamps; the lines
    /// the daemon would send, printed as they are made (OfflineReplay).
    package static let replay = Command("replay", operands: "RECORDING...",
        "run recordings through the pipeline offline, on their own timestamps, and print the\nlines the daemon would send (evemu-record, libinput record's YAML, evtest text); each\nrecording is a device of its own (device 0, 1, …), as the daemon plays them", options: [
        .option("scene", "FILE", "the scene (default: the built-in scene, sized for the recording's panel)"),
        .flag("touches", "also print every touch of every frame"),
        .flag("actions", "also print the actions the scene's recognizers would write (keys, clicks,\nscrolling with its coasting, zoom)"),
        .flag("verbose", "log every recognizer's transitions, their causes and why one failed, on stderr"),
        .option("desc", "FILE", "the device description for a recording of E: lines only"),
        .flag("together", "play the recordings at once, interleaved by their times, as devices of one\nscreen: a finger panel and a pen (--together FINGERS PEN), with the pen's palm rejection"),
        .option("mirror", "OUT", "also write what a pass-through mirror would be sent, as an evemu recording\n(one recording)"),
        .option("html", "OUT", "also write a self-contained HTML report: the views, every touch, a lane per\nrecognizer with its states and reasons (one recording)"),
        .option("focus", "APP", "the focused app from the start, for scenes with apps and exceptApps (docs/focus.md)"),
        .option("focus-at", "T=APP", "the focused app from T seconds after the recording's start on (T=, no app), repeatable"),
        .flag("allow-truncated", "replay what is whole of a recording cut short (by a mail client, a full disk)\ninstead of refusing it"),
    ]) { a in
        guard !a.positional.isEmpty else { try a.expect(1, "at least one recording") ; return 2 }
        let together = a.has("together")
        if together && a.positional.count < 2 {
            throw Arguments.Failure(description: "touchbridgectl replay: --together plays several recordings at once: name two or more (FINGERS PEN)")
        }
        if a["mirror"] != nil && a.positional.count > 1 && !together {
            throw Arguments.Failure(description: "touchbridgectl replay: --mirror writes one recording's mirror: name one recording")
        }
        if a["html"] != nil && (a.positional.count > 1 || together) {
            throw Arguments.Failure(description: "touchbridgectl replay: --html writes one recording's report: name one recording")
        }
        // --verbose: every recognizer's transitions, with what caused them, on stderr (why a gesture
        // did or did not fire).
        let log = Logger(program: "touchbridgectl", level: a.has("verbose") ? .debug : .warning)
        let scenePath = a["scene"]
        let passthrough = a["mirror"] != nil
        if let scenePath { _ = try Scene.load(path: scenePath, passthrough: passthrough) }   // a broken scene first
        let printed: Topics = a.has("touches") ? [.gestures, .touches] : .gestures
        var options = OfflineReplay.Options(topics: printed)
        options.mirrorPath = a["mirror"]
        options.actions = a.has("actions")
        options.focus = a["focus"]
        options.focusChanges = try a.values("focus-at").map { text in
            guard let eq = text.firstIndex(of: "="), let t = Double(text[..<eq]), t >= 0 else {
                throw Arguments.Failure(description: "touchbridgectl replay: --focus-at \(text): give T=APP, T seconds from the recording's start (2.5=firefox, 4= for none)")
            }
            let app = String(text[text.index(after: eq)...])
            return (t, app.isEmpty ? nil : app)
        }
        var out = StandardOutput()
        if let htmlPath = a["html"] {
            return try replayReport(a.positional[0], to: htmlPath, scenePath: scenePath, printed: printed,
                                    options: options, log: log, out: &out, description: a["desc"],
                                    allowTruncated: a.has("allow-truncated"))
        }
        if together {
            let recordings = try a.positional.map { path in
                let r = try loadWhole(path, description: a["desc"], allowTruncated: a.has("allow-truncated"))
                try r.requireEvents()
                return r
            }
            let scene = try scenePath.map { try Scene.load(path: $0, passthrough: passthrough) }
            let used = try OfflineReplay.play(together: recordings, scene: scene, options: options, log: log) { out.line($0) }
            out.flush()
            for (i, path) in a.positional.enumerated() { tell(path, recordings[i], used[i]) }
            return 0
        }
        for (index, path) in a.positional.enumerated() {
            let recording = try loadWhole(path, description: a["desc"], allowTruncated: a.has("allow-truncated"))
            try recording.requireEvents()
            // A fresh scene for every recording, and a device index of its own, as the daemon plays
            // several recordings one after another.
            let scene = try scenePath.map { try Scene.load(path: $0, passthrough: passthrough) }
            options.deviceIndex = index
            let used = try OfflineReplay.play(recording, scene: scene, options: options, log: log) { out.line($0) }
            out.flush()
            tell(path, recording, used)
            if let mirror = options.mirrorPath, let scenePath { try warnUnlessPassedThrough(recording, scenePath, mirror) }
        }
        out.flush()
        return 0
    }

    /// What the replay chose for the recording, on stderr: the devices entry it mapped through, and a
    /// mirror that nothing is passed to.
    private static func tell(_ path: String, _ recording: Recording, _ used: OfflineReplay.Choice) {
        if used.byEntry {
            FileHandleStandardError.write("touchbridgectl replay: \(Files.baseName(path)): \"\(recording.device.name)\" maps through the devices entry \(used.config.selector)\n")
        }
    }

    /// `--mirror` plays the scene as `touchbridged --passthrough` would, every device passing through;
    /// a scene file that does not pass the device through by itself is said, since a forgotten
    /// `"passthrough": true` is otherwise seen only when the daemon runs without --passthrough.
    private static func warnUnlessPassedThrough(_ recording: Recording, _ scenePath: String, _ mirror: String) throws {
        let plain = try Scene.load(path: scenePath)
        let config = try plain.replayConfig(for: recording)
        guard !config.passthrough else { return }
        let entry = plain.devices.isEmpty ? "the scene has no devices entries" : "its devices entry (\(config.selector)) has no \"passthrough\": true"
        FileHandleStandardError.write("touchbridgectl replay: warning: the scene does not pass \"\(recording.device.name)\" through "
            + "(\(entry)): touchbridged --scene \(scenePath) makes no mirror for it and leaves the panel to the "
            + "compositor unless run with --passthrough; \(mirror) is what the mirror would get with --passthrough\n")
    }

    /// A recording, refused when it was cut short unless `allowTruncated` (then what is whole, said);
    /// a frame left unfinished at a clean end (Ctrl-C) is a warning.
    package static func loadWhole(_ path: String, description: String?, allowTruncated: Bool) throws -> Recording {
        let recording = try Recording.load(path: path, descriptionPath: description)
        if let t = recording.truncation {
            guard allowTruncated else {
                throw RecordingError(file: t.file, line: t.line, reason: "\(t.reason); replay what is whole with --allow-truncated, or ask for the whole file")
            }
            FileHandleStandardError.write("touchbridgectl replay: warning: \(t); replaying the \(counted(recording.events.count, "event")) before it")
        }
        if let w = recording.unfinishedWarning { FileHandleStandardError.write("touchbridgectl replay: warning: \(w)") }
        return recording
    }

    /// `replay --html OUT`: the replay's every line (every topic) into a self-contained report; the
    /// lines asked for are printed as without --html.
    package static func replayReport(_ path: String, to htmlPath: String, scenePath: String?, printed: Topics,
                             options: OfflineReplay.Options, log: Logger, out: inout StandardOutput,
                             description: String?, allowTruncated: Bool) throws -> Int32 {
        let recording = try loadWhole(path, description: description, allowTruncated: allowTruncated)
        try recording.requireEvents()
        let scene = try scenePath.map { try Scene.load(path: $0, passthrough: options.mirrorPath != nil) }
        var all = options
        all.topics = [.gestures, .touches, .devices, .recognizers, .scene]
        all.actions = true                   // the report marks actions on their recognizers' lanes
        var report = ReplayReport()
        var printedLines: [[UInt8]] = []
        let used = try OfflineReplay.play(recording, scene: scene, options: all, log: log) { bytes in
            report.add(bytes)
            let isTouch = bytes.starts(with: #"{"event":"touch""#.utf8)
            let isGesture = bytes.starts(with: #"{"event":"gesture""#.utf8)
            let isAction = bytes.starts(with: #"{"event":"action""#.utf8)
            if (isGesture && printed.contains(.gestures)) || (isTouch && printed.contains(.touches)) || (isAction && options.actions) {
                printedLines.append(Array(bytes))
            }
        }
        for l in printedLines { l.withUnsafeBufferPointer { out.line($0) } }
        out.flush()
        let page = report.html(title: "TouchBridge replay of \(Files.baseName(path))")
        try Files.writeText(htmlPath, page)
        tell(path, recording, used)
        if let mirror = options.mirrorPath, let scenePath { try warnUnlessPassedThrough(recording, scenePath, mirror) }
        FileHandleStandardError.write("touchbridgectl replay: wrote \(htmlPath) (\(page.utf8.count / 1024) KiB: \(report.touchLines) touch lines, \(report.gestureLines) gesture lines); open it in a browser\n")
        return 0
    }
}
