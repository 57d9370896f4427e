import TouchProtocol

/// What TUIO clients are told about the touches (docs/tuio.md): each touch of the daemon's `touches`
/// topic is one TUIO session from `began` to `ended` or `cancelled`, its position normalized over the
/// window, its velocity and acceleration derived from one frame to the next. Session ids count up from
/// 1 and are never reused while the bridge runs (the daemon's touch ids start again when it restarts,
/// so they are not used as session ids).
///
/// A frame is the touch lines of one device with one time: `begin(time:device:)`, `apply` for each
/// line, then `end()` gives what changed, for the encoder.
package struct TUIOSessions {
    /// One touch as TUIO says it.
    package struct Cursor: Equatable {
        package var session: Int32
        package var device: Int
        /// Normalized 0…1 over the window (x to the right, y down), as the scene's mapping sees it.
        package var x: Double, y: Double
        /// In those units a second.
        package var vx = 0.0, vy = 0.0
        /// The change of the speed (√(vx² + vy²)) a second, as TUIO's `m`.
        package var acceleration = 0.0
        /// The time of the frame that last changed it (the daemon's, seconds).
        package var time: Double
        /// The daemon's touch id (TUIO 2.0's component id).
        package var touch = 0
        /// A pencil (TUIO 2.0's stylus), not a finger.
        package var pencil = false
        /// The contact's major radius normalized over the window's width (0: the device does not say).
        package var radius = 0.0
        /// 0…1: a finger's force over the top of a panel's range (2.0, T8), a pencil's over UIKit's
        /// maximum for it (25/6, T11); 0 without a pressure sensor.
        package var pressure = 0.0
        /// A pencil's tilt from upright (π/2 − altitude, radians; 0 upright or without tilt), TUIO 2.0's shear.
        package var shear = 0.0
        /// The pressure's change a second, and that change's change a second.
        package var pressureSpeed = 0.0, pressureAcceleration = 0.0
    }

    /// A frame's outcome: the cursors that began or moved in it, and every one still down afterwards,
    /// both in session order.
    package struct Frame: Equatable {
        package var time: Double
        package var device: Int
        package var changed: [Cursor]
        package var alive: [Cursor]
        /// Some touch began, moved or ended in it (a frame of stationary lines only says nothing new).
        package var isChange: Bool
    }

    private struct Key: Hashable { var device: Int, id: Int }

    /// Every touch down, by the daemon's device and touch id.
    private var down: [Key: Cursor] = [:]
    private var nextSession: Int32 = 1
    private var frame: (time: Double, device: Int)?
    private var changedKeys: [Key] = []
    private var ended = false

    package init() {}

    /// The cursors down, in session order (across devices).
    package var alive: [Cursor] { down.values.sorted { $0.session < $1.session } }

    package var isEmpty: Bool { down.isEmpty }

    /// Starts the frame of `device` at `time`.
    package mutating func begin(time: Double, device: Int) {
        assert(frame == nil, "a frame begun inside another")
        frame = (time, device)
        changedKeys = []
        ended = false
    }

    /// One touch line of the frame; `width`, `height`: the window's size in points.
    package mutating func apply(_ t: TouchLines.Decoded, width: Double, height: Double) {
        assert(frame != nil, "a touch line outside a frame")
        let key = Key(device: t.device, id: t.id)
        let x = width > 0 ? t.x / width : 0, y = height > 0 ? t.y / height : 0
        switch t.phase {
        case "began":
            // A began for a touch already down (a line lost, a daemon that restarted mid-touch): the
            // old session ends and a new one begins, so a client never sees one cursor jump.
            var c = Cursor(session: nextSession, device: t.device, x: x, y: y, time: t.time)
            c.touch = t.id
            c.pencil = t.type == "pencil"
            Self.hardware(t, width: width, into: &c)
            down[key] = c
            nextSession = nextSession == Int32.max ? 1 : nextSession + 1
            changedKeys.append(key)
        case "moved":
            guard var c = down[key] else { return }
            let dt = t.time - c.time
            if dt > 0 {
                let vx = (x - c.x) / dt, vy = (y - c.y) / dt
                let before = (c.vx * c.vx + c.vy * c.vy).squareRoot()
                c.acceleration = ((vx * vx + vy * vy).squareRoot() - before) / dt
                c.vx = vx
                c.vy = vy
            }
            let pressure = c.pressure
            Self.hardware(t, width: width, into: &c)
            if dt > 0 {
                let speed = (c.pressure - pressure) / dt
                c.pressureAcceleration = (speed - c.pressureSpeed) / dt
                c.pressureSpeed = speed
            }
            c.x = x
            c.y = y
            c.time = t.time
            down[key] = c
            if !changedKeys.contains(key) { changedKeys.append(key) }
        case "ended", "cancelled":
            if down.removeValue(forKey: key) != nil { ended = true }
            changedKeys.removeAll { $0 == key }
        default:
            return
        }
    }

    /// The radius, pressure and shear of `t` (T8, T11).
    private static func hardware(_ t: TouchLines.Decoded, width: Double, into c: inout Cursor) {
        c.radius = width > 0 ? t.majorRadius / width : 0
        let top = c.pencil ? 25.0 / 6.0 : 2.0
        c.pressure = min(1, max(0, t.force / top))
        c.shear = t.altitude.map { max(0, Double.pi / 2 - $0) } ?? 0
    }

    /// Ends the frame begun.
    package mutating func end() -> Frame {
        guard let f = frame else { preconditionFailure("end() without begin()") }
        frame = nil
        let changed = changedKeys.compactMap { down[$0] }.sorted { $0.session < $1.session }
        return Frame(time: f.time, device: f.device, changed: changed, alive: alive, isChange: !changed.isEmpty || ended)
    }

    /// Every session ends (the daemon went away, the bridge stops): what is left is an empty alive set.
    package mutating func removeAll() {
        down = [:]
        frame = nil
    }

    /// The sessions of `device` end (it was removed); whether it had any.
    package mutating func remove(device: Int) -> Bool {
        let before = down.count
        down = down.filter { $0.key.device != device }
        return down.count != before
    }
}
