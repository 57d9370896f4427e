import CLinux
import Glibc

/// A single-threaded epoll loop: file descriptors with handlers, nothing else. No polling: when nothing
/// happens, `epoll_wait` sleeps without a timeout, so an idle daemon makes no wakeups.
public final class EventLoop {
    private let epfd: FileDescriptor
    /// Handlers by file descriptor (descriptors are small numbers: an array, no hashing per wakeup).
    /// A handler removed while it runs (perhaps by itself) lives until its call returns: the call holds it.
    private var handlers: [((Events) -> Void)?] = []
    public private(set) var isRunning = false
    /// Runs after the handlers of each wakeup, before the loop sleeps again (the socket's sends: one
    /// per client for everything a wakeup produced).
    public var afterHandlers: (() -> Void)?
    /// Work put off to the next pass (`soon`): a client's lines past its budget for one wakeup.
    private var deferred: [() -> Void] = []

    public init() throws {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("epoll_create1", "the event loop") }
        epfd = FileDescriptor(rawValue: fd)
    }

    deinit { epfd.close() }

    /// What a descriptor is watched for, and what happened to it (epoll's event bits).
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let readable = Events(rawValue: UInt32(clinux_epoll_in()))
        public static let writable = Events(rawValue: UInt32(clinux_epoll_out()))
        /// The peer stopped sending (EPOLLRDHUP).
        public static let hangup = Events(rawValue: UInt32(clinux_epoll_hup()))
        /// The peer is gone in both directions (EPOLLHUP, EPOLLERR): reported whatever a descriptor's interest.
        public static let closed = Events(rawValue: UInt32(clinux_epoll_closed()))
    }

    /// Watches `fd` for `events`; `handler` gets the events that happened.
    public func add(_ fd: FileDescriptor, events: Events = .readable, _ handler: @escaping (Events) -> Void) throws {
        var ev = epoll_event()
        ev.events = events.rawValue
        ev.data.fd = fd.rawValue
        guard epoll_ctl(epfd.rawValue, EPOLL_CTL_ADD, fd.rawValue, &ev) == 0 else { throw SystemError.last("epoll_ctl", "\(fd)") }
        let i = Int(fd.rawValue)
        if handlers.count <= i { handlers += Array(repeating: nil, count: i + 1 - handlers.count) }
        handlers[i] = handler
    }

    public func modify(_ fd: FileDescriptor, events: Events) {
        var ev = epoll_event()
        ev.events = events.rawValue
        ev.data.fd = fd.rawValue
        _ = epoll_ctl(epfd.rawValue, EPOLL_CTL_MOD, fd.rawValue, &ev)
    }

    public func remove(_ fd: FileDescriptor) {
        let i = Int(fd.rawValue)
        guard i >= 0, i < handlers.count, handlers[i] != nil else { return }
        handlers[i] = nil
        _ = epoll_ctl(epfd.rawValue, EPOLL_CTL_DEL, fd.rawValue, nil)
    }

    public func stop() { isRunning = false }

    /// Runs `work` on the loop's next pass, after the handlers of whatever is ready by then: the loop
    /// does not sleep while work waits, and descriptors ready meanwhile (frames, timers, other
    /// clients) are served first. For work a peer makes that is bounded per pass (SocketServer).
    public func soon(_ work: @escaping () -> Void) { deferred.append(work) }

    /// Runs until `stop()`.
    public func run() {
        isRunning = true
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while isRunning {
            // Deferred work: look at what is ready without sleeping, then do it.
            let timeout: Int32 = deferred.isEmpty ? -1 : 0
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epfd.rawValue, $0.baseAddress, Int32($0.count), timeout) }
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<Int(n) {
                let fd = events[i].data.fd
                // A handler may have removed this fd (or another) meanwhile: its entry is empty then.
                if fd >= 0, Int(fd) < handlers.count, let handler = handlers[Int(fd)] { handler(Events(rawValue: events[i].events)) }
                if !isRunning { break }
            }
            if !deferred.isEmpty && isRunning {
                let due = deferred
                deferred = []
                for work in due { work() }
            }
            afterHandlers?()
        }
    }
}

/// A CLOCK_MONOTONIC timerfd armed at absolute times (the Application's next deadline).
public final class Timer {
    public let fd: FileDescriptor

    public init() throws {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("timerfd_create", "a timer") }
        self.fd = FileDescriptor(rawValue: fd)
    }

    deinit { fd.close() }

    /// Arms at `time` (seconds of CLOCK_MONOTONIC), or disarms with nil. `interval` repeats.
    public func arm(at time: Double?, interval: Double = 0) {
        var spec = itimerspec()
        if let time {
            // A time in the past fires at once (0 would disarm, so use the smallest non-zero value).
            let t = max(time, 1e-9)
            spec.it_value.tv_sec = Int(t)
            spec.it_value.tv_nsec = max(1, Int((t - Double(Int(t))) * 1e9))
            spec.it_interval.tv_sec = Int(interval)
            spec.it_interval.tv_nsec = Int((interval - Double(Int(interval))) * 1e9)
        }
        _ = timerfd_settime(fd.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Reads the expiry count, clearing the readable state.
    public func acknowledge() {
        var count: UInt64 = 0
        _ = read(fd.rawValue, &count, 8)
    }
}

/// How long to wait before connecting again (seconds): `first`, doubling after each failure up to
/// `maximum`, `first` again once connected. The bridge's daemon and broker, and follow-rotation's daemon.
public struct Backoff {
    public let first: Double
    public let maximum: Double
    /// The wait the next retry takes.
    public private(set) var delay: Double

    public init(first: Double = 0.5, maximum: Double) {
        self.first = first
        self.maximum = maximum
        delay = first
    }

    /// Whether no retry has failed since the last reset (the first failure is the one worth logging).
    public var isFirst: Bool { delay == first }

    /// The wait for this retry; the one after it doubles.
    public mutating func next() -> Double {
        let d = delay
        delay = Swift.min(maximum, delay * 2)
        return d
    }

    public mutating func reset() { delay = first }
}

/// Seconds of CLOCK_MONOTONIC: the clock evdev timestamps use.
public func monotonicNow() -> Double { MonotonicClock.seconds() }

/// SIGTERM, SIGINT and SIGHUP (and optionally SIGCHLD) as a readable fd.
public final class SignalReceiver {
    public let fd: FileDescriptor

    public init(_ signals: [Int32]) throws {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        sigprocmask(SIG_BLOCK, &mask, nil)
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("signalfd", "signals") }
        self.fd = FileDescriptor(rawValue: fd)
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { fd.close() }

    /// The pending signals, in order.
    public func take() -> [Int32] {
        var result: [Int32] = []
        var info = signalfd_siginfo()
        while read(fd.rawValue, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            result.append(Int32(info.ssi_signo))
        }
        return result
    }
}
