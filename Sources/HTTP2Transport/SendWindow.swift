/// The sends of the last second: a ring of the newest `limit` send times (monotonic nanoseconds), so the
/// question "may one more go now without `limit + 1` in some one-second window?" is exact and O(1).
public struct SendWindow: Hashable, Sendable {
    /// The most sends any closed one-second window may hold.
    public let limit: Int
    private var times: [UInt64]
    private var head = 0
    private var count = 0
    private var newest: UInt64 = 0
    private static let second: UInt64 = 1_000_000_000

    public init(limit: Int) {
        precondition(limit >= 1, "a window holds at least one send")
        self.limit = limit
        times = Array(repeating: 0, count: limit)
    }

    /// Sends that may still go at `now` without any closed one-second window holding more than `limit`.
    public mutating func room(now: UInt64) -> Int {
        expire(now: now)
        return limit - count
    }

    /// Nanoseconds from `now` until there is room for one more send (0 if there is now).
    public mutating func nextRoom(now: UInt64) -> UInt64 {
        expire(now: now)
        guard count == limit else { return 0 }
        return times[head] + Self.second + 1 - now
    }

    /// Counts a send at `time`. A time before the newest one counts as the newest (times never run back).
    /// A send beyond `limit` (one libcurl made on its own, e.g. retrying on a fresh connection) pushes the
    /// oldest out, so the ring always holds the newest sends.
    public mutating func record(_ time: UInt64) {
        newest = max(newest, time)
        if count == limit {
            head = (head + 1) % limit
            count -= 1
        }
        times[(head + count) % limit] = newest
        count += 1
    }

    /// Drops sends that left the window [now − 1 s, now].
    private mutating func expire(now: UInt64) {
        while count > 0 && times[head] + Self.second < now {
            head = (head + 1) % limit
            count -= 1
        }
    }
}
