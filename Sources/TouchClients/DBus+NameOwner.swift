import CSystemd
import TouchSystem

/// Who owns a well-known name on a bus (`net.hadess.SensorProxy`, `org.kde.KWin`, `org.gnome.Shell`), as
/// the bus itself says: asked once (GetNameOwner), then followed through NameOwnerChanged, believed only
/// from org.freedesktop.DBus. Any connection on a bus may emit a signal with any path and interface, or
/// call a follower's objects: the owner's unique name is the one sender a follower believes (the
/// hardening rule for D-Bus senders; docs/focus.md, docs/screen-aware.md).
package final class NameOwnerWatch {
    package let name: String
    /// The owner's unique name (":1.42"); nil while the name has none, or before the bus answered.
    package private(set) var owner: String?
    /// The owner changed: the bus's first answer (nil: nobody owns the name yet), then every change.
    package var onChange: ((_ owner: String?, _ first: Bool) -> Void)?
    private let bus: DBus
    private var answered = false

    package init(bus: DBus, name: String) throws {
        self.bus = bus
        self.name = name
        try bus.match("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'") { [weak self] m in
            // Only the bus itself says who owns a name.
            guard let self, DBus.sender(m) == "org.freedesktop.DBus", let change = DBus.ownerChange(m), change.name == self.name else { return }
            guard change.owner != owner || !answered else { return }
            owner = change.owner
            let first = !answered
            answered = true
            onChange?(owner, first)
        }
    }

    /// Asks the bus who owns the name now (the answer comes through `onChange`).
    package func start() {
        bus.callAsync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [name]) { [weak self] result in
            guard let self, !answered else { return }       // a NameOwnerChanged came first: it is newer
            answered = true
            if case .success(let m) = result { owner = DBus.string(of: m) } else { owner = nil }
            onChange?(owner, true)
        }
    }

    /// Whether `m` was sent by the name's owner.
    package func sentByOwner(_ m: OpaquePointer) -> Bool {
        guard let owner else { return false }
        return DBus.sender(m) == owner
    }

    /// Who sent `m`, for a log line about a message not believed.
    package static func describeSender(_ m: OpaquePointer) -> String { DBus.sender(m) ?? "an unnamed sender" }
}
