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

struct RecordingParser {
    let file: String
    private var device = DeviceDescription(name: "")
    private var hasHeader = false
    private var bitmaskOffsets: [UInt16: Int] = [:]
    private var events: [InputEvent] = []
    private var lineNumber = 0
    /// evtest: the axis whose Value/Min/Max lines follow, and the event type being listed.
    private var evtestAxis: UInt16?
    private var evtestType: UInt16?

    init(file: String) {
        self.file = file
    }

    static func hasHeader(_ text: String) -> Bool {
        for line in text.lines(limit: 200) where !line.isEmpty {
            if line.hasPrefix("N:") || line.hasPrefix("Input device name:") { return true }
            if line.hasPrefix("E:") || line.hasPrefix("Event: time") { return false }
        }
        return false
    }

    mutating func parse(_ text: String, description: DeviceDescription?) throws -> Recording {
        if let description {
            device = description
            hasHeader = true
        }
        for line in text.lines() {
            lineNumber += 1
            try parseLine(line)
        }
        guard hasHeader else {
            throw RecordingError(file: file, line: 1, reason: "no device description (no N:/A: header); pass the device's description file (DEVICE.desc)")
        }
        guard device.positionAxes != nil else {
            throw RecordingError(file: file, line: 1, reason: "the device has no ABS_MT_POSITION_X and no ABS_X axis; it is not a touch device")
        }
        return Recording(device: device, events: events, source: file)
    }

    private func fail(_ reason: String) -> RecordingError {
        RecordingError(file: file, line: lineNumber, reason: reason)
    }

