import TouchSystem

/// `libinput record`'s files (libinput-record(1), "FILE FORMAT", version 1): YAML with the system, then
/// per device its evdev description and its events, one `evdev` list per frame:
///
///     version: 1
///     devices:
///       - node: /dev/input/event4
///         evdev:
///           name: "Atmel maXTouch Touchscreen"
///           id: [24, 0, 0, 0]                       # bustype, vendor, product, version (decimal)
///           codes:
///             1: [330]                              # EV_KEY: BTN_TOUCH
///             3: [0, 1, 47, 53, 54, 57]             # EV_ABS
///           absinfo:
///             0: [0, 799, 0, 0, 0]                  # min, max, fuzz, flat, resolution
///           properties: [1]                         # INPUT_PROP_DIRECT
///         events:
///           - evdev:
///             - [  0,      0,   3,  57,     0]      # sec, usec, type, code, value
///             - [  0,      0,   0,   0,     0]      # SYN_REPORT
///
/// This is the format libinput asks for in bug reports, and what `libinput record` writes today where
/// evemu-record is no longer installed. The man page asks parsers to ignore keys they do not know, so
/// everything but the description and the evdev events is read as YAML and passed over (the system,
/// udev, quirks, hid reports, `--with-libinput` events). Of several recorded devices, the first with
/// position axes is taken (a touchscreen recorded with a keyboard). A malformed line is an error that
/// names the file, the line and the reason, as for the other formats.
struct LibinputRecordParser {
    let file: String

    init(file: String) {
        self.file = file
    }

    /// A libinput recording starts with `version:` (comments aside) or has a top-level `devices:` key.
    static func isLibinputRecord(_ text: String) -> Bool {
        for line in text.lines(limit: 200) where !line.isEmpty {
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("version:") || line.hasPrefix("devices:") { return true }
            if line.hasPrefix("E:") || line.hasPrefix("N:") || line.hasPrefix("Event: time") || line.hasPrefix("Input device") {
                return false
            }
        }
        return false
    }

    func parse(_ text: String) throws -> Recording {
        var yaml = YAMLReader(text: text, file: file)
        let root = try yaml.document()
        guard let top = root.mapping else {
            throw fail(root.line, "a libinput recording is a mapping of version, devices, …; this document is not one")
        }
        guard let version = top.value(for: "version") else {
            throw fail(root.line, "no \"version:\" key: not a libinput record file (libinput-record(1))")
        }
        guard version.scalar == "1" else {
            throw fail(version.line, "libinput record format version \(version.scalar ?? "?") is not supported (this reads version 1)")
        }
        guard let devicesNode = top.value(for: "devices"), let devices = devicesNode.sequence else {
            throw fail(root.line, "no \"devices:\" list: the recording has no device")
        }
        var names: [String] = []
        for deviceNode in devices {
            guard let device = deviceNode.mapping else { throw fail(deviceNode.line, "a device is a mapping of node, evdev, events") }
            guard let evdev = device.value(for: "evdev") else { throw fail(deviceNode.line, "the device has no \"evdev:\" description") }
            let description = try deviceDescription(evdev)
            guard description.positionAxes != nil else {
                names.append("\"" + description.name + "\"")
                continue
            }
            var recording = Recording(device: description, events: [], source: file)
            if let events = device.value(for: "events") {
                recording.events = try self.events(events)
            }
            return recording
        }
        throw fail(devicesNode.line, "no recorded device has an ABS_MT_POSITION_X or ABS_X axis (\(names.joined(separator: ", "))): "
                   + "it is not a touch device; record the touchscreen (libinput record /dev/input/eventN)")
    }

    // MARK: The evdev description

