import Foundation
import QueueModel

/// When the webhook sets a failing batch aside so that later events go on: once the receiver refused it
/// `maxAttempts` times and its first failure is at least `minimumAge` old. A refusal is an HTTP answer other than
/// a 2xx, 429, 502, 503 or 504: those, like a receiver that cannot be reached, say it is away or busy, not that it
/// refuses this batch, so they never park anything (the batch waits for it, as before).
public struct WebhookParking: Sendable, Hashable {
    /// `webhook.maxAttempts`: refusals before a batch may be parked.
    public var maxAttempts: Int
    /// How long a batch must have been failing before it may be parked.
    public var minimumAge: Duration

    public static let defaultMaxAttempts = 20
    public static let defaultMinimumAge: Duration = .seconds(3600)

    public init(maxAttempts: Int = defaultMaxAttempts, minimumAge: Duration = defaultMinimumAge) {
        self.maxAttempts = maxAttempts
        self.minimumAge = minimumAge
    }

    /// Whether an attempt answered `status` (nil: no answer) counts as a refusal.
    public static func isRefusal(status: Int?) -> Bool {
        guard let status else { return false }
        return !(200..<300).contains(status) && ![429, 502, 503, 504].contains(status)
    }

    /// The failure after a failed attempt at `now` of the batch `first`…`last` (`events` events), answered `status`
    /// (nil: none) with `error`: `previous`'s count and first failure carried on when it is the same batch (same
    /// first event), a new count otherwise. `last` and `events` are the attempt's: what a parking sets aside.
    public func failed(
        _ previous: WebhookFailure?, first: EventID, last: EventID, events: Int, status: Int?, error: String, now: Date
    ) -> WebhookFailure {
        let same = previous.flatMap { $0.first == first ? $0 : nil }
        return WebhookFailure(
            first: first, last: last, events: events,
            attempts: (same?.attempts ?? 0) + (Self.isRefusal(status: status) ? 1 : 0),
            firstFailureAt: same?.firstFailureAt ?? now, lastError: error, updatedAt: now)
    }

    /// Whether `failure` is parked at `now`.
    public func parks(_ failure: WebhookFailure, now: Date) -> Bool {
        failure.attempts >= maxAttempts
            && now.timeIntervalSince(failure.firstFailureAt) >= minimumAge / .milliseconds(1) / 1000
    }
}
