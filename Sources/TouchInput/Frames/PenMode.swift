import Glibc
import TouchCore
import TouchSystem

// MARK: Pens

/// A pen tablet's stylus (display pens: Wacom AES and EMR, Surface pens; and tablets when asked):
/// one tool, in range or not, its tip down or not. uikit-semantics T11, HV1–HV4.
///
///     outOfRange ⇄ hovering ⇄ touching          (any state → outOfRange when the tool leaves)
///     heldAtOpen ──tip lifts──▶ hovering, or outOfRange when the tool left too
///
/// `heldAtOpen` is where a pen starts whose tip was down when the device was opened: a press begun
/// before we read the device is not a stroke of ours, and gives neither a contact nor a hover.
///
/// Read as libinput reads a tablet (evdev-tablet.c):
/// - in range while a BTN_TOOL_PEN, _RUBBER, _BRUSH, _PENCIL or _AIRBRUSH key is down (a tip down with
///   no tool key at all counts as in range: some pens never send one);
/// - the tip: with ABS_PRESSURE, by pressure alone (BTN_TOUCH is ignored, as libinput does): down at
///   5 % of the range, up again at 1 % (`PenPressure`, which also learns a worn pen's pressure offset);
///   without, BTN_TOUCH;
/// - force: pressure above the lower threshold over the rest of the range (libinput's normalization),
///   times `PenAxes.maximumPossibleForce` (UIKit's scale for a pencil, T11);
/// - tilt: ABS_TILT_X/Y in degrees as libinput converts them (`PenAxes.degrees`), then altitude and
///   azimuth (`PenAxes.pose`);
/// - zOffset: ABS_DISTANCE over its range (0 at the surface, 1 at the edge of range);
/// - BTN_STYLUS, BTN_STYLUS2: `DigitizerFrame.pencilButtons`.
struct PenMode {
    /// Where the pen is. The contact id lives as long as one stroke (tip down to tip up).
    enum State: Equatable {
        case outOfRange
        case hovering
        case touching(contactID: Int)
        /// The tip was down when the device was opened: not a stroke of ours until it lifts.
        case heldAtOpen

        var isTouching: Bool { if case .touching = self { true } else { false } }
    }

    /// What the sensor reads, with the memory its reading needs: the tip as the pressure thresholds
    /// (with their hysteresis) or BTN_TOUCH last decided it, and whether the last frame was in
    /// proximity (the next one with a tool key after none is a proximity-in). `state` follows from it.
    struct TipReading: Equatable {
        var down = false
        var inProximity = false
    }

    /// The device's keys and axes as its events left them.
    var kernel: KernelState
    private(set) var state: State = .outOfRange
    private(set) var tip = TipReading()
    let axes: PenAxes
    /// The thresholds and offset of each end: libinput keeps them per tool, and the eraser is a tool
    /// of its own (nil without ABS_PRESSURE).
    var tipPressure: PenPressure?
    var eraserPressure: PenPressure?

    init(device: DeviceDescription) {
        kernel = KernelState(device: device)
        axes = PenAxes(device)
        tipPressure = axes.pressure.map { PenPressure(axis: $0, distance: axes.distance) }
        eraserPressure = tipPressure
    }

    private var isEraser: Bool { kernel.keys.contains(KeyCode.toolRubber) }

    /// The pressure state of the end in use.
    private var pressure: PenPressure? {
        get { isEraser ? eraserPressure : tipPressure }
        set { if isEraser { eraserPressure = newValue } else { tipPressure = newValue } }
    }

    var isNeutral: Bool {
        switch state {
        case .outOfRange, .hovering: true
        case .touching, .heldAtOpen: false
        }
    }

    /// A BTN_TOOL_* key of a pen end is down.
    private var toolKeyDown: Bool { KeyCode.penTools.contains { kernel.keys.contains($0) } }

    var inRange: Bool { toolKeyDown || tip.down }