    private mutating func parseLine(_ line: Substring) throws {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return }
        if line.hasPrefix("E:") { return try parseEvent(line.dropFirst(2)) }
        if line.hasPrefix("N:") {
            device.name = String(line.dropFirst(2).drop { $0 == " " })
            hasHeader = true
            return
        }
        if line.hasPrefix("I:") { return try parseID(line.dropFirst(2)) }
        if line.hasPrefix("P:") { return try parseProperties(line.dropFirst(2)) }
        if line.hasPrefix("B:") { return try parseBits(line.dropFirst(2)) }
        if line.hasPrefix("A:") { return try parseAbs(line.dropFirst(2)) }
        if line.hasPrefix("S:") || line.hasPrefix("L:") { return }     // evemu 2: switches, LEDs
        if line.hasPrefix("Event: time") { return try parseEvtestEvent(line) }
        if trimmed.hasPrefix("Input device name:") {
            device.name = String(trimmed.dropFirst("Input device name:".count)).trimmed().unquoted()
            hasHeader = true
            return
        }
        if trimmed.hasPrefix("Input device ID:") { return try parseEvtestID(trimmed) }
        if trimmed.hasPrefix("Event type ") {
            evtestType = try number(trimmed.dropFirst("Event type ".count).prefix { $0.isNumber }, radix: 10, "event type")
            evtestAxis = nil
            return
        }
        if trimmed.hasPrefix("Event code ") {
            let code: UInt16 = try number(trimmed.dropFirst("Event code ".count).prefix { $0.isNumber }, radix: 10, "event code")
            if let type = evtestType {
                device.codes[type, default: []].insert(code)
                if type == EventType.abs {
                    device.absInfo[code] = AbsInfo(minimum: 0, maximum: 0)
                    evtestAxis = code
                }
            }
            return
        }
        if trimmed.hasPrefix("Property type ") {
            let p: Int = try number(trimmed.dropFirst("Property type ".count).prefix { $0.isNumber }, radix: 10, "property")
            device.properties.insert(p)
            return
        }
        if let axis = evtestAxis {
            let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2, let value = Int32(parts[1]) {
                switch parts[0] {
                case "Value": device.absInfo[axis]?.value = value; return
                case "Min": device.absInfo[axis]?.minimum = value; return
                case "Max": device.absInfo[axis]?.maximum = value; return
                case "Fuzz": device.absInfo[axis]?.fuzz = value; return
                case "Flat": device.absInfo[axis]?.flat = value; return
                case "Resolution": device.absInfo[axis]?.resolution = value; return
                default: break
                }
            }
        }
        for known in ["Input driver version", "Supported events:", "Properties:", "Testing ...", "Select the device"]
        where trimmed.hasPrefix(known) { return }
        throw fail("unrecognized line \"\(line.prefix(60))\" (expected an evemu N:/I:/P:/B:/A:/E: line or evtest output)")
    }

    private mutating func parseEvent(_ rest: Substring) throws {
        let body = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? rest
        let f = body.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard f.count == 4 else { throw fail("an E: line needs 4 fields (seconds type code value), found \(f.count)") }
        guard let time = Double(f[0]), time.isFinite else { throw fail("\"\(f[0])\" is not a timestamp in seconds") }
        let type: UInt16 = try number(f[1], radix: 16, "event type")
        let code: UInt16 = try number(f[2], radix: 16, "event code")
        guard let value = Int32(f[3]) else { throw fail("\"\(f[3])\" is not a decimal event value") }
        guard type <= EventType.max else { throw fail("event type \(type) is out of range (0…\(EventType.max))") }
        events.append(InputEvent(time: time, type: type, code: code, value: value))
    }

    private mutating func parseID(_ rest: Substring) throws {
        let f = rest.split(separator: " ", omittingEmptySubsequences: true)
        guard f.count == 4 else { throw fail("an I: line needs 4 hex fields (bus vendor product version)") }
        device.bustype = try number(f[0], radix: 16, "bus type")
        device.vendor = try number(f[1], radix: 16, "vendor id")
        device.product = try number(f[2], radix: 16, "product id")
        device.version = try number(f[3], radix: 16, "version")
    }

    private mutating func parseProperties(_ rest: Substring) throws {
        let bytes = rest.split(separator: " ", omittingEmptySubsequences: true)
        let offset = bitmaskOffsets[0xffff, default: 0]
        for (i, b) in bytes.enumerated() {
            let byte: UInt8 = try number(b, radix: 16, "property byte")
            for bit in 0..<8 where byte & (1 << bit) != 0 { device.properties.insert((offset + i) * 8 + bit) }
        }
        bitmaskOffsets[0xffff] = offset + bytes.count
    }

    private mutating func parseBits(_ rest: Substring) throws {
        let f = rest.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = f.first else { throw fail("a B: line needs an event type and mask bytes") }
        let type: UInt16 = try number(first, radix: 16, "event type")
        let offset = bitmaskOffsets[type, default: 0]
        for (i, b) in f.dropFirst().enumerated() {
            let byte: UInt8 = try number(b, radix: 16, "mask byte")
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                let code = UInt16((offset + i) * 8 + bit)
                if type == 0 { continue }          // EV_SYN's mask lists the types, not codes
                device.codes[type, default: []].insert(code)
            }
        }
        bitmaskOffsets[type] = offset + f.count - 1
    }

    private mutating func parseAbs(_ rest: Substring) throws {
        let f = rest.split(separator: " ", omittingEmptySubsequences: true)
        guard f.count == 5 || f.count == 6 else { throw fail("an A: line needs 5 or 6 fields (code min max fuzz flat [resolution])") }
        let code: UInt16 = try number(f[0], radix: 16, "axis code")
        guard code <= AbsCode.max else { throw fail("axis code \(code) is out of range (0…\(AbsCode.max))") }
        var values: [Int32] = []
        for s in f.dropFirst() {
            guard let v = Int32(s) else { throw fail("\"\(s)\" is not a decimal absinfo value") }
            values.append(v)
        }
        guard values[0] <= values[1] else { throw fail("axis \(String(code, radix: 16)) has minimum \(values[0]) above maximum \(values[1])") }
        device.addAbs(code, AbsInfo(value: values[0], minimum: values[0], maximum: values[1], fuzz: values[2],
                                    flat: values[3], resolution: values.count > 4 ? values[4] : 0))
        hasHeader = true
    }

    private mutating func parseEvtestID(_ line: Substring) throws {
        // "Input device ID: bus 0x18 vendor 0x0 product 0x0 version 0x1"
        let f = line.split(separator: " ", omittingEmptySubsequences: true)
        func field(_ name: String) throws -> UInt16 {
            guard let i = f.firstIndex(where: { $0 == name }), i + 1 < f.count else { return 0 }
            var s = f[i + 1]
            if s.hasPrefix("0x") { s = s.dropFirst(2) }
            return try number(s, radix: 16, name)
        }
        device.bustype = try field("bus")
        device.vendor = try field("vendor")
        device.product = try field("product")
        device.version = try field("version")
    }

    private mutating func parseEvtestEvent(_ line: Substring) throws {
        // Event: time 1329115901.179359, type 3 (EV_ABS), code 57 (ABS_MT_TRACKING_ID), value 969
        // Event: time 1329115901.179404, -------------- SYN_REPORT ------------
        let afterTime = line.dropFirst("Event: time".count).drop { $0 == " " }
        guard let comma = afterTime.firstIndex(of: ",") else { throw fail("an evtest event needs \"time T, …\"") }
        guard let time = Double(afterTime[..<comma]) else { throw fail("\"\(afterTime[..<comma])\" is not a timestamp") }
        let rest = afterTime[afterTime.index(after: comma)...]
        if rest.contains("SYN_REPORT") {
            events.append(InputEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0)); return
        }
        if rest.contains("SYN_DROPPED") {
            events.append(InputEvent(time: time, type: EventType.syn, code: SynCode.dropped, value: 0)); return
        }
        if rest.contains("SYN_MT_REPORT") {
            events.append(InputEvent(time: time, type: EventType.syn, code: SynCode.mtReport, value: 0)); return
        }
        func field(_ name: String) throws -> Substring {
            guard let r = rest.range(of2: name + " ") else { throw fail("an evtest event needs \"\(name) N\"") }
            return rest[r.upperBound...].prefix { $0 == "-" || $0.isNumber }
        }
        let type: UInt16 = try number(try field("type"), radix: 10, "event type")
        let code: UInt16 = try number(try field("code"), radix: 10, "event code")
        guard let value = Int32(try field("value")) else { throw fail("the event value is not a number") }
        events.append(InputEvent(time: time, type: type, code: code, value: value))
    }

    private func number<T: FixedWidthInteger>(_ s: Substring, radix: Int, _ what: String) throws -> T {
        guard let v = T(s, radix: radix) else {
            throw fail("\"\(s)\" is not a \(radix == 16 ? "hexadecimal" : "decimal") \(what)")
        }
        return v
    }
}

