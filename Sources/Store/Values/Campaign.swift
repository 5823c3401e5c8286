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
}
