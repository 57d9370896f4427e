import TouchCore
import TouchInput
import TouchProtocol
import TouchSystem

/// The screen as TouchBridge sees it: a window with a tree of views carrying UIKit-style recognizers,
/// and the input devices mapped onto it. Read from a scene file (docs/scenes.md) or built in.
public final class Scene {
    public let window: Window
    public let devices: [DeviceConfig]
    /// Every recognizer, in the order the file declares them.
    public let recognizers: [GestureRecognizer]
    /// Every view, depth first, in the order the file declares them.
    public let views: [View]
    /// Where the scene came from ("built-in default" or a path).
    public let source: String
    /// The built-in scene's window follows the first device's physical size.
    public let isDefault: Bool
    /// The recognizers' delegate: simultaneous recognition as the scene declares it.
    package let delegate: SceneDelegate

    /// Whether some device may pass through: the scene's window is then a `PassthroughWindow`, which
    /// hears what the views hear and hands it to the mirrors.
    public var allowsPassthrough: Bool { window is PassthroughWindow }
    /// Every device passes through, whatever the entries say (`touchbridged --passthrough`).
    public internal(set) var passesEveryDevice = false
    /// What is legal but surely not meant (a view no touch can reach, an edge pan without edges): the
    /// daemon logs these and `touchbridgectl scene check` prints them.
    public internal(set) var warnings: [String] = []
    /// The views marked `"passthrough": false` (their subtrees are reserved with them).
    public internal(set) var reservedViews: [View] = []
    /// What recognizers do on the desktop (README "Actions"), in the order the file declares them.
    public internal(set) var actions: [(recognizer: GestureRecognizer, action: Action)] = []
    /// The recognizers that take part only in some apps (`apps`, `exceptApps`; docs/focus.md).
    package internal(set) var scopes: [(recognizer: GestureRecognizer, scope: AppScope)] = []
    /// What a pencil's barrel buttons do (`"pencilButtons"`: 1 for BTN_STYLUS, 2 for BTN_STYLUS2), when
    /// pressed: a click where the pen is, or keys (docs/pens.md).
    public internal(set) var pencilButtonActions: [Int: Action] = [:]
    /// The scene's `"keyboard"` as written (nil: the system's layout), and the layout its keys
    /// actions were resolved in.
    public internal(set) var keyboard: KeyboardNames?
    public internal(set) var keyboardLayout = KeyboardNames()
    /// The scene's `"display"`: the backlight dims and goes off when idle (docs/display.md); nil: it
    /// is left alone.
    public internal(set) var display: DisplayConfig?

    /// The action of `r`, if it has one.
    public func action(of r: GestureRecognizer) -> Action? {
        actions.first { $0.recognizer === r }?.action
    }

    /// Every device is turned this way, whatever the entries say (`touchbridged --rotation DEG`).
    public var rotationForEveryDevice: CoordinateMapping.Rotation?

    /// The entry that selects a device: the first that matches it, or for a scene without entries
    /// (every touchscreen) a default one; with what `--passthrough` and `--rotation` say for every
    /// device. Nil when entries exist and none matches.
    public func deviceConfig(for info: DeviceInfo) -> DeviceConfig? {
        var config: DeviceConfig
        if devices.isEmpty {
            config = DeviceConfig()
            config.passthrough = passesEveryDevice
        } else {
            guard let c = devices.first(where: { $0.selector.matches(info) }) else { return nil }
            config = c
        }
        if let r = rotationForEveryDevice { config.rotation = r }
        return config
    }

    /// The entry a recording played as a device takes, chosen as for a device the daemon finds (by
    /// name, vendorProduct and property; a devnode criterion cannot match a recording). The daemon's
    /// `--replay` and `touchbridgectl replay` both choose here, and refuse alike.
    public func replayConfig(for recording: Recording) throws -> DeviceConfig {
        let info = DeviceInfo(devnode: "", name: recording.device.name, vendor: recording.device.vendor,
                              product: recording.device.product)
        guard let config = deviceConfig(for: info) else {
            throw ConfigError(file: recording.source, line: nil, path: "", message: "no \"devices\" entry of \(source) selects \"\(recording.device.name)\" "
                + "(\(recording.device.vendorProduct)), so the daemon would not open it; add an entry that "
                + "matches it (entries match by name, vendorProduct and property; devnode cannot match a recording)")
        }
        return config
    }

    package init(window: Window, devices: [DeviceConfig], recognizers: [GestureRecognizer], views: [View],
         source: String, isDefault: Bool, delegate: SceneDelegate) {
        self.window = window
        self.devices = devices
        self.recognizers = recognizers
        self.views = views
        self.source = source
        self.isDefault = isDefault
        self.delegate = delegate
    }

    /// The socket protocol's "type" of a recognizer.
    public static func typeName(_ r: GestureRecognizer) -> String {
        RecognizerKind(r).name.description
    }

