/// The application: turns digitizer frames into touches and events and sends them to its windows
/// (UIApplication with its event queue). uikit-semantics T1–T7, E1–E5.
///
/// The event loop calls `handle(_:)` for every frame and `advance(to:)` when `nextDeadline` comes, so
/// that timer-driven gesture transitions (a long press beginning, a tap failing for want of a second
/// tap) happen at the right time (D3). TouchCore reads no clock: time is what the frames and
/// `advance(to:)` say.
///
/// Bad input gets a defined answer, never a crash; each case is handled where it enters, in
/// `handle(_:)`, and reported through `onWarning`.
public final class Application: Responder {
    public private(set) var windows: [Window] = []

    /// The latest time the application has seen, in seconds (frames and `advance(to:)`).
    public private(set) var currentTime: Double = -Double.infinity

    /// Called after every event has been sent to the windows; the daemon reports touches from here.
    public var onEvent: ((Event) -> Void)?

    /// Called with a sentence whenever input had to be cleaned (see `handle(_:)`).
    public var onWarning: ((String) -> Void)?
    /// Devices whose new touches reach no recognizer (FO3: an app that wants every touch is focused):
    /// they hit-test and reach their views as touches in a view without recognizers do, so a mirror
    /// hears all of them. Read when a touch begins: a touch already down keeps its recognizers.
    public var devicesWithoutRecognizers: Set<Int> = []

    /// When set, every recognizer transition is logged as `recognizer: state → input → state` (S2).
    public var debugLog: ((String) -> Void)? {
        didSet { for w in windows { w.environment.debugLog = debugLog } }
    }

    /// When set, called with every recognizer's every state change (S2), waits for failure
    /// requirements (F1) and resets (S4) included, in the order they happen.
    public var onTransition: ((RecognizerTransition) -> Void)? {
        didSet { for w in windows { w.environment.onTransition = onTransition } }
    }

    /// All live touches, in the order they began.
    private var liveTouches: [Touch] = []
    /// `handle`'s list of the touches a frame begins, between frames (always empty).
    private var beganStorage: [Touch] = []
    /// The event's `orderedTouches` differ from `liveTouches` (touches came or went since the last
    /// dispatch): the next dispatch refills them.
    private var eventListStale = true
    /// The event object of the current touch sequence (E1).
    private var event = Event()
    private var tapCounter = TapCounter()
    private var nextTouchIdentifier = 1
    /// Numbers the dispatches (Event.serial).
    private var dispatchSerial = 0
    /// Devices already warned about, so a broken device does not flood the log.
    private var warned: Set<String> = []
    /// Each device's pencil hovering: the hover recognizers it is over (Application+Hover.swift, HV1).
    var hovering: [Int: [HoverGestureRecognizer]] = [:]

    public init(window: Window) {
        super.init()
        addWindow(window)
    }

    /// The touch sequences under way end with the application: its windows' recognizers and caches let
    /// go of their touches, which hold the windows (T4), so that nothing keeps anything alive in a
    /// circle once the application and its windows are let go of.
    deinit {
        for w in windows where w.application === self {
            w.application = nil
            w.environment.isOnlyWindow = false
            w.environment.letGoOfTouches()
        }
        // A touch and the event of its sequence hold each other until the sequence ends (E1).
        for t in liveTouches { t.lastEvent = nil }
        event.orderedTouches = []
    }

    /// Adds a window in front of the others. The window's next responder is the application.
    public func addWindow(_ window: Window) {
        guard !windows.contains(where: { $0 === window }) else { return }
        windows.append(window)
        environments.append(window.environment)
        window.application = self
        window.environment.debugLog = debugLog
        window.environment.onTransition = onTransition
        for w in windows { w.environment.isOnlyWindow = windows.count == 1 }
    }

    /// The end of the responder chain (R2, R4): unhandled touches are dropped here.
    override public var next: Responder? { nil }

    /// The touches that are down now, in the order they began.
    public var activeTouches: [Touch] { liveTouches }

    /// Nothing is under way: no touch is down, no view waits for a withheld delivery (C2, C3), no
    /// recognizer takes part in a touch sequence (S4: all reset) and no timer is pending. Once every
    /// finger has lifted and the pending deadlines have passed, an application is idle.
    public var isIdle: Bool {
        liveTouches.isEmpty && nextDeadline == nil
            && environments.allSatisfy { $0.participants.isEmpty && $0.gatedTouches.isEmpty }
    }