    /// Decides the tip from the current kernel state: pressure thresholds with hysteresis (after the
    /// pressure offset learnt what it can: at a proximity-in, `report` says what was found), else
    /// BTN_TOUCH.
    mutating func updateTip(report: (String, String) -> Void = { _, _ in }) {
        // In proximity by the tool keys alone (a pen that sends none counts as always in): the frame
        // that lifts the tool key is not read for the offset, whatever the tip says (libinput reads
        // no axis when the tool leaves).
        let inProximity = axes.toolless || toolKeyDown
        let entering = inProximity && !tip.inProximity
        tip.inProximity = inProximity
        if let p = axes.pressure, var thresholds = pressure {
            let value = kernel.abs[AbsCode.pressure] ?? p.minimum
            if inProximity {
                thresholds.update(value)
                if entering, let found = thresholds.proximityIn(value, distance: kernel.abs[AbsCode.distance]) {
                    switch found {
                    case .offset(let o):
                        report("pressure-offset-\(isEraser)", "pressure offset \(o) of 0…\(p.maximum) found on the pen's \(isEraser ? "eraser" : "tip") (a worn tip presses while it hovers): its thresholds start there, as libinput's do")
                    case .tooLarge(let o):
                        report("pressure-offset-large", "pen pressure \(o) of 0…\(p.maximum) while hovering is over half the range: not taken as an offset (libinput ignores it too); the tip may stay down")
                    }
                }
                pressure = thresholds
            }
            if !tip.down && value >= thresholds.upper { tip.down = true }
            else if tip.down && value <= thresholds.lower { tip.down = false }
        } else {
            tip.down = kernel.keys.contains(KeyCode.touch)
        }
        // Out of range lifts the tip whatever the pressure said last.
        if tip.down && !toolKeyDown && !axes.toolless {
            tip.down = false
        }
    }

    mutating func seed(from state: KernelState) {
        kernel = state
        updateTip()
        if tip.down { self.state = .heldAtOpen }
    }

    mutating func frame(_ events: [InputEvent], time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        for e in events { kernel.apply(e) }
        updateTip { a.report($0, "\(a.device.name): \($1)") }
        return frame(time: time, &a)
    }

    /// The state after a frame's events, from the state before: each state's ways out.
    private func next(_ a: inout FrameAssembler) -> State {
        let inRange = self.inRange
        switch state {
        case .heldAtOpen:
            guard !tip.down else { return .heldAtOpen }
            return inRange ? .hovering : .outOfRange
        case .outOfRange, .hovering:
            guard inRange else { return .outOfRange }
            return tip.down ? .touching(contactID: a.takeContactID()) : .hovering
        case .touching(let id):
            guard inRange else { return .outOfRange }
            return tip.down ? .touching(contactID: id) : .hovering
        }
    }

    mutating func frame(time: Double, _ a: inout FrameAssembler) -> DigitizerFrame {
        var contacts = a.cancelledSinceLastFrame
        a.cancelledSinceLastFrame = []
        let previous = state
        state = next(&a)
        var hover: Hover?
        switch state {
        case .touching(let id):
            contacts.append(contact(id: id, cancelled: false, &a))
        case .hovering:
            hover = Hover(location: location(&a), zOffset: zOffset, pose: pose(a))
        case .outOfRange, .heldAtOpen:
            break
        }
        if case .touching(let id) = previous, a.cancelVanished, !state.isTouching {
            contacts.append(contact(id: id, cancelled: true, &a))      // lifted while events were lost
        }
        a.cancelVanished = false
        var buttons: PencilButtons = []
        if inRange {
            if kernel.keys.contains(KeyCode.stylus) { buttons.insert(.primary) }
            if kernel.keys.contains(KeyCode.stylus2) { buttons.insert(.secondary) }
        }
        return DigitizerFrame(device: a.deviceIndex, timestamp: time, contacts: contacts, hover: hover,
                              pencilButtons: buttons)
    }

    mutating func cancelAll(_ a: inout FrameAssembler) -> [Contact] {
        var contacts: [Contact] = []
        if case .touching(let id) = state { contacts.append(contact(id: id, cancelled: true, &a)) }
        state = .outOfRange
        tip = TipReading()
        kernel.keys = []
        return contacts
    }

    // MARK: Axes

    private func location(_ a: inout FrameAssembler) -> Point {
        a.mapped(x: kernel.abs[AbsCode.x] ?? 0, y: kernel.abs[AbsCode.y] ?? 0)
    }

    private var zOffset: Double {
        guard let d = axes.distance else { return 0 }
        return d.normalized(kernel.abs[AbsCode.distance] ?? d.minimum)
    }

    private func pose(_ a: FrameAssembler) -> PencilPose {
        var pose = PencilPose(isEraser: kernel.keys.contains(KeyCode.toolRubber))
        guard let tx = axes.tiltX, let ty = axes.tiltY else { return pose }
        let p = PenAxes.pose(tiltX: PenAxes.degrees(kernel.abs[AbsCode.tiltX] ?? 0, tx),
                             tiltY: PenAxes.degrees(kernel.abs[AbsCode.tiltY] ?? 0, ty))
        pose.hasTilt = true
        pose.altitudeAngle = p.altitude
        // The cap's direction on the surface in raw units (units per mm differ between axes on some
        // pens), then through the mapping's rotation, flips and scale into window points.
        let v = a.direction(dx: p.direction.x * axes.unitsPerMillimetre.x, dy: p.direction.y * axes.unitsPerMillimetre.y)
        let length = v.length
        if length > 0 && length.isFinite { pose.azimuth = v / length }
        return pose
    }

