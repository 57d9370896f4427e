/// One finger on the screen, from the moment it comes down to the moment it lifts or is cancelled
/// (UITouch). uikit-semantics T1–T11.
///
/// A touch is compared by identity (T1): every new finger-down is a new object, including the second
/// tap of a double tap. Its `view` and `window` are fixed when it begins (T4). Locations are kept in
/// window coordinates and converted on demand with the geometry at call time (T5).
public final class Touch: Hashable, CustomStringConvertible {
    /// UITouch.Phase. A touch begins exactly once and ends or is cancelled exactly once (T2).
    public enum Phase: Int, Sendable, CustomStringConvertible {
        case began, moved, stationary, ended, cancelled

        public var description: String {
            switch self {
            case .began: "began"
            case .moved: "moved"
            case .stationary: "stationary"
            case .ended: "ended"
            case .cancelled: "cancelled"
            }
        }

        /// True for ended and cancelled: the touch is gone after this event.
        @inlinable public var isTerminal: Bool { self == .ended || self == .cancelled }
    }

    /// UITouch.TouchType (T8).
    public enum TouchType: Int, Sendable, CustomStringConvertible {
        case direct, indirect, pencil, indirectPointer

        public var description: String {
            switch self {
            case .direct: "direct"
            case .indirect: "indirect"
            case .pencil: "pencil"
            case .indirectPointer: "indirectPointer"
            }
        }
    }

    public internal(set) var phase: Phase
    /// Seconds; set at began and updated whenever the touch moves, ends or is cancelled (T6).
    public var timestamp: Double { replay?.timestamp ?? lastChange }
    var lastChange: Double
    /// Quick taps at about the same place, counted across touch objects (T7); valid from began.
    public internal(set) var tapCount: Int
    /// The hit-test view at began; fixed for the touch's life (T4). Nil when the touch hit nothing.
    public internal(set) var view: View?
    /// The window the touch began in; fixed for its life (T4). Retained, as UIKit's is.
    public internal(set) var window: Window?
    /// False for a touch of a device whose touches an app takes whole (FO3): no recognizer receives it.
    var reachesRecognizers = true
    /// The recognizers receiving this touch (T4, P1–P2): fixed at began, less those that ignore it.
    public internal(set) var gestureRecognizers: [GestureRecognizer] = []
    /// Points; accurate to ± `majorRadiusTolerance` (T8).
    public internal(set) var majorRadius = 0.0
    public internal(set) var majorRadiusTolerance = 0.0
    /// 1.0 is an average touch; 0 when the device has no pressure sensor (T8).
    public internal(set) var force = 0.0
    public internal(set) var maximumPossibleForce = 0.0
    public let type: TouchType
    /// A pencil's tilt and end, as of the latest frame (T11); `.upright` for a finger.
    public internal(set) var pose = PencilPose.upright
    /// The digitizer's record of the contact as of the location `location(in:)` reports: the latest
    /// frame's, or while a withheld touchesBegan is delivered late (C2), the one it began with.
    public var record: DigitizerRecord { replay?.record ?? currentRecord }
    var currentRecord = DigitizerRecord()

    /// The digitizer the touch comes from (`DigitizerFrame.device`).
    public let device: Int
    /// The digitizer's id for the contact (`Contact.id`); reused by later contacts.
    public let contactID: Int
    /// A number unique to this touch within its application, increasing in order of began.
    public let identifier: Int

    /// Current and previous location in screen points: the space the digitizer reports in and the
    /// windows are placed in (a window at the origin with no transform makes them window points), T5.
    var screenLocation: Point
    var previousScreenLocation: Point
    /// Where and when the touch began, for tapCount (T7) and recognizers.
    let startScreenLocation: Point
    let startTimestamp: Double
    /// The farthest the touch has travelled from its start, in points (T7: a tap moves ≤ 45 pt).
    var maximumTravel: Double = 0

    /// What the touch's view has heard so far (uikit-semantics C1–C3, T9–T10).
    var viewDelivery: ViewDelivery = .unregistered
    /// While a withheld touchesBegan is delivered late (C2), the touch reads as it was then.
    var replay: TouchSnapshot?
    /// The event the touch was last part of (E1: one event object per touch sequence). The event
    /// drops its touches when the sequence ends (`Application.handle`), so this makes no cycle.
    var lastEvent: Event?
    /// `Event.serial` of that event: compared on the hot path instead of loading the reference.
    var lastEventSerial = 0
    /// Where the touch's contact was in the last frame of its device (`ContactTable`): looked at first.
    var contactIndex = 0
    /// The S4 group walk of its window's environment that last walked this touch's recognizers.
    var groupRound = 0

