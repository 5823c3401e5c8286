/// Paces a throttled connection: a token bucket in exact integer arithmetic, with time passed in.
///
/// Tokens refill continuously at `ratePerSecond`; the bucket holds at most `capacity` tokens, which is how
/// far a loop that woke up late may catch up at once. The bound on any one second is not the bucket's job
/// but `SendWindow`'s (see `Throttle`). A rate of 0 means unthrottled.
public struct TokenBucket: Hashable, Sendable {
    /// Requests per second; 0 = unlimited.
    public let ratePerSecond: Int
    /// The burst: tokens the bucket holds when full.
    public let capacity: Int

    /// Tokens scaled by 10⁹ (one token = `scale` units), so a nanosecond of refill adds `ratePerSecond` units.
    private var units: Int
    private var lastRefill: UInt64
    private static let scale = 1_000_000_000

    /// A bucket holding at most `capacity` tokens (at least 1), with `tokens` of them (default: full) at `now`
    /// (nanoseconds, any monotonic clock).
    public init(ratePerSecond: Int, capacity: Int, tokens: Int? = nil, now: UInt64) {
        precondition(ratePerSecond >= 0, "rate must not be negative")
        precondition(ratePerSecond <= Self.scale, "rate above 10⁹ requests/s")
        precondition(capacity >= 1 || ratePerSecond == 0, "capacity must be at least 1")
        self.ratePerSecond = ratePerSecond
        self.capacity = ratePerSecond == 0 ? 0 : capacity
        units = min(self.capacity, max(0, tokens ?? self.capacity)) * Self.scale
        lastRefill = now
    }

    /// A bucket that never refuses.
    public static let unlimited = TokenBucket(ratePerSecond: 0, capacity: 0, now: 0)

    public var isUnlimited: Bool { ratePerSecond == 0 }

    /// Takes one token if there is one at `now`.
    public mutating func take(now: UInt64) -> Bool {
        if isUnlimited { return true }
        refill(now: now)
        guard units >= Self.scale else { return false }
        units -= Self.scale
        return true
    }

    /// Nanoseconds from `now` until a token will be available (0 if one is available now).
    public mutating func nextAvailable(now: UInt64) -> UInt64 {
        if isUnlimited { return 0 }
        refill(now: now)
        if units >= Self.scale { return 0 }
        let missing = Self.scale - units
        return UInt64((missing + ratePerSecond - 1) / ratePerSecond)
    }

    /// Tokens available at `now` (whole tokens).
    public mutating func available(now: UInt64) -> Int {
        if isUnlimited { return Int.max }
        refill(now: now)
        return units / Self.scale
    }

    private mutating func refill(now: UInt64) {
        guard now > lastRefill else { return }  // time never runs backwards here
        let full = capacity * Self.scale
        // Clamp the elapsed time before multiplying so the product cannot overflow.
        let elapsed = min(now - lastRefill, UInt64(full / ratePerSecond + 1))
        units = min(full, units + Int(elapsed) * ratePerSecond)
        lastRefill = now
    }
}
