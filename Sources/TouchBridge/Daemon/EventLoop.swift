import CLinux
import Glibc
import TouchCore
import TouchInput

/// A single-threaded epoll loop: file descriptors with handlers, nothing else. No polling: when nothing
/// happens, `epoll_wait` sleeps without a timeout, so an idle daemon makes no wakeups.
public final class EventLoop {
    private let epfd: Int32
    /// Handlers by file descriptor (descriptors are small numbers: an array, no hashing per wakeup).
    /// A handler removed while it runs (perhaps by itself) lives until its call returns: the call holds it.
    private var handlers: [((UInt32) -> Void)?] = []
    public private(set) var isRunning = false
    /// Runs after the handlers of each wakeup, before the loop sleeps again (the socket's sends: one
    /// per client for everything a wakeup produced).
    public var afterHandlers: (() -> Void)?

    public init() throws {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SystemError("epoll_create1", "the event loop", errno: errno) }
    }

    deinit { close(epfd) }

    public static let readable = UInt32(clinux_epoll_in())
    public static let writable = UInt32(clinux_epoll_out())
    public static let hangup = UInt32(clinux_epoll_hup())
    /// The peer is gone in both directions (EPOLLHUP, EPOLLERR): reported whatever a descriptor's interest.
    public static let closed = UInt32(clinux_epoll_closed())

    /// Watches `fd` for `events`; `handler` gets the events that happened.
    public func add(_ fd: Int32, events: UInt32 = EventLoop.readable, _ handler: @escaping (UInt32) -> Void) throws {
        var ev = epoll_event()
        ev.events = events
        ev.data.fd = fd
        guard epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0 else { throw SystemError("epoll_ctl", "fd \(fd)", errno: errno) }
        if handlers.count <= Int(fd) { handlers += Array(repeating: nil, count: Int(fd) + 1 - handlers.count) }
        handlers[Int(fd)] = handler
    }

    public func modify(_ fd: Int32, events: UInt32) {
        var ev = epoll_event()
        ev.events = events
        ev.data.fd = fd
        _ = epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev)
    }

    public func remove(_ fd: Int32) {
        guard fd >= 0, Int(fd) < handlers.count, handlers[Int(fd)] != nil else { return }
        handlers[Int(fd)] = nil
        _ = epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
    }

    public func stop() { isRunning = false }

    /// Runs until `stop()`.
    public func run() {
        isRunning = true
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while isRunning {
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epfd, $0.baseAddress, Int32($0.count), -1) }
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<Int(n) {
                let fd = events[i].data.fd
                // A handler may have removed this fd (or another) meanwhile: its entry is empty then.
                if fd >= 0, Int(fd) < handlers.count, let handler = handlers[Int(fd)] { handler(events[i].events) }
                if !isRunning { break }
            }
            afterHandlers?()
        }
    }
}

/// A CLOCK_MONOTONIC timerfd armed at absolute times (the Application's next deadline).
public final class Timer {
    public let fd: Int32

    public init() throws {
        fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("timerfd_create", "the deadline timer", errno: errno) }
    }

    deinit { close(fd) }

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
        _ = timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Reads the expiry count, clearing the readable state.
    public func acknowledge() {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
    }
}

/// Seconds of CLOCK_MONOTONIC: the clock evdev timestamps use.
public func monotonicNow() -> Double { MonotonicClock.seconds() }

/// SIGTERM, SIGINT and SIGHUP (and optionally SIGCHLD) as a readable fd.
public final class SignalReceiver {
    public let fd: Int32

    public init(_ signals: [Int32]) throws {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        sigprocmask(SIG_BLOCK, &mask, nil)
        fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("signalfd", "signals", errno: errno) }
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { close(fd) }

    /// The pending signals, in order.
    public func take() -> [Int32] {
        var result: [Int32] = []
        var info = signalfd_siginfo()
        while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            result.append(Int32(info.ssi_signo))
        }
        return result
    }
}
