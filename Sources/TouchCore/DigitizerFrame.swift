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

    public init(device: Int = 0, timestamp: Double, contacts: [Contact]) {
        self.device = device
        self.timestamp = timestamp
        self.contacts = contacts
    }
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

    public init(id: Int, location: Point, majorRadius: Double = 0, force: Double = 0,
                type: Touch.TouchType = .direct, isCancelled: Bool = false,
                majorRadiusTolerance: Double = 0, maximumPossibleForce: Double = 0,
                record: DigitizerRecord = DigitizerRecord()) {
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
