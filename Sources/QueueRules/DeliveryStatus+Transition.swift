import QueueModel

extension DeliveryStatus {
    /// Whether a result with `disposition` is written over a delivery in this status. Anything replaces
    /// `pending`; a final answer from APNs replaces `cancelled` (the request was in flight when the campaign was
    /// cancelled, and the log must say what APNs did with it); nothing else replaces a final status (a duplicate
    /// after a lease expired).
    package func accepts(_ disposition: DeliveryResult.Disposition) -> Bool {
        switch (self, disposition) {
        case (.pending, _), (.cancelled, .accepted), (.cancelled, .rejected), (.cancelled, .unregistered),
            (.cancelled, .failed):
            return true
        default:
            return false
        }
    }
}
