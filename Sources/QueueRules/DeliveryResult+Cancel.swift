import QueueModel

extension DeliveryResult {
    /// What to record of this answer when its campaign is being cancelled: an answer to be tried again ends
    /// `cancelled` (`CampaignCancelled`), its HTTP status and apns-id kept, since nothing more of the campaign is
    /// sent; a final answer stands (it replaces `cancelled` when recorded: `DeliveryStatus.accepts`).
    package var whenCampaignCancelled: DeliveryResult {
        guard case .retry = disposition else { return self }
        var result = self
        result.disposition = .cancelled
        result.reason = CampaignCancel.stopped.reason
        result.deactivation = nil
        return result
    }
}