    private func deviceDescription(_ node: YAMLNode) throws -> DeviceDescription {
        guard let evdev = node.mapping else { throw fail(node.line, "\"evdev:\" is a mapping of name, id, codes, absinfo, properties") }
        var device = DeviceDescription(name: evdev.value(for: "name")?.scalar ?? "")
        if let id = evdev.value(for: "id") {
            let f: [UInt16] = try numbers(id, "id", count: 4)
            (device.bustype, device.vendor, device.product, device.version) = (f[0], f[1], f[2], f[3])
        }
        if let codes = evdev.value(for: "codes") {
            for (type, list) in try keyedByCode(codes, "\"codes:\" maps an event type to its codes", "event type", maximum: EventType.max) {
                let codes: [UInt16] = try numbers(list, "codes of type \(type)")
                if type == EventType.syn { continue }       // EV_SYN's codes say nothing about the device
                device.codes[type, default: []].formUnion(codes)
            }
        }
        if let absinfo = evdev.value(for: "absinfo") {
            for (code, list) in try keyedByCode(absinfo, "\"absinfo:\" maps an axis code to its range", "axis code", maximum: AbsCode.max) {
                let v: [Int32] = try numbers(list, "absinfo of axis \(code) (min, max, fuzz, flat, resolution)", count: 5)
                guard v[0] <= v[1] else { throw fail(list.line, "axis \(code) has minimum \(v[0]) above maximum \(v[1])") }
                device.addAbs(code, AbsInfo(value: v[0], minimum: v[0], maximum: v[1], fuzz: v[2], flat: v[3], resolution: v[4]))
            }
        }
        if let properties = evdev.value(for: "properties") {
            let bits: [Int] = try numbers(properties, "properties")
            device.properties.formUnion(bits)
        }
        return device
    }

    // MARK: The events

    /// Every `evdev` frame of the `events:` list, in order; `hid` and `libinput` entries are passed over.
    private func events(_ node: YAMLNode) throws -> [InputEvent] {
        guard let list = node.sequence else { throw fail(node.line, "\"events:\" is a list of frames (- evdev: …)") }
        var events: [InputEvent] = []
        for entry in list {
            guard let frame = entry.mapping?.value(for: "evdev") else { continue }
            guard let rows = frame.sequence else { throw fail(frame.line, "an \"evdev:\" frame is a list of [sec, usec, type, code, value]") }
            for row in rows {
                let f: [Int64] = try numbers(row, "event [sec, usec, type, code, value]", count: 5)
                guard f[1] >= 0 && f[1] < 1_000_000 else { throw fail(row.line, "usec \(f[1]) is outside 0…999999") }
                guard f[2] >= 0 && f[2] <= Int64(EventType.max) else {
                    throw fail(row.line, "event type \(f[2]) is out of range (0…\(EventType.max))")
                }
                guard f[3] >= 0 && f[3] <= Int64(UInt16.max) else { throw fail(row.line, "event code \(f[3]) is out of range") }
                guard let value = Int32(exactly: f[4]) else { throw fail(row.line, "event value \(f[4]) does not fit 32 bits") }
                events.append(InputEvent(time: Double(f[0]) + Double(f[1]) / 1_000_000, type: UInt16(f[2]), code: UInt16(f[3]),
                                         value: value))
            }
        }
        return events
    }

    // MARK: Numbers

    /// A mapping keyed by decimal codes (`codes:` by event type, `absinfo:` by axis): its entries, each
    /// key read as a `what` no greater than `maximum`.
    private func keyedByCode(_ node: YAMLNode, _ notAMapping: String, _ what: String, maximum: UInt16) throws -> [(UInt16, YAMLNode)] {
        guard let mapping = node.mapping else { throw fail(node.line, notAMapping) }
        return try mapping.entries.map { entry in
            let code: UInt16 = try number(Substring(entry.key), line: entry.value.line, what)
            guard code <= maximum else { throw fail(entry.value.line, "\(what) \(code) is out of range (0…\(maximum))") }
            return (code, entry.value)
        }
    }

    private func numbers<T: FixedWidthInteger>(_ node: YAMLNode, _ what: String, count: Int? = nil) throws -> [T] {
        guard let items = node.sequence else { throw fail(node.line, "\(what): expected a [ … ] list of numbers") }
        if let count, items.count != count {
            throw fail(node.line, "\(what): expected \(count) numbers, found \(items.count)")
        }
        return try items.map { item in
            guard let s = item.scalar else { throw fail(item.line, "\(what): expected a number, found a list or mapping") }
            return try number(Substring(s), line: item.line, what)
        }
    }

    private func number<T: FixedWidthInteger>(_ s: Substring, line: Int, _ what: String) throws -> T {
        guard let v = T(s, radix: 10) else { throw fail(line, "\(what): \"\(s)\" is not a decimal number in range") }
        return v
    }

    private func fail(_ line: Int, _ reason: String) -> RecordingError {
        RecordingError(file: file, line: line, reason: reason)
    }
}
