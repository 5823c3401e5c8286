import Foundation
import Threads

/// When to try a failed delivery again: exponential backoff with full jitter, a cap, and an attempt limit.
public struct RetryPolicy: Sendable, Hashable {
    /// The first backoff's upper bound.
    public var base: Duration
    /// No backoff is longer than this.
    public var cap: Duration
    /// Attempts in all (the first send included) before a delivery fails.
    public var maxAttempts: Int
    /// A delivery without apns-expiration is given up (`failed`, reason `Expired`) this long after it was
    /// created, however few attempts it spent: an outage never releases a promotion days late.
    public var maxAge: Duration

    public init(base: Duration = .seconds(1), cap: Duration = .seconds(300), maxAttempts: Int = 8,
                maxAge: Duration = .seconds(86_400)) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
        self.maxAge = maxAge
    }

    /// The delay before the next try after `attempts` sends: random(0, min(cap, base · 2^(attempts−1))).
    /// `unit` is a random number in [0, 1).
    public func delay(afterAttempts attempts: Int, unit: Double) -> Duration {
        let exponent = min(max(attempts - 1, 0), 40)
        let ceiling = min(cap.seconds, base.seconds * pow(2, Double(exponent)))
        return .nanoseconds(Int64(ceiling * min(max(unit, 0), 1) * 1e9))
    }

    /// Whether another try is allowed after `attempts` sends.
    public func allowsRetry(afterAttempts attempts: Int) -> Bool { attempts < maxAttempts }
}
