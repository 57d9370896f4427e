import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    /// The udev properties that compositors and libinput map a touchscreen by, which a pass-through
    /// mirror must carry too: udev/70-touchbridge.rules runs this for every mirror (IMPORT{program}),
    /// with the mirror's event node name; it finds the panel through the mirror's phys
    /// ("touchbridge/event5") and prints the panel's properties as KEY=VALUE lines.
    package static let mirroredProperties: [String] = ["ID_INPUT_TOUCHSCREEN", "ID_INPUT_WIDTH_MM", "ID_INPUT_HEIGHT_MM", "ID_SEAT"]
    package static let mirroredPrefixes: [String] = ["LIBINPUT_", "WL_"]

    package static let udevMirrorProperties = Command("udev-mirror-properties", operands: "EVENT",
        "for udev: the mapping properties a pass-through mirror takes from its panel, as KEY=VALUE\nlines (EVENT: the mirror's event node, e.g. event7)") { a in
        try a.expect(1, "the mirror's event node (e.g. event7)")
        let sysname = Files.baseName(a.positional[0])
        guard let mirror = DeviceMonitor.info(eventNode: sysname) else {
            throw DeviceError.noSuchDevice(path: "/dev/input/" + sysname)
        }
        guard let phys = mirror.phys, phys.hasPrefix(MirrorDescription.physPrefix) else {
            throw Arguments.Failure(description: "touchbridgectl udev-mirror-properties: \(sysname) \"\(mirror.name)\" is not a TouchBridge mirror (its phys is \"\(mirror.phys ?? "")\")")
        }
        print("TOUCHBRIDGE_MIRROR=1")
        let source = String(phys.dropFirst(MirrorDescription.physPrefix.count))
        // A replay's mirror has no panel behind it.
        guard source.hasPrefix("event"), let panel = DeviceMonitor.info(eventNode: source) else { return 0 }
        print("TOUCHBRIDGE_SOURCE=\(panel.devnode)")
        for (key, value) in panel.properties.sorted(by: { $0.key < $1.key })
        where mirroredProperties.contains(key) || mirroredPrefixes.contains(where: { key.hasPrefix($0) }) {
            print("\(key)=\(value)")
        }
        // libinput's own rule (80-libinput-device-groups.rules) runs after ours and would give the mirror
        // a group of its own; 85-touchbridge-mirror-group.rules puts this one back after it.
        if let group = panel.properties["LIBINPUT_DEVICE_GROUP"] { print("TOUCHBRIDGE_DEVICE_GROUP=\(group)") }
        return 0
    }
}