    /// Loads a scene file. With `passthrough` every device entry passes through (`touchbridged
    /// --passthrough`); otherwise those that say `"passthrough": true`.
    public static func load(path: String, passthrough: Bool = false, systemKeyboard: KeyboardNames = .system()) throws -> Scene {
        let text: String
        do { text = try Files.readText(path) } catch {
            throw ConfigError(file: path, line: nil, path: "", message: "cannot read the scene file: \(error)")
        }
        return try parse(text, file: path, passthrough: passthrough, systemKeyboard: systemKeyboard,
                         filesDirectory: Files.directoryName(path))
    }

    /// Parses scene JSON (see docs/scenes.md); `passthrough` as in `load(path:passthrough:)`.
    /// `systemKeyboard`: the layout keys actions are typed in when the scene names none.
    /// `filesDirectory`: where files the scene names are read from (nil: it may name none).
    public static func parse(_ text: String, file: String, passthrough: Bool = false,
                             systemKeyboard: KeyboardNames = .system(), filesDirectory: String? = nil) throws -> Scene {
        var parser = JSONParser(text)
        let json: JSON
        do { json = try parser.parse() } catch let e as JSONSyntaxError {
            throw ConfigError(file: file, line: e.line, path: "", message: "column \(e.column): \(e.message)")
        }
        let r = ConfigReader(file: file, lines: parser.lines)
        // Every error it can, in one pass (ConfigErrors): each part is read on past the one before it.
        var errors: [ConfigError] = []
        func note(_ error: Error) throws {
            guard let e = error as? ConfigError else { throw error }
            errors.append(e)
            if errors.count >= ConfigErrors.limit { throw ConfigErrors(errors: errors, stoppedAtLimit: true) }
        }
        let allowedTop = SceneSchema.topLevel
        var top: [(String, JSON)]
        do { top = try r.object(json, "", allowed: allowedTop) } catch {
            guard let members = json.objectValue else { throw error }
            try note(error)
            for (k, _) in members where !allowedTop.contains(k) && errors.last?.path != k {
                do { _ = try r.object(.object([(k, .null)]), "", allowed: allowedTop) } catch { try note(error) }
            }
            top = members.filter { allowedTop.contains($0.0) }
        }
        func member(_ k: String) -> JSON? { top.first { $0.0 == k }?.1 }

        var frame = Rect(x: 0, y: 0, width: 1, height: 1)
        do {
            guard let windowJSON = member(SceneSchema.window) else { throw r.error("", "missing \"\(SceneSchema.window)\": {\"\(SceneSchema.width)\": W, \"\(SceneSchema.height)\": H}") }
            let w = try r.object(windowJSON, SceneSchema.window, allowed: [SceneSchema.width, SceneSchema.height])
            func dimension(_ k: String) throws -> Double {
                guard let v = w.first(where: { $0.0 == k })?.1 else { throw r.error(SceneSchema.window, "missing \"\(k)\"") }
                let n = try r.number(v, r.join(SceneSchema.window, k))
                guard n > 0 else { throw r.error(r.join(SceneSchema.window, k), "must be greater than 0, found \(n)") }
                return n
            }
            frame = Rect(x: 0, y: 0, width: try dimension(SceneSchema.width), height: try dimension(SceneSchema.height))
        } catch { try note(error) }

        var devices: [DeviceConfig] = []
        if let d = member(SceneSchema.devices) {
            if let list = d.arrayValue {
                for (i, entry) in list.enumerated() {
                    do { devices.append(try parseDevice(entry, "\(SceneSchema.devices)[\(i)]", r)) } catch { try note(error) }
                }
            } else {
                try note(r.error(SceneSchema.devices, "must be an array of device entries"))
            }
        }
        if passthrough { for i in devices.indices { devices[i].passthrough = true } }
        var deviceWarnings: [String] = []
        for (i, d) in devices.enumerated() where d.passthroughApps.isEmpty ? false : !d.passthrough {
            deviceWarnings.append("\(file): \(SceneSchema.devices)[\(i)].\(DeviceSchema.passthroughAppsKey): pass-through is off for this device, so there is nothing to pass through: the compositor reads the panel itself and the app gets every touch anyway; while one of these apps is focused only the gestures stop (add \"passthrough\": true to keep the other apps from seeing the touches a gesture claims)")
        }
        // Only a scene some device may pass through pays for hearing what the views hear.
        let window = passthrough || devices.contains(where: \.passthrough) ? PassthroughWindow(frame: frame) : Window(frame: frame)
        window.name = "window"

        var keyboard: KeyboardNames?
        if let k = member(SceneSchema.keyboard) {
            do { keyboard = try parseKeyboard(k, SceneSchema.keyboard, r) } catch { try note(error) }
        }
        var display: DisplayConfig?
        if let d = member(SceneSchema.display) {
            do {
                var c = DisplayConfig()
                try DisplaySchema.schema.read(d, SceneSchema.display, r, into: &c)
                if let problem = DisplaySchema.check(c) { throw r.error(SceneSchema.display, problem) }
                display = c
            } catch { try note(error) }
        }
        var builder = Builder(reader: r, keyboard: keyboard ?? systemKeyboard)
        builder.filesDirectory = filesDirectory
        builder.errors = errors
        if let v = member(SceneSchema.views) {
            if let list = v.arrayValue {
                for (i, entry) in list.enumerated() {
                    do { window.addSubview(try builder.view(entry, "\(SceneSchema.views)[\(i)]")) } catch { try builder.note(error) }
                }
            } else {
                try builder.note(r.error(SceneSchema.views, "must be an array of views"))
            }
        }
        try builder.link()
        var pencilButtons: [Int: Action] = [:]
        if let b = member(SceneSchema.pencilButtons) {
            do {
                for (key, v) in try r.object(b, SceneSchema.pencilButtons, allowed: SceneSchema.buttons) {
                    let names = builder.keyboard
                    do {
                        pencilButtons[Int(key)!] = try ActionSchema.readPencilButton(v, r.join(SceneSchema.pencilButtons, key), r) { () throws(KeyboardError) in
                            try KeyboardLayout.compiled(names)
                        }
                    } catch { try builder.note(error) }
                }
            } catch let e as ConfigErrors { throw e } catch { try builder.note(error) }
        }
        try builder.finish()
        if let w = window as? PassthroughWindow { w.reserve(builder.reserved) }
        let scene = Scene(window: window, devices: devices, recognizers: builder.recognizers.map(\.recognizer),
                          views: builder.views, source: file, isDefault: false, delegate: builder.delegate)
        scene.passesEveryDevice = passthrough
        scene.reservedViews = builder.reserved
        scene.actions = builder.actions
        scene.scopes = builder.scopes
        scene.pencilButtonActions = pencilButtons
        scene.keyboard = keyboard
        scene.keyboardLayout = builder.keyboard
        scene.display = display
        scene.warnings = deviceWarnings + builder.warnings + builder.unreachable(in: window)
        return scene
    }

