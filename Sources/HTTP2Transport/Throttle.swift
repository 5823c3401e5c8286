/// The per-connection rate limit: a token bucket paces requests at `pacedRate`, and a window of the actual
/// send times holds every sliding second to `maximumPerSecond`. A rate of 0 means unthrottled.
///
/// The pace is 2% under the configured rate: a server counts its sliding second when it reads, so requests
/// its reads delay look bunched; 2% leaves ~28 ms of such jitter before it sees more than rate × 1.01.
///
/// Three parts, because one bucket cannot do it all on a busy machine. A bucket small enough to bound the
/// second by itself loses every token that comes due while the loop wakes late; so the pacing bucket holds
/// `burst` tokens (25 ms) and a late loop catches up. A second bucket at twice the pace, holding `step`
/// tokens, spreads the catching up over the next wake-ups (a server reading a burst one request after another
/// would count it in one second). And the window, which counts the moments libcurl really started each request
/// (CURLOPT_PREREQFUNCTION), refuses whatever would put more than `maximumPerSecond` (never more than the
/// rate) into any one-second window, however late or bunched the sends were. BENCHMARKS.md has the numbers.
public struct Throttle: Hashable, Sendable {
    /// The configured rate, requests per second; 0 = unlimited.
    public let ratePerSecond: Int
    /// The most sends in any closed one-second window (`nil` when unlimited): `min(rate, pacedRate + slack)`.
    public var maximumPerSecond: Int? { window?.limit }
    private var bucket: TokenBucket
    private var spacing: TokenBucket
    private var window: SendWindow?

    /// A throttle at `ratePerSecond` with the default burst and slack; at `now` its bucket holds `slack`
    /// tokens (a new connection does not open with a burst).
    public init(ratePerSecond rate: Int, now: UInt64) {
        self.init(ratePerSecond: rate, burst: Self.burst(ratePerSecond: rate), now: now)
    }

    /// A throttle whose bucket holds up to `burst` tokens.
    public init(ratePerSecond rate: Int, burst: Int, now: UInt64) {
        ratePerSecond = rate
        let paced = Self.pacedRate(ratePerSecond: rate)
        bucket = TokenBucket(
            ratePerSecond: paced, capacity: burst, tokens: min(burst, Self.slack(ratePerSecond: rate)), now: now)
        spacing = TokenBucket(ratePerSecond: 2 * paced, capacity: Self.step(ratePerSecond: rate), now: now)
        // Never above the rate itself: at low rates the slack would be a whole extra request per second.
        window = rate == 0 ? nil : SendWindow(limit: min(rate, paced + Self.slack(ratePerSecond: rate)))
    }

    /// The rate the pacing bucket refills at: `rate − floor(rate / 50)`, 1470 for 1500.
    public static func pacedRate(ratePerSecond rate: Int) -> Int {
        rate - rate / 50
    }

    /// What a second may hold above the rate: `min(max(2, ceil(rate × 0.002)), max(1, ceil(rate × 0.01)))`,
    /// 3 at 1500/s. Above 0 so steady pacing never waits on the window; small, so a server that counts a
    /// sliding second on arrival (requests shifted by a few ms of scheduling) stays within rate × 1.01.
    public static func slack(ratePerSecond rate: Int) -> Int {
        rate == 0 ? 0 : min(max(2, (rate + 499) / 500), max(1, (rate + 99) / 100))
    }

    /// The pacing bucket's size: `max(slack, ceil(pacedRate × 0.025))`, 25 ms of requests (37 at 1500/s).
    public static func burst(ratePerSecond rate: Int) -> Int {
        rate == 0 ? 0 : max(slack(ratePerSecond: rate), (pacedRate(ratePerSecond: rate) + 39) / 40)
    }

    /// The most one wake-up of a loop that is catching up sends at once: `max(slack, ceil(pacedRate / 200))`,
    /// 8 at 1500/s. Enough to keep up while every wake-up comes ~5 ms late.
    public static func step(ratePerSecond rate: Int) -> Int {
        rate == 0 ? 0 : max(slack(ratePerSecond: rate), (pacedRate(ratePerSecond: rate) + 199) / 200)
    }

    public var isUnlimited: Bool { window == nil }

    /// Takes a token for one more request at `now` if the bucket has one and the window has room, counting
    /// `unsent` requests admitted earlier and not sent yet as if they went now.
    public mutating func admit(now: UInt64, unsent: Int = 0) -> Bool {
        guard window != nil else { return true }
        guard window!.room(now: now) > unsent,
            bucket.available(now: now) > 0, spacing.available(now: now) > 0
        else { return false }
        _ = bucket.take(now: now)
        _ = spacing.take(now: now)
        return true
    }

    /// Nanoseconds from `now` until `admit` can succeed (0 if it can now), with nothing unsent.
    public mutating func wait(now: UInt64) -> UInt64 {
        guard window != nil else { return 0 }
        return max(bucket.nextAvailable(now: now), spacing.nextAvailable(now: now), window!.nextRoom(now: now))
    }

    /// A request went on the wire at `time` (throttled connections: from CURLOPT_PREREQFUNCTION).
    public mutating func recordSend(at time: UInt64) {
        window?.record(time)
    }
}
