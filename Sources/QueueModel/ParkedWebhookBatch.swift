import Foundation

/// A batch the webhook's receiver kept refusing, set aside so that later events go on (`webhook.maxAttempts`
/// refusals and an hour of failing): its events (`first`…`last`, still in `events` until retention prunes them),
/// what its failure was when it was parked, and what `apnsd webhook retry` met since.
public struct ParkedWebhookBatch: Hashable, Sendable, Identifiable {
    public var id: Int64
    public var first: EventID
    public var last: EventID
    /// How many events it held when it was parked.
    public var events: Int
    /// Refused attempts, those of `apnsd webhook retry` included.
    public var attempts: Int
    public var firstFailureAt: Date
    public var parkedAt: Date
    public var lastError: String

    public init(
        id: Int64, first: EventID, last: EventID, events: Int, attempts: Int, firstFailureAt: Date, parkedAt: Date,
        lastError: String
    ) {
        self.id = id
        self.first = first
        self.last = last
        self.events = events
        self.attempts = attempts
        self.firstFailureAt = firstFailureAt
        self.parkedAt = parkedAt
        self.lastError = lastError
    }
}
