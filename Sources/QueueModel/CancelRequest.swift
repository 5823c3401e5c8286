/// A `campaign cancel` in progress: every live worker stops sending the campaign and acknowledges the
/// request before the cancel is committed. `seq` orders requests; a worker remembers the last one it saw.
public struct CancelRequest: Hashable, Sendable {
    public var seq: Int64
    public var campaign: CampaignID

    public init(seq: Int64, campaign: CampaignID) {
        self.seq = seq
        self.campaign = campaign
    }
}
