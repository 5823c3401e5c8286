import QueueModel

/// What one worker run did, for the closing summary and metrics.
public struct WorkerSummary: Sendable, Hashable {
    public var sent = 0
    public var accepted = 0
    public var unregistered = 0
    public var rejected = 0
    public var failed = 0
    /// Sends that will be tried again later.
    public var retried = 0
    /// Deliveries whose apns-expiration passed before they could be sent.
    public var expired = 0
    /// Deliveries not sent because their campaign was cancelled while the worker held them.
    public var cancelled = 0
    /// Provider tokens minted again because APNs said ExpiredProviderToken.
    public var tokenRefreshes = 0
    public var seconds: Double = 0
    /// `--until-idle`: other workers that heartbeat and hold leases, left to send them (as last seen).
    public var heldElsewhere: [WorkerRecord] = []

    public init() {}

    mutating func count(_ result: DeliveryResult) {
        switch result.disposition {
        case .accepted: accepted += 1
        case .unregistered: unregistered += 1
        case .rejected: rejected += 1
        case .failed: if result.countsAsAttempt { failed += 1 } else { expired += 1 }
        case .retry: retried += 1
        case .cancelled: break
        }
    }
}
