/// Where a campaign is in its life.
public enum CampaignStatus: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Created with `beginCampaign`; tokens are still being appended. Never expanded or sent until sealed.
    case draft
    /// Waiting for its `scheduledAt`, or due but not yet picked up by the worker.
    case scheduled
    /// Being expanded and/or sent.
    case running
    /// Audience fully expanded and no delivery pending.
    case completed
    /// Cancelled by an operator; its pending deliveries were cancelled.
    case cancelled

    public var isFinished: Bool { self == .completed || self == .cancelled }
    public var description: String { rawValue }
}
