/// What a finished cancel did.
public struct CancelReport: Hashable, Sendable {
    /// The campaign as it is now.
    public var campaign: Campaign
    /// Pending deliveries that became `cancelled` (never sent, or sent and not answered yet).
    public var cancelled: Int
    /// Of those, requests already written to APNs when the workers stopped: their true outcome replaces
    /// `cancelled` when it arrives.
    public var inFlight: Int
    /// Live workers that did not acknowledge in time (they are stuck or stopping); 0 normally.
    public var unacknowledged: Int
    /// The campaign had already completed or been cancelled: nothing changed.
    public var wasFinished: Bool

    public init(campaign: Campaign, cancelled: Int, inFlight: Int, unacknowledged: Int, wasFinished: Bool) {
        self.campaign = campaign
        self.cancelled = cancelled
        self.inFlight = inFlight
        self.unacknowledged = unacknowledged
        self.wasFinished = wasFinished
    }
}
