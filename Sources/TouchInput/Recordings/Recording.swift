import TouchSystem

/// A recording of an input device: its description and its events. Four text formats are read:
///
/// - evemu (`evemu-record`): `N:` name, `I:` bus vendor product version (hex), `P:` property bytes,
///   `B:` event-type bit masks, `A:` absinfo (code in hex; min max fuzz flat [resolution]),
///   `E:` events (`seconds type code value`, type and code in hex, value in decimal); `#` comments.
/// - a headerless `E:`-only file, paired with a separate evemu description (`DEVICE.desc`);
/// - evtest's text output (`Input device name:`, `Event code N (NAME)` with Min/Max/Resolution,
///   `Event: time T, type X (…), code Y (…), value V`, `Event: time T, ---- SYN_REPORT ----`);
/// - `libinput record`'s YAML (LibinputRecording.swift), which describes its device itself.
///
/// A malformed line is an error that names the file, the line and the reason. A recording cut short (a
/// file cut by a mail client or a full disk) is read as far as it is whole and says where it was cut
/// (`truncation`); events after the last SYN_REPORT at a clean end of the file (evemu-record stopped by
/// Ctrl-C) are dropped and counted (`unfinishedEvents`).
public struct Recording: Sendable {
    public var device: DeviceDescription
    public var events: [InputEvent]
    /// Where it came from, for messages.
    public var source: String
    /// Where the file was cut, when it was ("the recording is cut short: …", with its line): what is
    /// in `events` is what came before.
    public var truncation: RecordingError?
    /// Events after the last SYN_REPORT of a file that ends cleanly: a frame the recorder never
    /// finished, dropped (its count, for a warning).
    public var unfinishedEvents = 0

    public init(device: DeviceDescription, events: [InputEvent], source: String) {
        self.device = device
        self.events = events
        self.source = source
    }

    /// Loads `path`; a headerless file needs `descriptionPath`. When none is given and the file has no
    /// header, a `<prefix>__DEVICE.desc` beside it is used (the naming of Tests/Fixtures).
    public static func load(path: String, descriptionPath: String? = nil) throws -> Recording {
        let text = try Files.readText(path)
        if LibinputRecordParser.isLibinputRecord(text) {           // it describes its device itself
            return try whole(text, file: path, yaml: true) { try LibinputRecordParser(file: path).parse($0) }
        }
        var description: DeviceDescription?
        var descPath = descriptionPath
        if descPath == nil && !RecordingParser.hasHeader(text), let guess = companionDescription(for: path),
           Files.exists(guess) {
            descPath = guess
        }
        if let descPath {
            let descText = try Files.readText(descPath)
            var parser = RecordingParser(file: descPath)
            description = try parser.parse(descText, description: nil).device
        }
        return try whole(text, file: path, yaml: false) { t in
            var parser = RecordingParser(file: path)
            return try parser.parse(t, description: description)
        }
    }

    /// Parses recording text; `description` is for headerless files.
    public static func parse(_ text: String, file: String = "<recording>", description: DeviceDescription? = nil) throws -> Recording {
        if LibinputRecordParser.isLibinputRecord(text) {
            return try whole(text, file: file, yaml: true) { try LibinputRecordParser(file: file).parse($0) }
        }
        return try whole(text, file: file, yaml: false) { t in
            var parser = RecordingParser(file: file)
            return try parser.parse(t, description: description)
        }
    }

