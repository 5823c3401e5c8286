import Foundation

/// What happened in a time window (`apnsd stats`, `GET /v1/stats`): outcomes by status and reason, APNs requests,
/// deactivations, and the queue now. Read from per-minute counters and indexes, never by scanning the log.
public struct OutcomeStats: Sendable, Hashable {
    public var since: Date
    public var until: Date
    /// Outcomes written in the window: status (`retry` for an answer to be tried again) → reason (`none`) → count.
    public var outcomes: [String: [String: Int]]
    /// Requests APNs answered (or that timed out after being written) in the window.
    public var requests: Int
    /// Deliveries accepted in the window.
    public var accepted: Int
    /// Devices deactivated in the window, by reason.
    public var deactivations: [String: Int]
    /// The queue now.
    public var queue: QueueGauges
    /// With a campaign: the campaign, whose deliveries alone are counted.
    public var campaign: Campaign?

    public init(
        since: Date, until: Date, outcomes: [String: [String: Int]], requests: Int, accepted: Int,
        deactivations: [String: Int], queue: QueueGauges, campaign: Campaign? = nil
    ) {
        self.since = since
        self.until = until
        self.outcomes = outcomes
        self.requests = requests
        self.accepted = accepted
        self.deactivations = deactivations
        self.queue = queue
        self.campaign = campaign
    }

    public var seconds: Double { max(1, until.timeIntervalSince(since)) }
}