    private func contact(id: Int, cancelled: Bool, _ a: inout FrameAssembler) -> Contact {
        var c = Contact(id: id, location: location(&a), type: .pencil, isCancelled: cancelled, record: kernel.singleContactRecord, pose: pose(a))
        if let p = axes.pressure, let thresholds = pressure {
            c.force = thresholds.force(kernel.abs[AbsCode.pressure] ?? p.minimum)
            c.maximumPossibleForce = PenAxes.maximumPossibleForce
        }
        return c
    }
}

/// A pen device's axes, looked up once, and the conversions libinput makes of them.
public struct PenAxes: Sendable {
    /// UIKit's `maximumPossibleForce` for an Apple Pencil: 25/6 ≈ 4.17, "1.0 an average touch"
    /// (UITouch.force). Apple does not print the number; developers measure force 0 … 4.2 from a pencil
    /// (developer.apple.com/forums/thread/726359) and the property reads 4.1666… .
    public static let maximumPossibleForce = 25.0 / 6.0

    public let pressure: AbsInfo?
    public let distance: AbsInfo?
    public let tiltX: AbsInfo?
    public let tiltY: AbsInfo?
    /// The pen sends no tool key at all (only BTN_TOUCH or pressure): a tip down means in range.
    public let toolless: Bool
    /// Raw units per millimetre along x and y (1 each when the kernel does not say: square units).
    public let unitsPerMillimetre: Point

    public init(_ device: DeviceDescription) {
        func axis(_ code: UInt16) -> AbsInfo? {
            guard device.hasAbs(code), let a = device.absInfo[code], a.maximum > a.minimum else { return nil }
            return a
        }
        pressure = axis(AbsCode.pressure)
        distance = axis(AbsCode.distance)
        let tx = axis(AbsCode.tiltX), ty = axis(AbsCode.tiltY)
        (tiltX, tiltY) = tx != nil && ty != nil ? (tx, ty) : (nil, nil)
        toolless = !KeyCode.penTools.contains { device.hasKey($0) }
        let axes = device.positionAxes
        if let axes, axes.x.resolution > 0, axes.y.resolution > 0 {
            unitsPerMillimetre = Point(x: Double(axes.x.resolution), y: Double(axes.y.resolution))
        } else {
            unitsPerMillimetre = Point(x: 1, y: 1)
        }
    }

    /// A tilt axis in degrees off the surface's normal, as libinput's `adjust_tilt`: with a resolution
    /// and a range either side of 0, the resolution is units per radian; otherwise the range is taken
    /// as Wacom's physical −64° … 64°.
    public static func degrees(_ value: Int32, _ axis: AbsInfo) -> Double {
        if axis.resolution != 0 && axis.maximum > 0 && axis.minimum < 0 {
            return Double(value) / Double(axis.resolution) * 180 / Double.pi
        }
        let normalized = (Double(value) - Double(axis.minimum)) / (Double(axis.maximum) - Double(axis.minimum))
        return (normalized * 2 - 1) * 64
    }

    /// Altitude (radians, π/2 upright) and the direction the pencil's top leans, on the surface (a
    /// vector along the device's axes, not normalized), from the two tilts in degrees. libinput: "if
    /// the top tilts towards the logical bottom/right of the tablet, the x/y tilt angles are positive".
    /// The pencil's axis is (tan tx, tan ty, 1) up to length: its altitude is atan(1 / |(tan tx, tan ty)|)
    /// and its azimuth the direction of (tan tx, tan ty) (as Pointer Events convert tiltX/tiltY).
    public static func pose(tiltX: Double, tiltY: Double) -> (altitude: Double, direction: Point) {
        let limit = 89.9                                    // a tilt of 90° is a pen lying flat
        let tx = Swift.max(-limit, Swift.min(limit, tiltX)) * Double.pi / 180
        let ty = Swift.max(-limit, Swift.min(limit, tiltY)) * Double.pi / 180
        let v = Point(x: tan(tx), y: tan(ty))
        let lean = v.length
        return (lean == 0 ? Double.pi / 2 : atan(1 / lean), lean == 0 ? Point(x: 1, y: 0) : v)
    }
}