    init(identifier: Int, device: Int, contact: Contact, timestamp: Double, tapCount: Int) {
        self.identifier = identifier
        self.device = device
        self.contactID = contact.id
        self.phase = .began
        self.lastChange = timestamp
        self.tapCount = tapCount
        self.screenLocation = contact.location
        self.previousScreenLocation = contact.location
        self.startScreenLocation = contact.location
        self.startTimestamp = timestamp
        self.type = contact.type
        takeMeasures(of: contact)
    }

    /// What the digitizer measured of the contact in this frame, taken as it is: the record it came in,
    /// its radius and force, and a pencil's pose. (Its location is the caller's: a non-finite one is
    /// kept out.)
    final func takeMeasures(of contact: Contact) {
        currentRecord = contact.record
        majorRadius = contact.majorRadius
        majorRadiusTolerance = contact.majorRadiusTolerance
        force = contact.force
        maximumPossibleForce = contact.maximumPossibleForce
        pose = contact.pose
    }

    // MARK: A pencil's angles (T11)

    /// Radians: π/2 when the pencil stands upright on the screen, smaller as it tilts; π/2 for a finger.
    public var altitudeAngle: Double { pose.altitudeAngle }

    /// The eraser end of a pencil is down (BTN_TOOL_RUBBER). Not in UIKit: the socket says so.
    public var isEraser: Bool { pose.isEraser }

    /// The direction the pencil's cap points, as a unit vector in `view`'s space (nil: the window's),
    /// after every transform between the screen and the view: a view turned 90° sees it turned back.
    public func azimuthUnitVector(in view: View?) -> Point {
        pose.azimuth(at: replay?.location ?? screenLocation) { convertFromScreen($0, to: view) }
    }

    /// The azimuth as an angle in `view`'s space (nil: the window's), radians in (−π, π], 0 along +x and
    /// growing clockwise on screen (y points down).
    public func azimuthAngle(in view: View?) -> Double {
        let v = azimuthUnitVector(in: view)
        return TouchMath.atan2(v.y, v.x)
    }

    /// The touch's location in `view`'s bounds space (nil: window coordinates), T5.
    public func location(in view: View?) -> Point {
        convertFromScreen(replay?.location ?? screenLocation, to: view)
    }

    /// The location at the previous event in which the touch changed; equal to the current
    /// location at began and while stationary (T5).
    public func previousLocation(in view: View?) -> Point {
        convertFromScreen(replay?.previousLocation ?? previousScreenLocation, to: view)
    }

    /// Screen → the touch's window → `view` (nil: the window's own space).
    func convertFromScreen(_ p: Point, to view: View?) -> Point {
        View.convertFromScreen(p, window: window, to: view)
    }

    /// Whether the touch is still down (not ended, not cancelled).
    public var isLive: Bool { !phase.isTerminal }

    public static func == (lhs: Touch, rhs: Touch) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        "Touch#\(identifier)(\(phase) at \(screenLocation), tapCount \(tapCount)\(view.map { " on \($0)" } ?? ""))"
    }
}

/// How a touch stood when its touchesBegan was withheld (C2), so the late delivery reports it as it was.
struct TouchSnapshot {
    var location: Point
    var previousLocation: Point
    var timestamp: Double
    var record: DigitizerRecord
}

/// The view side of a touch's life, as the window's gating sees it (C1–C3, T9–T10).
///
///     unregistered → none | pendingBegan   (the window has not seen the touch yet)
///     none                          the touch hit no view, or T9/T10 kept it from its view
///     pendingBegan → delivering → finished
///     pendingBegan → beganDelayed → delivering …            (C2: a recognizer delayed the began)
///     delivering → endDelayed → finished | cancelled        (C3: a recognizer delayed the end)
///     delivering | endDelayed → cancelled                   (C1: a recognizer took the touch)
///     beganDelayed → cancelled                              (C2: discarded, the view never hears of it)
enum ViewDelivery {
    case unregistered
    case none
    case pendingBegan
    case beganDelayed(TouchSnapshot)
    case delivering
    case endDelayed(Touch.Phase)
    case cancelled
    case finished

    /// The view is tracking the touch (for T9 and T10).
    var isTrackedByView: Bool {
        switch self {
        case .beganDelayed, .delivering, .endDelayed: true
        case .unregistered, .pendingBegan, .none, .cancelled, .finished: false
        }
    }

    var isUnregistered: Bool {
        if case .unregistered = self { return true }
        return false
    }
}