    // MARK: Time

    /// The windows' gesture environments, in the same order: asked before every frame, so kept here
    /// and read without reference counting.
    private var environments: [GestureEnvironment] = []

    /// When the event loop must call `advance(to:)` next, or nil when nothing is pending.
    public var nextDeadline: Double? {
        var earliest: Double?
        environments.forEach { e in
            if let d = e.nextDeadline, d < (earliest ?? .infinity) { earliest = d }
        }
        return earliest
    }

    /// Fires every timer due at or before `time`, in time order (D3). Time never goes backwards:
    /// an earlier time than the application has seen does nothing.
    public func advance(to time: Double) {
        guard !time.isNaN else { return }
        while let (index, deadline) = earliestDeadline(notAfter: time) {
            currentTime = Swift.max(currentTime, deadline)
            environments[index].fireDeadline(at: deadline)
        }
        if time > currentTime { currentTime = time }
        let now = currentTime
        environments.forEach { e in e.time = Swift.max(e.time, now) }
    }

    /// The window (by index) whose deadline comes first, if one is due by `time`.
    private func earliestDeadline(notAfter time: Double) -> (Int, Double)? {
        var best: (Int, Double)?
        var i = 0
        environments.forEach { e in
            if let d = e.nextDeadline, d <= time, d < (best?.1 ?? .infinity) { best = (i, d) }
            i += 1
        }
        return best
    }

    // MARK: Frames → touches → events

    /// Takes one frame of a digitizer: creates, moves, ends and cancels touches, and sends the event
    /// to the windows (UIApplication.sendEvent → UIWindow.sendEvent, E5).
    ///
    /// Bad input and what happens to it:
    /// - a timestamp that is NaN, infinite or earlier than the last one: the last one is used (time
    ///   never runs backwards);
    /// - a contact id twice in one frame: the last entry wins;
    /// - a NaN or infinite coordinate: a touch already down keeps its last location; a new contact
    ///   does not begin until it reports a finite one;
    /// - a frame from a device never seen before: the device is simply new;
    /// - `isCancelled` for an id with no touch: nothing to cancel, ignored.
    /// A frame that changes nothing (every contact where it was) makes no event.
    public func handle(_ frame: DigitizerFrame) {
        var time = frame.timestamp
        if !time.isFinite || time < currentTime {
            if currentTime.isFinite {
                warnOnce("device \(frame.device): timestamp",
                         "device \(frame.device): timestamp \(time) is \(time.isFinite ? "earlier than the last one" : "not finite"); using \(currentTime) (logged once per device)")
                time = currentTime
            } else {
                warnOnce("device \(frame.device): timestamp",
                         "device \(frame.device): timestamp \(time) is not finite; using 0 (logged once per device)")
                time = 0
            }
        }
        // Timers due before this frame fire first, so a long press begins at 0.5 s even when the
        // next frame only comes at 0.6 s (D3).
        advance(to: time)
        // A pencil above the screen, or no longer (HV3): the hovers it left end before its tip's touch
        // begins, and those it comes over begin after its touch has ended.
        if frame.hover != nil || hovering[frame.device] != nil {
            let following = leaveHover(frame, at: time)
            defer { followHover(frame, following) }
            handleContacts(frame, at: time)
        } else {
            handleContacts(frame, at: time)
        }
    }

