import Foundation
import Threads

/// When to try a failed delivery again: exponential backoff with jitter (full by default), a cap, and an
/// attempt limit.
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
    /// How each delay is drawn (`retry.jitter`).
    public var jitter: Jitter

    public init(
        base: Duration = .seconds(1), cap: Duration = .seconds(300), maxAttempts: Int = 8,
        maxAge: Duration = .seconds(86_400), jitter: Jitter = .full
    ) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
        self.maxAge = maxAge
        self.jitter = jitter
    }

    /// The delay before the next try after `attempts` sends; `unit` is a random number in [0, 1). With the
    /// ceiling c = min(cap, base · 2^(attempts−1)):
    /// - `full`: random(0, c);
    /// - `equal`: c/2 + random(0, c/2);
    /// - `decorrelated`: random(base, 3 · previous), at most cap, where `previous` is the delay this delivery
    ///   waited before the try that just failed (`DeliveryJob.previousDelay`), base before its first send. When
    ///   it is not known (a job built by hand) it is the longest it could have been, min(cap, base · 3^(attempts−1)).
    public func delay(afterAttempts attempts: Int, unit: Double, previous: Duration? = nil) -> Duration {
        let unit = min(max(unit, 0), 1)
        let seconds: Double
        switch jitter {
        case .equal:
            let ceiling = self.ceiling(afterAttempts: attempts)
            seconds = ceiling / 2 + ceiling / 2 * unit
        case .decorrelated:
            let base = min(self.base.seconds, cap.seconds)
            let last =
                previous.map { max($0.seconds, base) }
                ?? min(cap.seconds, base * pow(3, Double(min(max(attempts - 1, 0), 40))))
            let high = min(cap.seconds, max(base, last * 3))
            seconds = base + (high - base) * unit
        default:
            seconds = self.ceiling(afterAttempts: attempts) * unit
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// min(cap, base · 2^(attempts−1)), in seconds.
    func ceiling(afterAttempts attempts: Int) -> Double {
        let exponent = min(max(attempts - 1, 0), 40)
        return min(cap.seconds, base.seconds * pow(2, Double(exponent)))
    }

    /// Whether another try is allowed after `attempts` sends.
    public func allowsRetry(afterAttempts attempts: Int) -> Bool { attempts < maxAttempts }
}
