#if canImport(Glibc)
    import Glibc
#endif

/// The process's one time base for deadlines, pacing and timers: CLOCK_MONOTONIC in nanoseconds, which no
/// wall-clock adjustment moves. Decisions take it as a plain number so that tests can feed them simulated time.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (the system's boot, on Linux).
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