    /// The contacts of a frame whose time has been settled: touches begin, move, end and are cancelled,
    /// and the event goes to the windows.
    private func handleContacts(_ frame: DigitizerFrame, at time: Double) {

        // The last entry for an id wins.
        let contacts = ContactTable(frame.contacts)
        if let duplicate = contacts.duplicate {
            warnOnce("device \(frame.device): duplicate id",
                     "device \(frame.device): contact id \(duplicate) appears twice in one frame; the last one wins (logged once per device)")
        }

        var changed = false, anyTerminal = false
        // Which of the frame's contacts belong to a touch that is already down.
        var matched = ContactTable.Marks()
        // Touches already down: moved, stationary, ended or cancelled. (A copy of the list is walked:
        // a warning handler that feeds another frame cannot pull it away.)
        let down = liveTouches
        down.forEachUnretained { touch in
            guard touch.device == frame.device else {
                touch.phase = .stationary
                touch.previousScreenLocation = touch.screenLocation
                return
            }
            guard let index = contacts.index(of: touch.contactID, hint: touch.contactIndex) else {
                touch.phase = .ended          // absent from the frame: lifted
                touch.previousScreenLocation = touch.screenLocation
                touch.lastChange = time
                changed = true
                anyTerminal = true
                return
            }
            matched.insert(index)
            touch.contactIndex = index
            let c = contacts[index]
            if c.isCancelled {
                touch.phase = .cancelled
                touch.previousScreenLocation = touch.screenLocation
                touch.lastChange = time
                changed = true
                anyTerminal = true
                return
            }
            var location = c.location
            if !location.isFinite {
                warnOnce("device \(frame.device): non-finite",
                         "device \(frame.device): contact \(c.id) has a non-finite location; keeping its last one (logged once per device)")
                location = touch.screenLocation
            }
            if location != touch.screenLocation || c.force != touch.force || c.pose != touch.pose {
                touch.phase = .moved
                touch.previousScreenLocation = touch.screenLocation
                touch.screenLocation = location
                touch.maximumTravel = Swift.max(touch.maximumTravel, location.distance(to: touch.startScreenLocation))
                touch.lastChange = time
                changed = true
            } else {
                touch.phase = .stationary
                touch.previousScreenLocation = touch.screenLocation
            }
            touch.takeMeasures(of: c)
        }
        // New contacts: began. The list's storage is kept between frames, taken when a first contact is
        // new and given back empty below: a finger landing allocates its Touch and nothing else here,
        // and a frame where none lands does not touch the storage at all.
        var began: [Touch] = []
        for index in 0..<contacts.count where !matched.contains(index) && contacts.isLastEntry(index) {
            let c = contacts[index]
            if c.isCancelled { continue }     // cancelling what never began: nothing to do
            guard c.location.isFinite else {
                warnOnce("device \(frame.device): non-finite new",
                         "device \(frame.device): new contact \(c.id) has a non-finite location; it begins when it reports a finite one (logged once per device)")
                continue
            }
            let count = tapCounter.tapCount(device: frame.device, location: c.location, time: time)
            let touch = Touch(identifier: nextTouchIdentifier, device: frame.device, contact: c,
                              timestamp: time, tapCount: count)
            if !devicesWithoutRecognizers.isEmpty && devicesWithoutRecognizers.contains(frame.device) {
                touch.reachesRecognizers = false
            }
            nextTouchIdentifier += 1
            if began.isEmpty { swap(&began, &beganStorage) }
            began.append(touch)
            changed = true
        }
        guard changed else { return }           // nothing began: the storage was not taken
        let landed = !began.isEmpty
        if landed {
            for t in began {
                hitTest(t)
                liveTouches.append(t)
            }
            began.removeAll(keepingCapacity: true)
            beganStorage = began
            eventListStale = true
        }
        dispatch(time: time, landed: landed)

        // Touches that ended or were cancelled leave after the one event they appear in (T3).
        if anyTerminal {
            for t in liveTouches where t.phase == .ended { tapCounter.touchEnded(t, at: time) }
            liveTouches.removeAll { $0.phase.isTerminal }
            eventListStale = true
        }
        if liveTouches.isEmpty {
            // The sequence is over (T3). Its last touches keep the event (for late deliveries, C3);
            // the event lets go of them, so that neither keeps the other alive.
            event.orderedTouches = []
            event = Event()
            eventListStale = true
        }
        checkInvariants()
    }

    /// Cancels every live touch of `device` (or of every device) at `time`, as UIKit does for a system
    /// interruption (C7); the input layer uses it when a device is removed or loses sync.
    public func cancelTouches(device: Int? = nil, at time: Double) {
        var byDevice: [Int: [Contact]] = [:]
        for t in liveTouches where device == nil || t.device == device {
            byDevice[t.device, default: []].append(
                Contact(id: t.contactID, location: t.screenLocation, isCancelled: true))
        }
        for (d, contacts) in byDevice.sorted(by: { $0.key < $1.key }) {
            handle(DigitizerFrame(device: d, timestamp: time, contacts: contacts))
        }
    }

    /// Binds a new touch to a window and a view (H1, T4): the front-most window whose hit-test finds a
    /// view, else the front-most window with no view.
    private func hitTest(_ touch: Touch) {
        for window in windows.reversed() {
            let p = window.convertFromSuperview(touch.screenLocation)
            if let v = window.hitTest(p, with: event) {
                touch.window = window
                touch.view = v
                return
            }
        }
        touch.window = windows.last
        touch.view = nil
    }

