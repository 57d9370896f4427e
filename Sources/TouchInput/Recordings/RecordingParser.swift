import TouchSystem

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
    package func replacingAll(_ needle: String, with replacement: String) -> String {
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
