import Glibc

/// CLOCK_MONOTONIC, the clock the kernel stamps evdev events with (`EVIOCSCLOCKID`, set by
/// `EvdevDevice`): the daemon's timers, deadlines and a device's removal time are on it, so that they
/// compare with the touches' timestamps. The one place the process reads a clock.
public enum MonotonicClock {
    /// Seconds since boot (not counting suspend).
    public static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The same in whole nanoseconds, for measuring short spans without rounding (benchmarks).
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