    /// The recording as far as `text` is whole. A file whose last line has no newline ends inside that
    /// line: it was cut there, and is parsed without it (an error on an earlier line is an error, as
    /// before; a last line with its newline that does not parse is malformed, not cut). libinput
    /// record's YAML whose last `evdev` frame has no SYN_REPORT was cut too: it writes whole frames.
    static func whole(_ full: String, file: String, yaml: Bool, _ parse: (String) throws -> Recording) throws -> Recording {
        var truncation: RecordingError?
        func cut(_ line: Int, _ how: String) -> RecordingError {
            RecordingError(file: file, line: line, reason: "the recording is cut short: " + how)
        }
        var recording: Recording
        if let last = full.utf8.last, last != UInt8(ascii: "\n") {
            let lines = full.lines()
            let lastLine = lines.last.map { String($0.prefix(40)) } ?? ""
            truncation = cut(lines.count, "its last line has no end (\"\(lastLine)\" and no newline)")
            var rest = withoutLastLine(full)
            // YAML cut inside a block may leave a key without its value: lines go until it reads.
            var tries = 0
            while true {
                do {
                    recording = try parse(rest)
                    break
                } catch let e as RecordingError where yaml && tries < 8 && e.line >= lastContentLine(rest) {
                    rest = withoutLastLine(rest)
                    tries += 1
                }
            }
        } else {
            recording = try parse(full)
        }
        if let lastSync = recording.events.lastIndex(where: { $0.type == EventType.syn && $0.code == SynCode.report }) {
            let after = recording.events.count - lastSync - 1
            if after > 0 {
                recording.events.removeLast(after)
                if yaml && truncation == nil {
                    truncation = cut(full.lines().count, "its last evdev frame has no SYN_REPORT (libinput record writes whole frames)")
                } else if truncation == nil {
                    recording.unfinishedEvents = after
                }
            }
        }
        recording.truncation = truncation
        return recording
    }

    /// `text` without its last line (and that line's newline), cut by bytes ("\r\n" is one Character).
    static func withoutLastLine(_ text: String) -> String {
        var bytes = Array(text.utf8)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        guard let nl = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return "" }
        return String(decoding: bytes[...nl], as: UTF8.self)
    }

    /// The number of the last line with anything but blanks on it (0: none).
    static func lastContentLine(_ text: String) -> Int {
        let lines = text.lines()
        return (lines.lastIndex { !$0.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" } } ?? -1) + 1
    }

    /// The warning for `unfinishedEvents`, or nil.
    public var unfinishedWarning: String? {
        guard unfinishedEvents > 0 else { return nil }
        return "\(source): the last \(unfinishedEvents) event\(unfinishedEvents == 1 ? "" : "s") came after the last SYN_REPORT "
            + "(a frame the recorder never finished, as evemu-record stopped by Ctrl-C leaves it): dropped"
    }

    /// Refuses a recording without events, naming what it is and what to pass instead: most often a
    /// device description (`DEVICE.desc`) given where its recording was meant.
    public func requireEvents() throws {
        guard events.isEmpty else { return }
        throw RecordingError(file: source, line: 1, reason: "a description of \"\(device.name)\" without events; "
            + "replay the recording of its events, with this file as its description: --desc \(source) RECORDING")
    }

    /// `dir/source__device__gesture.events` → `dir/source__device__DEVICE.desc`.
    static func companionDescription(for path: String) -> String? {
        let parts = path.components(separatedBy2: "__")
        guard parts.count >= 3 else { return nil }
        return parts.dropLast().joined(separator: "__") + "__DEVICE.desc"
    }

    /// The number of contacts that begin in the recording: tracking-id starts for protocol B and
    /// tracking-id-carrying protocol A, touch-downs for single-touch devices.
    public var trackingIDStarts: Int {
        var state = KernelState(device: device)
        var count = 0
        var frameIDs: Set<Int32> = [], previousIDs: Set<Int32> = []
        for e in events {
            switch device.touchProtocol {
            case .slots:
                if e.type == EventType.abs && e.code == AbsCode.mtTrackingID && e.value >= 0
                    && state.slots.indices.contains(state.currentSlot)
                    && state.trackingID(slot: state.currentSlot) != e.value { count += 1 }
            case .anonymousContacts:
                if e.type == EventType.abs && e.code == AbsCode.mtTrackingID { frameIDs.insert(e.value) }
                if e.type == EventType.syn && e.code == SynCode.report {
                    count += frameIDs.subtracting(previousIDs).count
                    previousIDs = frameIDs
                    frameIDs = []
                }
            case .singleTouch:
                if e.type == EventType.key && e.code == KeyCode.touch && e.value == 1
                    && !state.keys.contains(KeyCode.touch) { count += 1 }
            case nil:
                break
            }
            state.apply(e)
        }
        return count
    }
}

/// A line of a recording that could not be read.
public struct RecordingError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}
