/// When a stopping connection ends; time is passed in, nothing here does I/O.
///
/// A stop drains: the loop keeps sending what waits and collecting what is in flight until both are done or
/// the deadline passes; then whatever is left fails with `.shutdown` (retryable: APNs may not have seen it).
/// No transport re-sends while stopping, so a flapping connection cannot hold the stop up.
struct ShutdownState: Equatable {
    /// Monotonic nanoseconds by which the loop ends; nil while no stop was asked for.
    private(set) var deadline: UInt64?

    var isStopping: Bool { deadline != nil }

    /// A stop by `deadline`; of several, the earliest wins (`stopNow` after `stop`).
    mutating func stop(by deadline: UInt64) {
        self.deadline = min(self.deadline ?? .max, deadline)
    }

    enum Action: Equatable {
        /// Carry on; sleep at most `milliseconds` (nil: no limit from the stop).
        case run(sleepAtMost: Int?)
        /// Everything is done: end the loop.
        case finish
        /// The deadline passed: fail what is waiting and in flight, then end the loop.
        case failTheRestAndFinish
    }

    /// The action at `now`, with `waiting` requests not handed to libcurl yet and `inFlight` in it.
    func turn(now: UInt64, waiting: Int, inFlight: Int) -> Action {
        guard let deadline else { return .run(sleepAtMost: nil) }
        if waiting == 0 && inFlight == 0 { return .finish }
        if now >= deadline { return .failTheRestAndFinish }
        return .run(sleepAtMost: Int((deadline - now + 999_999) / 1_000_000))
    }
}
