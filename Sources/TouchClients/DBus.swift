import CSystemd
import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// A connection to a D-Bus through sd-bus, driven from our own epoll loop: its descriptor is watched for
/// input, `process()` dispatches what arrived, and every write is flushed at once (the messages are
/// small). The system bus for iio-sensor-proxy (follow-rotation), the user's session bus for KWin and
/// GNOME Shell (follow-focus); `DBUS_SYSTEM_BUS_ADDRESS` and `DBUS_SESSION_BUS_ADDRESS` name others
/// (the tests' private ones).
package final class DBus {
    package enum Which: String { case system, session }
    private var bus: OpaquePointer?
    /// The signal handlers, kept alive as long as their matches.
    private var handlers: [Box] = []
    private var slots: [OpaquePointer?] = []

    package final class Box {
        let handle: (OpaquePointer) -> Void
        init(_ handle: @escaping (OpaquePointer) -> Void) { self.handle = handle }
    }

    package struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    package init(_ which: Which = .system) throws {
        var b: OpaquePointer?
        let r = which == .system ? sd_bus_open_system(&b) : sd_bus_open_user(&b)
        guard r >= 0, let b else {
            throw Failure(description: which == .system
                ? "cannot connect to the system D-Bus: \(Errno(-r)) (is dbus running? DBUS_SYSTEM_BUS_ADDRESS names another bus)"
                : "cannot connect to the session D-Bus: \(Errno(-r)) (run it in the desktop session, where DBUS_SESSION_BUS_ADDRESS is set)")
        }
        bus = b
    }

    /// This connection's unique name on the bus (":1.42"): where a script of the compositor's calls back.
    package var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard let bus, sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    deinit { close() }

    package func close() {
        for s in slots { sd_bus_slot_unref(s) }
        slots = []
        handlers = []
        if let b = bus { sd_bus_flush_close_unref(b) }
        bus = nil
    }

    package var fd: FileDescriptor { FileDescriptor(rawValue: sd_bus_get_fd(bus)) }

    /// Dispatches everything that has arrived; false when the bus connection is gone.
    package func process() -> Bool {
        guard let bus else { return false }
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 { return false }
            if r == 0 { break }
        }
        _ = sd_bus_flush(bus)
        return true
    }

    /// Calls `handle` with every message matching `rule` (a D-Bus match rule).
    package func match(_ rule: String, _ handle: @escaping (OpaquePointer) -> Void) throws {
        let box = Box(handle)
        var slot: OpaquePointer?
        let r = sd_bus_add_match(bus, &slot, rule, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            Unmanaged<Box>.fromOpaque(userdata).takeUnretainedValue().handle(m)
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0 else { throw Failure(description: "D-Bus: cannot watch \(rule): \(Errno(-r))") }
        handlers.append(box)
        slots.append(slot)
    }

    /// Calls `handle` with every method call to `path` (its return: 1 when it answered the call, 0 to
    /// let sd-bus answer that nothing there has such a method).
    package func addObject(_ path: String, _ handle: @escaping (OpaquePointer) -> Int32) throws {
        let box = ObjectBox(handle)
        var slot: OpaquePointer?
        let r = sd_bus_add_object(bus, &slot, path, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            return Unmanaged<ObjectBox>.fromOpaque(userdata).takeUnretainedValue().handle(m)
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0 else { throw Failure(description: "D-Bus: cannot serve \(path): \(Errno(-r))") }
        objects.append(box)
        slots.append(slot)
    }

    private var objects: [ObjectBox] = []

    package final class ObjectBox {
        let handle: (OpaquePointer) -> Int32
        init(_ handle: @escaping (OpaquePointer) -> Int32) { self.handle = handle }
    }

    /// Answers a method call with nothing (success); 1, as an object handler returns.
    @discardableResult
    package static func reply(_ call: OpaquePointer) -> Int32 {
        _ = csystemd_reply_empty(call)
        return 1
    }

    /// Answers a method call with the error `name` and `message`; 1, as an object handler returns.
    @discardableResult
    package static func reply(_ call: OpaquePointer, error name: String, _ message: String) -> Int32 {
        _ = csystemd_reply_error(call, name, message)
        return 1
    }

    /// Calls `member` without arguments; the error's name and message when it failed.
    /// Waits for the answer: only for a last word before exiting (a handler of the event loop uses
    /// `callAsync`). One string argument at most.
    @discardableResult
    package func call(_ destination: String, _ path: String, _ interface: String, _ member: String, _ argument: String? = nil) throws -> OpaquePointer? {
        var error = sd_bus_error()
        var reply: OpaquePointer?
        let r = argument.map { csystemd_call_s(bus, destination, path, interface, member, $0, &error, &reply) }
            ?? csystemd_call(bus, destination, path, interface, member, &error, &reply)
        defer { sd_bus_error_free(&error) }
        guard r >= 0 else {
            let name = error.name.map { String(cString: $0) } ?? "\(Errno(-r))"
            let message = error.message.map { DBus.trimmed(String(cString: $0)) } ?? ""
            throw Failure(description: "\(interface).\(member): \(name)\(message.isEmpty ? "" : ": " + message)")
        }
        return reply
    }

    /// Calls `member` with up to two string arguments and returns at once: `reply` gets the answer (or
    /// the error) when it comes, from `process()`. What a handler of the event loop calls: it never
    /// waits for the other side.
    package func callAsync(_ destination: String, _ path: String, _ interface: String, _ member: String, _ args: [String] = [],
                           reply: @escaping (Result<OpaquePointer, Failure>) -> Void) {
        let box = Unmanaged.passRetained(ReplyBox { m in
            if sd_bus_message_is_method_error(m, nil) > 0, let e = sd_bus_message_get_error(m) {
                let name = e.pointee.name.map { String(cString: $0) } ?? "an error"
                let message = e.pointee.message.map { DBus.trimmed(String(cString: $0)) } ?? ""
                reply(.failure(Failure(description: "\(interface).\(member): \(name)\(message.isEmpty ? "" : ": " + message)")))
            } else {
                reply(.success(m))
            }
        }).toOpaque()
        let callback: sd_bus_message_handler_t = { m, userdata, _ in
            guard let userdata else { return 0 }
            let box = Unmanaged<ReplyBox>.fromOpaque(userdata).takeRetainedValue()
            if let m { box.handle(m) }
            return 0
        }
        let r: Int32
        switch args.count {
        case 0: r = csystemd_call_async(bus, destination, path, interface, member, callback, box)
        case 1: r = csystemd_call_async_s(bus, destination, path, interface, member, args[0], callback, box)
        default: r = csystemd_call_async_ss(bus, destination, path, interface, member, args[0], args[1], callback, box)
        }
        if r < 0 {
            Unmanaged<ReplyBox>.fromOpaque(box).release()
            reply(.failure(Failure(description: "\(interface).\(member): cannot send: \(Errno(-r))")))
        }
    }

    package final class ReplyBox {
        let handle: (OpaquePointer) -> Void
        init(_ handle: @escaping (OpaquePointer) -> Void) { self.handle = handle }
    }

    /// A peer's error message without the white space some services end it with (a log line is one line).
    static func trimmed(_ s: String) -> String {
        var t = Substring(s)
        while let c = t.last, c.isWhitespace { t = t.dropLast() }
        return String(t.map { $0 == "\n" ? " " : $0 })
    }

    /// The integer of a reply whose body is one 32-bit integer ("i").
    package static func int32(of reply: OpaquePointer) -> Int32? {
        var v: Int32 = 0
        return csystemd_read_int(reply, &v) >= 0 ? v : nil
    }

    /// The two strings of a message whose body is "ss" (a method call's arguments, a signal's).
    package static func twoStrings(of m: OpaquePointer) -> (String, String)? {
        var a: UnsafePointer<CChar>?, b: UnsafePointer<CChar>?
        guard csystemd_read_ss(m, &a, &b) >= 0, let a, let b else { return nil }
        return (String(cString: a), String(cString: b))
    }

    /// The member (method or signal name) of a message.
    package static func member(_ m: OpaquePointer) -> String? { sd_bus_message_get_member(m).map { String(cString: $0) } }

    /// The string of a reply whose body is one string ("s"), or one string in a variant ("v", as
    /// org.freedesktop.DBus.Properties.Get answers).
    package static func string(of reply: OpaquePointer, variant: Bool = false) -> String? {
        if variant, csystemd_enter_variant(reply, "s") < 0 { return nil }
        var s: UnsafePointer<CChar>?
        guard csystemd_read_string(reply, &s) >= 0, let s else { return nil }
        return String(cString: s)
    }

    // MARK: Reading messages

    /// A `PropertiesChanged` signal's changed string properties (interface, [name: value]).
    package static func changedStrings(_ m: OpaquePointer) -> (String, [String: String]) {
        var interface: UnsafePointer<CChar>?
        guard csystemd_enter_changed(m, &interface) >= 0, let interface else { return ("", [:]) }
        var out: [String: String] = [:]
        while csystemd_enter_entry(m) > 0 {
            var name: UnsafePointer<CChar>?
            guard csystemd_read_string(m, &name) > 0, let name else { break }
            if csystemd_enter_variant(m, "s") > 0 {
                var value: UnsafePointer<CChar>?
                if csystemd_read_string(m, &value) > 0, let value { out[String(cString: name)] = String(cString: value) }
                _ = sd_bus_message_exit_container(m)
            } else {
                _ = sd_bus_message_skip(m, "v")
            }
            _ = sd_bus_message_exit_container(m)
        }
        return (String(cString: interface), out)
    }

    /// The unique name of the connection that sent `m` (the bus sets it: a peer cannot forge it); nil
    /// on a connection without a bus (peer-to-peer).
    package static func sender(_ m: OpaquePointer) -> String? {
        sd_bus_message_get_sender(m).map { String(cString: $0) }
    }

    /// `NameOwnerChanged`'s name and its new owner's unique name (nil: it has none now).
    package static func ownerChange(_ m: OpaquePointer) -> (name: String, owner: String?)? {
        var name: UnsafePointer<CChar>?, old: UnsafePointer<CChar>?, new: UnsafePointer<CChar>?
        guard csystemd_read_owner_changed(m, &name, &old, &new) >= 0, let name, let new else { return nil }
        return (String(cString: name), new.pointee != 0 ? String(cString: new) : nil)
    }
}
