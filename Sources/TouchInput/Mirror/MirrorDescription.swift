import TouchSystem

/// The description of a touchscreen's pass-through mirror: the virtual device the compositor reads
/// instead of the panel once touchbridged has grabbed it (README "Pass-through").
///
/// It is the source's own description, so that the compositor treats it as the same panel: the same
/// bus, vendor, product and version, the same properties (INPUT_PROP_DIRECT), the same ABS_MT_* and
/// single-touch axes with the same ranges and resolutions, the same slot count. Coordinates are the
/// source's own device units, unmodified: calibration and output mapping apply as before. What differs:
/// - the name, "<source name> (TouchBridge)", and the phys, "touchbridge/<source event node>", by which
///   udev (udev/70-touchbridge.rules) and touchbridged itself recognize a mirror;
/// - ABS_MT_TOOL_TYPE is always there (finger … palm): a touch a gesture claims is cancelled by
///   turning it into a palm, which libinput reports as TOUCH_CANCEL;
/// - the mirror always speaks multitouch protocol B: a protocol A source gets `anonymousSlotCount`
///   slots, a single-touch one a single slot (with its ABS_X/ABS_Y kept);
/// - no fuzz or flat: the kernel already filtered the source's values, and filtering them again on
///   the mirror would move them;
/// - BTN_TOUCH always (and BTN_TOOL_FINGER when the source has it), for the legacy pointer emulation.
public enum MirrorDescription {
    /// What the kernel's uinput accepts as a name (UINPUT_MAX_NAME_SIZE, with its NUL).
    public static let maximumNameBytes = 79
    /// The name suffix of every mirror.
    public static let nameSuffix = " (TouchBridge)"
    /// The phys of every mirror starts with this.
    public static let physPrefix = "touchbridge/"
    /// Slots of a mirror of a protocol A panel, which has none: ten fingers.
    public static let anonymousSlotCount = 10
    /// At most this many slots (a panel claiming more is given as many).
    public static let maximumSlots = 64

    /// The mirror of `source`.
    public static func of(_ source: DeviceDescription) -> DeviceDescription {
        var m = DeviceDescription(name: name(for: source.name))
        m.bustype = source.bustype
        m.vendor = source.vendor
        m.product = source.product
        m.version = source.version
        m.properties = source.properties
        m.properties.insert(InputProperty.direct)
        m.codes[EventType.key] = [KeyCode.touch]
        if source.hasKey(KeyCode.toolFinger) { m.codes[EventType.key, default: []].insert(KeyCode.toolFinger) }

        let slots: Int
        switch source.touchProtocol {
        case .slots(let n): slots = n
        case .anonymousContacts: slots = anonymousSlotCount
        case .singleTouch, nil: slots = 1
        }
        m.addAbs(AbsCode.mtSlot, AbsInfo(minimum: 0, maximum: Int32(min(slots, maximumSlots) - 1)))
        // The per-contact axes: the source's ABS_MT_* ones, or for a single-touch source its ABS_X,
        // ABS_Y and ABS_PRESSURE as their ABS_MT_ counterparts.
        for code in AbsCode.slotAxes {
            if let info = source.hasAbs(code) ? source.absInfo[code] : nil {
                m.addAbs(code, unfiltered(info))
            }
        }
        if source.touchProtocol == .singleTouch {
            for (single, mt) in [(AbsCode.x, AbsCode.mtPositionX), (AbsCode.y, AbsCode.mtPositionY),
                                 (AbsCode.pressure, AbsCode.mtPressure)] {
                if let info = source.hasAbs(single) ? source.absInfo[single] : nil { m.addAbs(mt, unfiltered(info)) }
            }
        }
        if !m.hasAbs(AbsCode.mtTrackingID) { m.addAbs(AbsCode.mtTrackingID, AbsInfo(minimum: 0, maximum: 65535)) }
        let tool = source.hasAbs(AbsCode.mtToolType) ? source.absInfo[AbsCode.mtToolType]! : AbsInfo(minimum: 0, maximum: 0)
        m.addAbs(AbsCode.mtToolType, AbsInfo(minimum: min(tool.minimum, MTToolType.finger),
                                             maximum: max(tool.maximum, MTToolType.palm)))
        // The legacy single-touch axes the source has, driven by the oldest mirrored touch.
        for code in [AbsCode.x, AbsCode.y, AbsCode.pressure] {
            if let info = source.hasAbs(code) ? source.absInfo[code] : nil { m.addAbs(code, unfiltered(info)) }
        }
        return m
    }

    /// "<name> (TouchBridge)", the source's name cut (at a character boundary) so that the whole fits.
    public static func name(for source: String) -> String {
        let room = maximumNameBytes - nameSuffix.utf8.count
        var kept = ""
        for c in source {
            guard kept.utf8.count + String(c).utf8.count <= room else { break }
            kept.append(c)
        }
        return kept + nameSuffix
    }

    /// The phys that names the source (its event node's name, e.g. "event5").
    public static func phys(forSourceNode node: String) -> String {
        physPrefix + Files.baseName(node)
    }

    /// Whether a device is a mirror (of this or another touchbridged): by its phys, else its name.
    public static func isMirror(name: String, phys: String?) -> Bool {
        if let phys, phys.hasPrefix(physPrefix) { return true }
        return name.hasSuffix(nameSuffix)
    }

    private static func unfiltered(_ info: AbsInfo) -> AbsInfo {
        AbsInfo(value: 0, minimum: info.minimum, maximum: info.maximum, fuzz: 0, flat: 0, resolution: info.resolution)
    }
}
