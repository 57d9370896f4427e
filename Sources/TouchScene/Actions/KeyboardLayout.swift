import CEvdev
import CXkbcommon
import Glibc
import Synchronization
import TouchInput
import TouchProtocol
import TouchSystem

/// A keyboard layout as xkb names it (RMLVO, less the rules): what a scene's `"keyboard"` says, or the
/// system's (`/etc/default/keyboard`), else `us`. A desktop session's own layout setting lives in the
/// session (GNOME's gsettings, KDE's kxkbrc): a system daemon cannot see it, so a scene names it.
public struct KeyboardNames: Hashable, Sendable, CustomStringConvertible {
    public var layout = "us"
    public var variant = ""
    public var options = ""
    public var model = "pc105"

    public init(layout: String = "us", variant: String = "", options: String = "", model: String = "pc105") {
        self.layout = layout
        self.variant = variant
        self.options = options
        self.model = model
    }

    /// The file Debian's keyboard-configuration writes (and console-setup, and localectl on Debian).
    public static let systemFile = "/etc/default/keyboard"

    /// The system's layout from `file` (`XKBLAYOUT`, `XKBVARIANT`, `XKBOPTIONS`, `XKBMODEL`), else `us`.
    public static func system(file: String = systemFile) -> KeyboardNames {
        var names = KeyboardNames()
        guard let text = try? Files.readText(file) else { return names }
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces()
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            var value = String(line[line.index(after: eq)...]).trimmingSpaces()
            if value.count >= 2, let q = value.first, q == "\"" || q == "'", value.last == q { value = String(value.dropFirst().dropLast()) }
            switch line[..<eq].trimmingSpaces() {
            case "XKBLAYOUT": if !value.isEmpty { names.layout = value }
            case "XKBVARIANT": names.variant = value
            case "XKBOPTIONS": names.options = value
            case "XKBMODEL": if !value.isEmpty { names.model = value }
            default: break
            }
        }
        return names
    }

    /// xkb names are words of letters, digits and `_ - + : , ( )`: anything else (a path, a space) is
    /// refused before xkbcommon looks for files by it.
    package func validate() throws(KeyboardError) {
        for (what, value) in [("layout", layout), ("variant", variant), ("options", options), ("model", model)] {
            let bad = value.unicodeScalars.first { c in
                !(("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || "_-+:,()".unicodeScalars.contains(c))
            }
            if let bad {
                throw KeyboardError(description: "the keyboard \(what) \"\(value)\" has \"\(Character(bad))\", which no xkb name has (names are letters, digits and _ - + : , ( ))")
            }
        }
    }

    /// "de", "de(nodeadkeys)", "us with ctrl:swapcaps": as messages name it.
    public var description: String {
        let first = variant.isEmpty ? "\"\(layout)\"" : "\"\(layout)(\(variant))\""
        return options.isEmpty ? first : "\(first) with options \"\(options)\""
    }
}

/// One key typed with the modifier keys held for it: evdev key codes (`KEY_*`, xkb keycode − 8).
public struct KeyStroke: Equatable, Sendable {
    /// Pressed first, in this order, and released after the key in the reverse order.
    public var modifiers: [UInt16]
    public var key: UInt16
}

/// Why a key name could not be typed, with what to do instead.
public struct KeyboardError: Error, CustomStringConvertible, Equatable {
    public var description: String
}

/// A compiled xkb keymap and the way back from a keysym to the keys that type it: for each key, each
/// layout group and each shift level, the keysym there and the modifier masks that select
/// that level; each modifier mask is realized with the modifier keys that set it. Every answer is
/// checked by typing it on an xkb state, so what `stroke(for:)` gives is exactly what a compositor with
/// this keymap reads back (README "Actions": ydotool sends raw codes, and `ctrl+z` comes out `ctrl+y`
/// on a German layout; this does not).
/// Immutable once made (its keymap is never changed, and xkbcommon's keymaps may be shared across
/// threads; a state is made per question), hence `@unchecked Sendable`.
public final class KeyboardLayout: @unchecked Sendable {
    public let names: KeyboardNames
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    /// Keys that only set modifiers while held (no latch, no lock): the xkb keycode and its mask.
    private var modifierKeys: [(keycode: UInt32, mask: UInt32)] = []

    /// Compiled keymaps by names: compiling one takes tens of milliseconds, and a scene reload, a
    /// client scene and the fuzzer ask again and again for the same few. Behind a lock: the daemon is
    /// single-threaded, but tests parse scenes on several threads at once.
    private static let cache = Mutex<[KeyboardNames: KeyboardLayout]>([:])

    /// The layout of `names`, compiled once per process.
    public static func compiled(_ names: KeyboardNames) throws(KeyboardError) -> KeyboardLayout {
        if let k = cache.withLock({ $0[names] }) { return k }
        try names.validate()
        let k = try KeyboardLayout(names)
        cache.withLock { $0[names] = k }
        return k
    }

    private init(_ names: KeyboardNames) throws(KeyboardError) {
        self.names = names
        // No environment names: XKB_DEFAULT_LAYOUT in the daemon's environment must not change what a
        // scene means. Errors are ours to report (xkbcommon would print them to stderr).
        guard let ctx = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else {
            throw KeyboardError(description: "xkbcommon: cannot create a context")
        }
        xkb_context_set_log_level(ctx, XKB_LOG_LEVEL_CRITICAL)
        let made: OpaquePointer? = "evdev".withCString { rules in
            names.model.withCString { model in
                names.layout.withCString { layout in
                    names.variant.withCString { variant in
                        names.options.withCString { options in
                            var rmlvo = xkb_rule_names(rules: rules, model: model, layout: layout, variant: variant, options: options)
                            return xkb_keymap_new_from_names(ctx, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS)
                        }
                    }
                }
            }
        }
        guard let made else {
            xkb_context_unref(ctx)
            throw KeyboardError(description: "the keyboard layout \(names) does not compile with xkb-data (is it in /usr/share/X11/xkb/symbols? "
                + "`localectl list-x11-keymap-layouts` and `localectl list-x11-keymap-variants \(names.layout)` list what exists)")
        }
        context = ctx
        keymap = made
        findModifierKeys()
    }

    deinit {
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    private var keycodes: ClosedRange<UInt32> { xkb_keymap_min_keycode(keymap)...xkb_keymap_max_keycode(keymap) }

    private func findModifierKeys() {
        for kc in keycodes {
            guard let state = xkb_state_new(keymap) else { continue }
            defer { xkb_state_unref(state) }
            xkb_state_update_key(state, kc, XKB_KEY_DOWN)
            let depressed = xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED)
            let other = xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED) | xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED)
            if depressed != 0 && other == 0 && Self.isKernelKey(kc) { modifierKeys.append((kc, depressed)) }
        }
        // Real keyboards' modifier keys first (a keymap also has keys no keyboard sends, such as
        // <LVL3>, evdev 84, which sets Mod5 too), then by code.
        modifierKeys.sort { a, b in
            let ra = Self.preferredModifiers.firstIndex(of: UInt16(a.keycode - 8)) ?? Self.preferredModifiers.count
            let rb = Self.preferredModifiers.firstIndex(of: UInt16(b.keycode - 8)) ?? Self.preferredModifiers.count
            return (ra, a.keycode) < (rb, b.keycode)
        }
    }

    /// Whether xkb keycode `kc` is a key the kernel defines (evdev code kc − 8 has a KEY_ name): a
    /// keymap also has keys no keyboard sends, such as <LVL3> (evdev 84), which types ISO_Level3_Shift
    /// in every layout, even where the keyboard has no AltGr.
    private static func isKernelKey(_ kc: UInt32) -> Bool {
        kc > 8 && kc - 8 <= 0x2ff && libevdev_event_code_get_name(UInt32(EV_KEY), kc - 8) != nil
    }

    /// KEY_LEFTSHIFT, KEY_LEFTCTRL, KEY_LEFTALT, KEY_RIGHTALT, KEY_LEFTMETA, KEY_RIGHTSHIFT,
    /// KEY_RIGHTCTRL, KEY_RIGHTMETA.
    private static let preferredModifiers: [UInt16] = [42, 29, 56, 100, 125, 54, 97, 126]

    /// The modifier keys that together set exactly `mask`, or nil.
    private func keys(setting mask: UInt32) -> [UInt32]? {
        var covered: UInt32 = 0
        var chosen: [UInt32] = []
        for bit in 0..<32 where mask & (1 << bit) != 0 && covered & (1 << bit) == 0 {
            guard let k = modifierKeys.first(where: { $0.mask & (1 << bit) != 0 && $0.mask & ~mask == 0 }) else { return nil }
            chosen.append(k.keycode)
            covered |= k.mask
        }
        return covered == mask ? chosen : nil
    }

    /// Whether, with layout `group` active, holding `modifiers` and pressing `keycode` gives `keysym`
    /// (xkb keycodes).
    private func types(_ keysym: UInt32, _ keycode: UInt32, group: UInt32, holding modifiers: [UInt32]) -> Bool {
        guard let state = xkb_state_new(keymap) else { return false }
        defer { xkb_state_unref(state) }
        if group > 0 { xkb_state_update_mask(state, 0, 0, 0, 0, 0, group) }
        for m in modifiers { xkb_state_update_key(state, m, XKB_KEY_DOWN) }
        return xkb_state_key_get_one_sym(state, keycode) == keysym
    }

    /// Which of two ways to type a keysym is better: the earlier layout group (the first is the one a
    /// compositor starts in), then a key of the classic keyboard block (codes up to 255, which every
    /// keyboard and every compositor keymap has) before the extra keys above it (KEY_EURO types
    /// EuroSign too, but few keyboards have one), then fewer modifiers, then the lower code.
    private static func rank(_ group: UInt32, _ modifiers: [UInt32], _ keycode: UInt32) -> (UInt32, Int, Int, UInt32) {
        (group, keycode - 8 > 0xff ? 1 : 0, modifiers.count, keycode)
    }

    /// The key and modifiers that type `keysym` (`rank` chooses among several); nil when no key of
    /// the layout has it. A layout of several groups (`"ru,us"`, as a desktop with two layouts has it)
    /// is searched group by group: `ctrl+c` on `"ru,us"` is KEY_C, the key that types `c` in the second
    /// group. The compositor reads that key in whichever group is active; applications match a
    /// shortcut's key in every group (GTK, Qt and browsers do), so the shortcut works in either, while
    /// a character typed alone comes out as the active group has it (AC2).
    public func stroke(for keysym: UInt32) -> KeyStroke? {
        var best: (group: UInt32, modifiers: [UInt32], keycode: UInt32)?
        var masks = [xkb_mod_mask_t](repeating: 0, count: 16)
        for kc in keycodes where Self.isKernelKey(kc) {
            for group in 0..<xkb_keymap_num_layouts_for_key(keymap, kc) {
                if let best, best.group < group { break }
                for level in 0..<xkb_keymap_num_levels_for_key(keymap, kc, group) {
                    var syms: UnsafePointer<xkb_keysym_t>?
                    let n = xkb_keymap_key_get_syms_by_level(keymap, kc, group, level, &syms)
                    guard n == 1, let syms, syms[0] == keysym else { continue }
                    let count = Int(xkb_keymap_key_get_mods_for_level(keymap, kc, group, level, &masks, masks.count))
                    for mask in masks.prefix(count).sorted(by: { $0.nonzeroBitCount < $1.nonzeroBitCount }) {
                        guard let mods = keys(setting: mask), types(keysym, kc, group: group, holding: mods) else { continue }
                        if best == nil || Self.rank(group, mods, kc) < Self.rank(best!.group, best!.modifiers, best!.keycode) { best = (group, mods, kc) }
                        break
                    }
                }
            }
        }
        return best.map { KeyStroke(modifiers: $0.modifiers.map { UInt16($0 - 8) }, key: UInt16($0.keycode - 8)) }
    }

    // MARK: Names

    /// The keysym of an xkb name (`Left`, `at`, `XF86AudioRaiseVolume`), exactly as written; nil if none.
    public static func keysym(named name: String) -> UInt32? {
        let k = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS)
        return k == 0 ? nil : k
    }

    /// The evdev code of a kernel key name (`KEY_LEFTMETA`), or nil.
    public static func kernelCode(named name: String) -> UInt16? {
        guard name.hasPrefix("KEY_") || name.hasPrefix("BTN_") else { return nil }
        let c = libevdev_event_code_from_name(UInt32(EV_KEY), name)
        return c < 0 ? nil : UInt16(c)
    }

    /// The kernel's name of a key code ("KEY_Y").
    public static func kernelName(_ code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(code)).map { String(cString: $0) } ?? "KEY_\(code)"
    }

    /// The nearest known name to `name` (a keysym or a kernel key name), for a did-you-mean. Names are
    /// compared without case and underscores first ("pageup" is Page_Up, "lft" is one letter from Left),
    /// then by the case of their letters ("Lft" is nearer "Left" than the keysym "lf"), then the shorter.
    public static func closestName(to name: String) -> String? {
        func folded(_ s: String) -> String { String(s.lowercased().filter { $0 != "_" }) }
        let target = folded(name)
        let candidates = aliases + allNames
        if let same = candidates.first(where: { folded($0) == target }) { return same }
        // Any spelling xkb knows regardless of case, by its canonical name.
        let k = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE)
        if k != 0, let n = keysymName(k) { return n }
        // Between equals, the one whose letters' case agrees most with what was written, then the shorter.
        func caseMisses(_ candidate: String) -> Int {
            zip(name, candidate).filter { $0.isUppercase != $1.isUppercase }.count
        }
        let best = candidates.map { ($0, DidYouMean.editDistance(target, folded($0)), caseMisses($0)) }
            .min { ($0.1, $0.2, $0.0.count) < ($1.1, $1.2, $1.0.count) }
        guard let best, best.1 <= max(1, target.count / 3) else { return nil }
        return best.0
    }

    /// Names people write that xkb knows under another canonical one (Page_Up is "Prior"): offered
    /// first, as they are written in most documentation.
    private static let aliases = ["Page_Up", "Page_Down", "KP_Page_Up", "KP_Page_Down", "Escape", "Return", "BackSpace", "Delete",
                                  "Left", "Right", "Up", "Down", "Home", "End", "Insert", "Tab", "space", "Print", "Menu"]

    private static func keysymName(_ k: UInt32) -> String? {
        var buf = [CChar](repeating: 0, count: 64)
        let n = Int(xkb_keysym_get_name(k, &buf, buf.count))
        guard n > 0, n < buf.count else { return nil }
        let s = String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return s.hasPrefix("0x") ? nil : s
    }

    /// Every keysym name in the Latin, function-key and XF86 ranges, and every kernel key name:
    /// made only when a name is unknown.
    private static let allNames: [String] = {
        var names: [String] = []
        for k in UInt32(0x20)...0xffff { if let n = keysymName(k) { names.append(n) } }
        for k in UInt32(0x1008fe00)...0x1008ffff { if let n = keysymName(k) { names.append(n) } }
        for c in 0...0x2ff { if let n = libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(c)) { names.append(String(cString: n)) } }
        return names
    }()
}

private extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