extension String {
    /// The text's lines without their "\n" or "\r\n", found by bytes (a Character-by-Character split
    /// walks grapheme clusters, several times slower on a recording of a line per event, and never cuts
    /// at "\r\n", which is one Character); at most `limit`.
    func lines(limit: Int = .max) -> [Substring] {
        var result: [Substring] = []
        let bytes = utf8
        var start = bytes.startIndex
        while start < bytes.endIndex && result.count < limit {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            let line = self[start..<end]
            result.append(line.utf8.last == UInt8(ascii: "\r") ? line.dropLast() : line)
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        return result
    }
}

extension StringProtocol {
    func trimmed() -> String {
        String(trimmedSpaces())
    }

    /// Without leading and trailing spaces and tabs.
    func trimmedSpaces() -> Substring {
        let s = self[...]
        let start = s.firstIndex { $0 != " " && $0 != "\t" } ?? s.endIndex
        let end = s[start...].lastIndex { $0 != " " && $0 != "\t" }.map { s.index(after: $0) } ?? start
        return Substring(s[start..<end])
    }

    /// Every occurrence of `needle` replaced (no Foundation).
    func replacingAll(_ needle: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while !rest.isEmpty {
            if rest.hasPrefix(needle) {
                result += replacement
                rest = rest.dropFirst(needle.count)
            } else {
                result.append(rest.removeFirst())
            }
        }
        return result
    }

    func unquoted() -> String {
        let s = String(self)
        if s.count >= 2 && s.hasPrefix("\"") && s.hasSuffix("\"") { return String(s.dropFirst().dropLast()) }
        return s
    }

    /// Splits on a multi-character separator (no Foundation).
    func components(separatedBy2 separator: String) -> [String] {
        var result: [String] = []
        var current = ""
        var rest = Substring(self)
        while !rest.isEmpty {
            if rest.hasPrefix(separator) {
                result.append(current)
                current = ""
                rest = rest.dropFirst(separator.count)
            } else {
                current.append(rest.removeFirst())
            }
        }
        result.append(current)
        return result
    }

    /// The range of the first occurrence of `needle` (no Foundation).
    func range(of2 needle: String) -> Range<Index>? {
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