/// One pen end's pressure thresholds, and the pressure offset of a worn tip, as libinput keeps them
/// per tool (evdev-tablet.c: `axis_range_percentage`, `set_pressure_offset`, `update_pressure_offset`,
/// `detect_pressure_offset`, `detect_tool_contact`, `normalize_pressure`):
/// - thresholds in device units, truncated as libinput's integer arithmetic does: lower at 1 % of the
///   range, upper at 5 %; the tip goes down at `upper` or above, up at `lower` or below;
/// - a worn tip presses a little while it hovers. At a proximity-in with the pen well above the surface
///   (ABS_DISTANCE at half its range or more), a pressure above the minimum is that tool's offset; a
///   pen without ABS_DISTANCE decides at its third proximity-in that comes with pressure, taking the
///   lowest pressure seen in range until then. An offset over half the range is refused. With an
///   offset, `lower` is the offset and `upper` the offset plus the same gap (4 % of the range), and
///   any lower pressure seen later lowers them again;
/// - force: the pressure above `lower` over the rest of the range (0 … 1), on UIKit's pencil scale.
///
///     looking(lowest, proximityIns) ──found──▶ offset(o) (lowered as lower values come)
///            └── third proximity-in without distance, none found ──▶ decided
struct PenPressure: Equatable {
    enum State: Equatable {
        /// No offset yet: the lowest pressure seen in range, and how many proximity-ins with pressure
        /// passed (for a pen without ABS_DISTANCE, which decides at the third).
        case looking(lowest: Int32, proximityIns: Int)
        case offset(Int32)
        /// A pen without ABS_DISTANCE decided that it has none: never looked for again.
        case decided
    }

    /// What a proximity-in found.
    enum Finding: Equatable {
        case offset(Int32)
        case tooLarge(Int32)
    }

    let axis: AbsInfo
    /// ABS_DISTANCE, if the pen reports it.
    let distance: AbsInfo?
    private(set) var state: State
    private(set) var lower: Int32
    private(set) var upper: Int32

    init(axis: AbsInfo, distance: AbsInfo?) {
        self.axis = axis
        self.distance = distance
        state = .looking(lowest: axis.maximum, proximityIns: 0)
        lower = Self.percent(axis, 1)
        upper = Self.percent(axis, 5)
    }

    /// libinput's `axis_range_percentage`: `percent` of the range above the minimum, in whole units
    /// (the conversion to int truncates).
    static func percent(_ a: AbsInfo, _ percent: Double) -> Int32 {
        Int32((Double(a.maximum - a.minimum) * percent / 100 + Double(a.minimum)).rounded(.towardZero))
    }

    /// Every frame in range: an offset only ever comes down; while looking, the lowest value is kept.
    mutating func update(_ value: Int32) {
        switch state {
        case .offset(let o) where value < o: set(value)
        case .looking(let lowest, let n): state = .looking(lowest: Swift.min(lowest, value), proximityIns: n)
        default: break
        }
    }

    /// At a proximity-in (after `update`): whether this is where the offset is found.
    mutating func proximityIn(_ value: Int32, distance d: Int32?) -> Finding? {
        guard case .looking(let lowest, let n) = state, value > axis.minimum else { return nil }
        var candidate = value
        if let distance {
            // Closer than half the distance range the pen may be touching: too likely to be wrong.
            guard (d ?? distance.minimum) >= Self.percent(distance, 50) else { return nil }
        } else {
            guard n >= 2 else {
                state = .looking(lowest: lowest, proximityIns: n + 1)
                return nil
            }
            state = .decided
            candidate = lowest
        }
        guard candidate > axis.minimum else { return nil }
        guard candidate <= Self.percent(axis, 50) else { return .tooLarge(candidate) }
        set(candidate)
        return .offset(candidate)
    }

    /// The offset as the new zero: lower there, upper the same gap above it.
    private mutating func set(_ offset: Int32) {
        let gap = upper - lower
        state = .offset(offset)
        lower = offset
        upper = offset + gap
    }

    /// Force on UIKit's scale: libinput's `normalize_pressure` (the pressure above `lower` over the
    /// rest of the range plus one), clamped to 0 … 1, times the pencil's maximum.
    func force(_ value: Int32) -> Double {
        let normalized = (Double(value) - Double(lower)) / (Double(axis.maximum) - Double(lower) + 1)
        return Swift.min(1, Swift.max(0, normalized)) * PenAxes.maximumPossibleForce
    }
}

extension AbsInfo {
    /// The value over the axis's range, 0 … 1 (clamped).
    func normalized(_ value: Int32) -> Double {
        guard maximum > minimum else { return 0 }
        return Swift.min(1, Swift.max(0, (Double(value) - Double(minimum)) / (Double(maximum) - Double(minimum))))
    }
}
