import Glibc

/// A backlight of the kernel's backlight class (/sys/class/backlight/NAME): `brightness` from 0 to
/// `max_brightness`, which the driver applies when written. The daemon's sliders and dimming write it
/// (docs/display.md); udev/70-touchbridge.rules lets group `video` write it, and the unit's sandbox lets
/// the daemon write there and nowhere else under /sys.
public struct Backlight: Equatable, Sendable {
    public let name: String
    /// /sys/class/backlight/NAME (under the sysfs root given).
    public let directory: String
    /// `max_brightness`.
    public let maximum: Int
    /// `type`: firmware (the platform's own interface, ACPI's), platform, or raw (the GPU's register).
    public let type: String

    /// The lowest a slide or a dim sets: 1 % of the maximum, at least one step. 0 turns many panels'
    /// light off altogether, and a slider that can black the screen leaves the user nothing to see it
    /// by; KDE's brightness slider stops at 1 % likewise. Only "off" (idle, `set display off`) writes 0.
    public var floor: Int { max(1, Int((Double(maximum) * 0.01).rounded(.up))) }

    /// The backlight `name`, or with nil the panel's: of those present, a firmware one before a
    /// platform one before a raw one, as systemd-backlight ranks them (a laptop has both ACPI's
    /// acpi_video0 and the GPU's intel_backlight; firmware knows the panel's curve). `sysfs`: the sysfs
    /// root, "/sys" but in tests.
    public static func find(_ name: String?, sysfs: String = "/sys") throws(BacklightError) -> Backlight {
        let base = sysfs + "/class/backlight"
        if let name {
            return try open(name, base: base)
        }
        let names = (try? Files.list(base)) ?? []
        let found = names.compactMap { try? open($0, base: base) }
        let rank = ["firmware": 0, "platform": 1, "raw": 2]
        guard let best = found.min(by: { (rank[$0.type] ?? 3, $0.name) < (rank[$1.type] ?? 3, $1.name) }) else {
            throw BacklightError(message: "no backlight in \(base): this panel's light is not the kernel's to set (an external monitor's is set over DDC/CI, which TouchBridge does not do)")
        }
        return best
    }

    private static func open(_ name: String, base: String) throws(BacklightError) -> Backlight {
        let dir = "\(base)/\(name)"
        guard Files.isDirectory(dir) else {
            let present = (try? Files.list(base)) ?? []
            throw BacklightError(message: "no backlight \"\(name)\" in \(base)\(DidYouMean.hint(name, in: present)); present: \(present.isEmpty ? "none" : present.joined(separator: ", "))")
        }
        guard let text = try? Files.readText(dir + "/max_brightness"),
              let max = Int(text.trimmingCharacters(in: Self.whitespace)), max > 0 else {
            throw BacklightError(message: "\(dir)/max_brightness cannot be read as a number above 0: not a backlight")
        }
        let type = (try? Files.readText(dir + "/type"))?.trimmingCharacters(in: Self.whitespace) ?? "raw"
        return Backlight(name: name, directory: dir, maximum: max, type: type)
    }

    /// `brightness` now, 0…maximum.
    public func brightness() throws(BacklightError) -> Int {
        let path = directory + "/brightness"
        let text: String
        do { text = try Files.readText(path) } catch { throw BacklightError(message: "\(error)") }
        guard let v = Int(text.trimmingCharacters(in: Self.whitespace)) else { throw BacklightError(message: "\(path) says \"\(text.trimmingCharacters(in: Self.whitespace))\", not a number") }
        return v
    }

    /// The brightness now as a fraction of the maximum.
    public func fraction() throws(BacklightError) -> Double { Double(try brightness()) / Double(maximum) }

    /// The raw value for a fraction of the maximum, rounded, at least `floor` unless `off`.
    public func raw(_ fraction: Double, off: Bool = false) -> Int {
        if off { return 0 }
        return min(maximum, max(floor, Int((fraction * Double(maximum)).rounded())))
    }

    /// Writes `raw` to `brightness`. The error says what stands in the way and what to change.
    public func setBrightness(_ raw: Int) throws(BacklightError) {
        let path = directory + "/brightness"
        let fd: FileDescriptor
        do throws(SystemError) { fd = try FileDescriptor.open(path, O_WRONLY | O_TRUNC) } catch { throw BacklightError(message: Self.explain(error, path)) }
        defer { fd.close() }
        do throws(Errno) { try fd.writeAll(Array("\(raw)\n".utf8)) } catch {
            throw BacklightError(message: Self.explain(SystemError("write", path, error), path))
        }
    }

    private static func explain(_ e: SystemError, _ path: String) -> String {
        switch e.errno.rawValue {
        case EACCES, EPERM:
            return "\(e): the daemon's user may not write it; udev/70-touchbridge.rules lets group video write each backlight's brightness (install the rules, run `udevadm trigger -s backlight`), and the daemon must run in that group (touchbridged.service has SupplementaryGroups=video)"
        case EROFS:
            return "\(e): the service's sandbox keeps /sys read-only; touchbridged.service makes the common backlights writable (ReadWritePaths=), and a drop-in adds another: ReadWritePaths=-\(Files.directoryName(path)) (docs/display.md)"
        default:
            return "\(e)"
        }
    }

    /// What surrounds a number in a sysfs attribute.
    private static let whitespace = " \t\n\r"     // not "\r\n": Swift reads that as one Character
}

public struct BacklightError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
