import APNs
import Foundation

/// A campaign as stored, with its counters (`apnsd campaign show`).
public struct Campaign: Hashable, Sendable, Identifiable {
    public var id: CampaignID
    public var kind: CampaignKind
    public var status: CampaignStatus
    public var audience: AudienceSummary
    /// What it sends (as enqueued).
    public var content: NotificationContent
    public var scheduledAt: Date
    public var createdAt: Date
    /// When the worker first expanded or claimed it.
    public var startedAt: Date?
    /// When it completed or was cancelled.
    public var finishedAt: Date?
    /// Whether every delivery row of the audience exists (expansion done).
    public var isExpanded: Bool
    public var counters: CampaignCounters
    /// Paused (`campaign pause`): nothing of it is sent until it is resumed.
    public var isPaused: Bool

    public init(
        id: CampaignID, kind: CampaignKind, status: CampaignStatus, audience: AudienceSummary,
        content: NotificationContent,
        scheduledAt: Date, createdAt: Date, startedAt: Date?, finishedAt: Date?, isExpanded: Bool,
        counters: CampaignCounters,
        isPaused: Bool = false
    ) {
        self.id = id
        self.kind = kind
        self.status = status
        self.audience = audience
        self.content = content
        self.scheduledAt = scheduledAt
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.isExpanded = isExpanded
        self.counters = counters
        self.isPaused = isPaused
    }
}
