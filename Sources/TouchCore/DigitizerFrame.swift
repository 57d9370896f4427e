/// What a digitizer reports at one instant: every contact that is down, in window points.
/// This is the boundary between the input layer (evdev, recordings) and TouchCore, the
/// BackBoard → UIApplication hand-off of the iOS path.
///
/// A contact id absent from the device's next frame has lifted; a contact with `isCancelled` is
/// cancelled (a palm, the device went away, sync was lost). Ids are per device.
public struct DigitizerFrame: Sendable, Equatable {
    /// Which digitizer (input device) the frame comes from; touches of different devices never mix.
    public var device: Int
    /// Seconds on a monotonic clock (the kernel's CLOCK_MONOTONIC for live devices).
    public var timestamp: Double
    /// Every contact down at `timestamp`.
    public var contacts: [Contact]
    /// A pencil in range above the screen and not touching it (HV1): what hover recognizers follow.
    /// Nil for finger devices, and for a pen out of range or with its tip down.
    public var hover: Hover?
    /// The pencil's barrel buttons held at `timestamp` (a pen device's; empty for fingers).
    public var pencilButtons: PencilButtons

    public init(device: Int = 0, timestamp: Double, contacts: [Contact], hover: Hover? = nil,
                pencilButtons: PencilButtons = []) {
        self.device = device
        self.timestamp = timestamp
        self.contacts = contacts
        self.hover = hover
        self.pencilButtons = pencilButtons
    }

    /// A pen device's pencil is in range: hovering, or touching with its tip (PR1).
    public var pencilInRange: Bool {
        hover != nil || contacts.contains { $0.type == .pencil && !$0.isCancelled }
    }
}

/// What a pencil says beyond a finger (T8, T11): how it is tilted and which end is down.
public struct PencilPose: Sendable, Equatable {
    /// Radians: π/2 for a pencil upright on the screen, toward 0 as it lies down (UITouch.altitudeAngle).
    public var altitudeAngle: Double
    /// The direction the pencil's cap points, projected on the screen: a unit vector in screen points
    /// (y down). (1, 0) when the device reports no tilt, as UIKit answers for a finger.
    public var azimuth: Point
    /// The device reports tilt (ABS_TILT_X/Y): the angles are measured, not defaults.
    public var hasTilt: Bool
    /// The eraser end (BTN_TOOL_RUBBER): a pencil touch all the same, that says so on the socket.
    public var isEraser: Bool

    public init(altitudeAngle: Double = .pi / 2, azimuth: Point = Point(x: 1, y: 0), hasTilt: Bool = false,
                isEraser: Bool = false) {
        self.altitudeAngle = altitudeAngle
        self.azimuth = azimuth
        self.hasTilt = hasTilt
        self.isEraser = isEraser
    }

    /// A finger's, or a pencil's without tilt: upright, azimuth along +x.
    public static let upright = PencilPose()

    /// The azimuth at `location` (screen points) as a unit vector in the space `convert` takes screen
    /// points into (a view's, after its transforms); (1, 0) where the conversion flattens it.
    func azimuth(at location: Point, through convert: (Point) -> Point) -> Point {
        let v = convert(location + azimuth) - convert(location)
        let length = v.length
        return length > 0 && length.isFinite ? v / length : Point(x: 1, y: 0)
    }
}

/// A pencil above the screen (UIHoverGestureRecognizer's input, HV1–HV4).
public struct Hover: Sendable, Equatable {
    /// Where the pencil is over, in screen points.
    public var location: Point
    /// 0 at the surface … 1 at the edge of the pen's range (ABS_DISTANCE); 0 when the device does not say.
    public var zOffset: Double
    public var pose: PencilPose

    public init(location: Point, zOffset: Double = 0, pose: PencilPose = .upright) {
        self.location = location
        self.zOffset = zOffset
        self.pose = pose
    }
}

/// A pencil's barrel buttons (BTN_STYLUS, BTN_STYLUS2), as held in a frame.
public struct PencilButtons: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// BTN_STYLUS: button 1 on the socket.
    public static let primary = PencilButtons(rawValue: 1)
    /// BTN_STYLUS2: button 2.
    public static let secondary = PencilButtons(rawValue: 2)
}

/// One finger (or pen, or palm) on a digitizer.
public struct Contact: Sendable, Equatable {
    /// Stable while the contact stays down; unique among the device's current contacts.
    public var id: Int
    /// Position in window points.
    public var location: Point
    /// Radius of the contact's major axis, in points (0 when the device does not report it).
    public var majorRadius: Double
    /// Normalized force: 1.0 is an average touch, 0 when the device has no pressure sensor (T8).
    public var force: Double
    public var type: Touch.TouchType
    /// The contact is no longer a touch (palm, device removed, lost sync): its touch is cancelled.
    public var isCancelled: Bool
    /// The ± accuracy of `majorRadius`, in points.
    public var majorRadiusTolerance: Double
    /// The device's highest reportable force (0 when it has no pressure sensor).
    public var maximumPossibleForce: Double
    /// The digitizer's own record of the contact, carried by its touch (`Touch.record`).
    public var record: DigitizerRecord
    /// A pencil's tilt and end (T11); `.upright` for fingers.
    public var pose: PencilPose

    public init(id: Int, location: Point, majorRadius: Double = 0, force: Double = 0,
                type: Touch.TouchType = .direct, isCancelled: Bool = false,
                majorRadiusTolerance: Double = 0, maximumPossibleForce: Double = 0,
                record: DigitizerRecord = DigitizerRecord(), pose: PencilPose = .upright) {
        self.pose = pose
        self.id = id
        self.location = location
        self.majorRadius = majorRadius
        self.force = force
        self.type = type
        self.isCancelled = isCancelled
        self.majorRadiusTolerance = majorRadiusTolerance
        self.maximumPossibleForce = maximumPossibleForce
        self.record = record
    }
}

/// The digitizer's own record of a contact, in its own units and layout. TouchCore keeps it with the
/// touch and never reads it, as a UITouch keeps the IOHIDEvent that made it: the input layer fills it
/// (the contact's evdev slot axes) and pass-through copies it out to the compositor unmodified.
public struct DigitizerRecord: Equatable, Sendable {
    public var lanes: SIMD16<Int32>

    public init(lanes: SIMD16<Int32> = SIMD16<Int32>()) {
        self.lanes = lanes
    }
}