    private func dispatch(time: Double, landed: Bool) {
        event.timestamp = time
        if eventListStale {
            // The event's list has storage of its own, refilled when touches came or went: were it the
            // live list's storage shared, every landing and every lift would copy that list.
            event.orderedTouches.removeAll(keepingCapacity: true)
            event.orderedTouches.append(contentsOf: liveTouches)
            eventListStale = false
        }
        dispatchSerial += 1
        event.serial = dispatchSerial
        let serial = dispatchSerial
        let event = self.event
        // Setting a number counts no references: on a frame where no finger landed this walk retains
        // nothing. A touch lives within one event object (it is replaced only when no touch is down),
        // which a touch takes as it begins.
        liveTouches.forEach { $0.lastEventSerial = serial }
        if landed {
            liveTouches.forEach { t in if t.phase == .began { t.lastEvent = event } }
        }
        if windows.count == 1 {
            let only = windows[0]             // every touch is in the only window (hitTest)
            only.sendEvent(event)
        } else {
            for w in windows where liveTouches.contains(where: { $0.window === w }) {
                w.sendEvent(event)
            }
        }
        onEvent?(event)
    }

    /// Reports a cleaned input once per kind and device, so a broken device does not flood the log.
    private func warnOnce(_ key: String, _ message: String) {
        guard let onWarning, warned.insert(key).inserted else { return }
        onWarning(message)
    }

    /// Contracts checked at the end of every frame in debug builds.
    private func checkInvariants() {
        #if DEBUG
        // T3: after a frame, only live touches remain, and a device's contact has one touch at most.
        for (i, t) in liveTouches.enumerated() {
            assert(!t.phase.isTerminal, "T3: \(t) left after it ended")
            for other in liveTouches[(i + 1)...] {
                assert(other.device != t.device || other.contactID != t.contactID, "two touches for one contact: \(t), \(other)")
            }
        }
        #endif
    }
}

/// A frame's contacts by id, the last entry of an id winning. Looked up by a scan from the end for
/// the usual handful of contacts (no allocation), through a dictionary beyond that.
struct ContactTable {
    let contacts: [Contact]
    private var index: [Int: Int]?
    /// An id that appeared more than once, if any.
    private(set) var duplicate: Int?

    init(_ contacts: [Contact]) {
        self.contacts = contacts
        if contacts.count > 16 {
            var index: [Int: Int] = [:]
            for (i, c) in contacts.enumerated() {
                if index.updateValue(i, forKey: c.id) != nil { duplicate = c.id }
            }
            self.index = index
        } else if contacts.count > 1 {
            // Ids in increasing order (the usual case) cannot repeat; otherwise compare pairs.
            var increasing = true
            for i in 1..<contacts.count where contacts[i - 1].id >= contacts[i].id { increasing = false; break }
            if !increasing {
                for i in 1..<contacts.count where duplicate == nil {
                    for j in 0..<i where contacts[j].id == contacts[i].id { duplicate = contacts[i].id }
                }
            }
        }
    }

    var count: Int { contacts.count }

    subscript(i: Int) -> Contact { contacts[i] }

    /// The position of the last entry for `id`; `hint` (where it was in the last frame) is tried
    /// first.
    @inline(__always)
    func index(of id: Int, hint: Int) -> Int? {
        if duplicate == nil, hint < contacts.count, contacts[hint].id == id { return hint }
        return index(of: id)
    }

    /// The position of the last entry for `id`.
    func index(of id: Int) -> Int? {
        if let index { return index[id] }
        var i = contacts.count - 1
        while i >= 0 {
            if contacts[i].id == id { return i }
            i -= 1
        }
        return nil
    }

    /// Whether entry `i` is the one that counts for its id (no later entry has the id).
    func isLastEntry(_ i: Int) -> Bool {
        duplicate == nil || index(of: contacts[i].id) == i
    }

    /// A set of entry positions; a bit mask for up to 64 contacts.
    struct Marks {
        private var bits: UInt64 = 0
        private var more: Set<Int> = []

        @inline(__always)
        mutating func insert(_ i: Int) {
            if i < 64 { bits |= 1 << UInt64(i) } else { more.insert(i) }
        }

        @inline(__always)
        func contains(_ i: Int) -> Bool {
            i < 64 ? bits & (1 << UInt64(i)) != 0 : more.contains(i)
        }
    }
}
