import TouchSystem

/// What an input device says about itself: its name and ids, the event codes it can send, its axes'
/// ranges and its properties. Read from a live device through libevdev, or from a recording's header.
public struct DeviceDescription: Equatable, Sendable {
    public var name: String
    public var bustype: UInt16 = 0
    public var vendor: UInt16 = 0
    public var product: UInt16 = 0
    public var version: UInt16 = 0
    /// INPUT_PROP_* bits that are set.
    public var properties: Set<Int> = []
    /// Event codes by type, e.g. `codes[EventType.abs]` holds the ABS_* codes the device has.
    public var codes: [UInt16: Set<UInt16>] = [:]
    /// Ranges of the absolute axes.
    public var absInfo: [UInt16: AbsInfo] = [:]

    public init(name: String) {
        self.name = name
    }

    public func has(type: UInt16, code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }
    public func hasAbs(_ code: UInt16) -> Bool { has(type: EventType.abs, code: code) && absInfo[code] != nil }
    public func hasKey(_ code: UInt16) -> Bool { has(type: EventType.key, code: code) }

    /// Declares an absolute axis.
    public mutating func addAbs(_ code: UInt16, _ info: AbsInfo) {
        codes[EventType.abs, default: []].insert(code)
        absInfo[code] = info
    }

    /// "vvvv:pppp", lower-case hex, as lsusb and udev print it.
    public var vendorProduct: String { vendorProductText(vendor, product) }

    /// How the device reports contacts.
    public enum TouchProtocol: Equatable, Sendable, CustomStringConvertible {
        /// Multitouch protocol B: slots and tracking ids.
        case slots(count: Int)
        /// Multitouch protocol A: anonymous contacts separated by SYN_MT_REPORT.
        case anonymousContacts
        /// One contact: ABS_X/ABS_Y and BTN_TOUCH.
        case singleTouch

        public var description: String {
            switch self {
            case .slots(let n): "multitouch protocol B, \(n) slots"
            case .anonymousContacts: "multitouch protocol A"
            case .singleTouch: "single touch"
            }
        }
    }

    /// The most slots a description is believed for. Panels have ten to forty; a description that
    /// claims millions (a broken recording, found by `make fuzz`: 27,760,000) would make every slot
    /// table gigabytes. A contact in a slot past this is reported as a kernel bug and ignored, as any
    /// out-of-range slot is.
    public static let maximumSlots = 256

    /// The protocol, or nil when the device has no position axes at all.
    public var touchProtocol: TouchProtocol? {
        if hasAbs(AbsCode.mtPositionX) && hasAbs(AbsCode.mtPositionY) {
            if let slot = absInfo[AbsCode.mtSlot], has(type: EventType.abs, code: AbsCode.mtSlot) {
                return .slots(count: min(max(1, Int(slot.maximum) + 1), DeviceDescription.maximumSlots))
            }
            return .anonymousContacts
        }
        if hasAbs(AbsCode.x) && hasAbs(AbsCode.y) { return .singleTouch }
        return nil
    }

    /// The axes that carry positions: ABS_MT_POSITION_X/Y when present, else ABS_X/Y.
    public var positionAxes: (x: AbsInfo, y: AbsInfo)? {
        if let x = absInfo[AbsCode.mtPositionX], let y = absInfo[AbsCode.mtPositionY] { return (x, y) }
        if let x = absInfo[AbsCode.x], let y = absInfo[AbsCode.y] { return (x, y) }
        return nil
    }

    /// What kind of device this is, by udev's rules (`udev-builtin-input_id.c`): a direct device or
    /// one with BTN_TOUCH and no BTN_TOOL_FINGER is a touchscreen; BTN_TOOL_FINGER without
    /// INPUT_PROP_DIRECT is a touchpad; a pen is a tablet.
    public enum Kind: String, Sendable { case touchscreen, touchpad, tablet, other }

    public var kind: Kind {
        guard let proto = touchProtocol else { return .other }
        let direct = properties.contains(InputProperty.direct)
        let pen = hasKey(KeyCode.toolPen)
        let finger = hasKey(KeyCode.toolFinger)
        let multitouch = proto != .singleTouch
        if finger && !pen && !direct { return .touchpad }
        if pen && !multitouch { return .tablet }
        if direct || multitouch || hasKey(KeyCode.touch) { return .touchscreen }
        return .other
    }
}

/// Four lower-case hex digits, as evemu and udev write ids.
func hex4(_ v: UInt16) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}

/// "vvvv:pppp", the form `--device` and scene files take and lsusb prints.
func vendorProductText(_ vendor: UInt16, _ product: UInt16) -> String { hex4(vendor) + ":" + hex4(product) }
