import QueueModel

extension StoreError {
    /// A fault of one enqueue request (refused alone), not of the database (which fails the whole group).
    package var isRequestFault: Bool {
        switch self {
        case .invalidCampaign, .idempotencyConflict, .unknownCampaign: true
        default: false
        }
    }
}
