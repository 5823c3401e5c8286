/// How a retry's delay is drawn below its exponential ceiling `min(cap, base · 2^(attempts−1))`
/// (`retry.jitter`; "Exponential Backoff and Jitter", AWS Architecture Blog, 2015).
public struct Jitter: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// `full`: anywhere from 0 to the ceiling. Spreads retries the most; the default.
    public static let full = Jitter(rawValue: "full")
    /// `equal`: half the ceiling, plus up to the other half. Never retries sooner than half the ceiling.
    public static let equal = Jitter(rawValue: "equal")
    /// `decorrelated`: from `base` to three times the previous delay, at most `cap`; grows ×3 without a
    /// fixed schedule, so deliveries that failed together drift apart.
    public static let decorrelated = Jitter(rawValue: "decorrelated")

    /// Every choice, in the order help and errors list them.
    public static let all: [Jitter] = [.full, .equal, .decorrelated]

    /// The choice named `name`, or nil.
    public init?(_ name: String) {
        guard let known = Self.all.first(where: { $0.rawValue == name }) else { return nil }
        self = known
    }

    private init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}
