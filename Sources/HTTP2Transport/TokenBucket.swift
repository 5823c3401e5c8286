/// The per-connection throttle: a token bucket in exact integer arithmetic, with time passed in.
///
/// Tokens refill continuously at `ratePerSecond`; the bucket holds at most `capacity` tokens. A request
/// takes one token, so any sliding one-second window holds at most `rate + capacity` grants. A rate of 0
/// means unthrottled.
///
/// The default capacity is `max(2, ceil(rate × 0.002))`, capped at `maximumCapacity` (`max(1, ceil(rate ×
/// 0.01))`): 3 at 1500/s. At least 2 so a wake-up that comes a little late does not lose the token that
/// became due meanwhile; small, so `rate + capacity` stays under `rate × 1.01` with room to spare for
/// what happens between our clock and the server's (scheduling, TCP, the server's own batching): a server
/// measuring its own sliding window sees requests shifted by a few milliseconds. Any capacity up to
/// `maximumCapacity` keeps the client-side bound `rate + capacity ≤ rate × 1.01 + 1`.
public struct TokenBucket: Hashable, Sendable {
    /// Requests per second; 0 = unlimited.
    public let ratePerSecond: Int
    /// The burst: tokens the bucket holds when full.
    public let capacity: Int

    /// Tokens scaled by 10⁹ (one token = `scale` units), so a nanosecond of refill adds `ratePerSecond` units.
    private var units: Int
    private var lastRefill: UInt64
    private static let scale = 1_000_000_000

    /// A full bucket at `now` (nanoseconds on any monotonic clock) with the default capacity.
    public init(ratePerSecond: Int, now: UInt64) {
        self.init(ratePerSecond: ratePerSecond, capacity: Self.defaultCapacity(ratePerSecond: ratePerSecond), now: now)
    }

    /// A full bucket holding at most `capacity` tokens (at least 1).
    public init(ratePerSecond: Int, capacity: Int, now: UInt64) {
        precondition(ratePerSecond >= 0, "rate must not be negative")
        precondition(ratePerSecond <= Self.scale, "rate above 10⁹ requests/s")
        precondition(capacity >= 1 || ratePerSecond == 0, "capacity must be at least 1")
        self.ratePerSecond = ratePerSecond
        self.capacity = ratePerSecond == 0 ? 0 : capacity
        units = self.capacity * Self.scale
        lastRefill = now
    }

    /// `min(max(2, ceil(rate × 0.002)), maximumCapacity)`; 0 for unthrottled.
    public static func defaultCapacity(ratePerSecond rate: Int) -> Int {
        rate == 0 ? 0 : min(max(2, (rate + 499) / 500), maximumCapacity(ratePerSecond: rate))
    }

    /// `max(1, ceil(rate × 0.01))`: the largest capacity that keeps `rate + capacity ≤ rate × 1.01 + 1`.
    public static func maximumCapacity(ratePerSecond rate: Int) -> Int {
        rate == 0 ? 0 : max(1, (rate + 99) / 100)
    }

    /// A bucket that never refuses.
    public static let unlimited = TokenBucket(ratePerSecond: 0, now: 0)

    public var isUnlimited: Bool { ratePerSecond == 0 }

    /// The bound on requests in any one-second window this bucket guarantees (`nil` when unlimited).
    public var maximumPerSecond: Int? { isUnlimited ? nil : ratePerSecond + capacity }

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

    /// Spends every token at `now`: the next one comes `1/rate` later. For when grants taken earlier turned
    /// out to be used only now (requests held back by the connection), so they must not add to a burst.
    public mutating func empty(now: UInt64) {
        if isUnlimited { return }
        refill(now: now)
        units = 0
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
