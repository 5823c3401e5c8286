/// How many deliveries of a campaign are in each status; `total` is their sum.
public struct CampaignCounters: Hashable, Sendable {
    public var total = 0
    public var pending = 0
    public var accepted = 0
    public var rejected = 0
    public var unregistered = 0
    public var failed = 0
    public var cancelled = 0

    public init(
        total: Int = 0, pending: Int = 0, accepted: Int = 0, rejected: Int = 0, unregistered: Int = 0,
        failed: Int = 0, cancelled: Int = 0
    ) {
        self.total = total
        self.pending = pending
        self.accepted = accepted
        self.rejected = rejected
        self.unregistered = unregistered
        self.failed = failed
        self.cancelled = cancelled
    }

    public subscript(status: DeliveryStatus) -> Int {
        get {
            switch status {
            case .pending: return pending
            case .accepted: return accepted
            case .rejected: return rejected
            case .unregistered: return unregistered
            case .failed: return failed
            case .cancelled: return cancelled
            }
        }
        set {
            switch status {
            case .pending: pending = newValue
            case .accepted: accepted = newValue
            case .rejected: rejected = newValue
            case .unregistered: unregistered = newValue
            case .failed: failed = newValue
            case .cancelled: cancelled = newValue
            }
        }
    }
}