    /// `"keyboard": {"layout": "de", "variant": "", "options": "", "model": "pc105"}` (KeyboardSchema):
    /// compiled here, so that a layout xkb-data lacks is an error of the scene, not of its first keys action.
    package static func parseKeyboard(_ json: JSON, _ path: String, _ r: ConfigReader) throws -> KeyboardNames {
        var k = KeyboardNames()
        try KeyboardSchema.schema.read(json, path, r, into: &k)
        do { _ = try KeyboardLayout.compiled(k) } catch { throw r.error(path, error.description) }
        return k
    }

    /// A `"devices"` entry (DeviceSchema).
    package static func parseDevice(_ json: JSON, _ path: String, _ r: ConfigReader) throws -> DeviceConfig {
        var c = DeviceConfig()
        try DeviceSchema.schema.read(json, path, r, into: &c)
        return c
    }
}

package final class SceneDelegate: GestureRecognizerDelegate {
    package var pairs: Set<Pair> = []
    package var everyone: Set<ObjectIdentifier> = []
    /// The partners each recognizer named (`simultaneousWith`), as declared: for writing the scene back.
    package var declared: [ObjectIdentifier: [GestureRecognizer]] = [:]

    /// What `g`'s `simultaneousWith` said: nil for nothing, [] with `everyone` for "*".
    package func simultaneousDeclaration(of g: GestureRecognizer) -> (everyone: Bool, names: [GestureRecognizer]) {
        (everyone.contains(ObjectIdentifier(g)), declared[ObjectIdentifier(g)] ?? [])
    }

    package struct Pair: Hashable {
        let a: ObjectIdentifier, b: ObjectIdentifier
    }

    package func allow(_ a: GestureRecognizer, _ b: GestureRecognizer) {
        pairs.insert(Pair(a: ObjectIdentifier(a), b: ObjectIdentifier(b)))
        pairs.insert(Pair(a: ObjectIdentifier(b), b: ObjectIdentifier(a)))
    }

    package func gestureRecognizer(_ g: GestureRecognizer, shouldRecognizeSimultaneouslyWith other: GestureRecognizer) -> Bool {
        everyone.contains(ObjectIdentifier(g)) || pairs.contains(Pair(a: ObjectIdentifier(g), b: ObjectIdentifier(other)))
    }

    /// Scenes declare failure requirements statically (`requireToFail`): no pair is asked.
    package var answersFailureRequirements: Bool { false }

    package func recognizesSimultaneouslyWithEveryone(_ g: GestureRecognizer) -> Bool {
        everyone.contains(ObjectIdentifier(g))
    }
}
