import Foundation

/// The batch the webhook is failing to deliver, as the store keeps it between attempts (and restarts): the events
/// it held at its last attempt (`first`…`last`), how many refusals it got, since when it fails, and the last error.
public struct WebhookFailure: Hashable, Sendable {
    /// The batch's first event: the one after the cursor. A failure recorded for another first event is over.
    public var first: EventID
    /// The batch's last event at its last attempt (a batch grows while later events join it).
    public var last: EventID
    /// How many events the batch held at its last attempt.
    public var events: Int
    /// Attempts the receiver refused (`WebhookParking.counts`); unreachable receivers do not count.
    public var attempts: Int
    /// When the batch's first attempt failed, whatever the failure.
    public var firstFailureAt: Date
    /// The last failure as `webhook status` shows it (`HTTP 400: …`, a transport error).
    public var lastError: String
    /// When it was last written.
    public var updatedAt: Date

    public init(
        first: EventID, last: EventID, events: Int, attempts: Int, firstFailureAt: Date, lastError: String,
        updatedAt: Date
    ) {
        self.first = first
        self.last = last
        self.events = events
        self.attempts = attempts
        self.firstFailureAt = firstFailureAt
        self.lastError = lastError
        self.updatedAt = updatedAt
    }
}
