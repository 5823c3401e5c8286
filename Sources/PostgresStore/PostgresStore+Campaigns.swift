import APNs
import Foundation
import QueueModel

extension PostgresStore {
    public func createCampaign(_ spec: CampaignSpec, now: Date) throws(StoreError) -> CampaignID {
        throw unfinished()
    }

    public func enqueueSingle(_ spec: CampaignSpec, now: Date) throws(StoreError) -> CampaignID {
        throw unfinished()
    }

    public func enqueue(_ requests: [EnqueueRequest], now: Date) throws(StoreError) -> [Result<Enqueued, StoreError>] {
        throw unfinished()
    }

    public func idempotentResult(_ key: IdempotencyKey, now: Date) throws(StoreError) -> Enqueued? {
        throw unfinished()
    }

    public func sealCampaign(_ id: CampaignID, remembering key: IdempotencyKey, now: Date) throws(StoreError) -> Enqueued {
        throw unfinished()
    }

    public func beginCampaign(_ spec: CampaignSpec, now: Date) throws(StoreError) -> CampaignID {
        throw unfinished()
    }

    public func appendTokens(_ tokens: [DeviceToken], to id: CampaignID) throws(StoreError) {
        throw unfinished()
    }

    public func sealCampaign(_ id: CampaignID) throws(StoreError) -> Campaign {
        throw unfinished()
    }

    public func campaign(_ id: CampaignID) throws(StoreError) -> Campaign {
        throw unfinished()
    }

    public func campaigns(kind: CampaignKind?, status: CampaignStatus?, before: CampaignID?, limit: Int) throws(StoreError) -> [Campaign] {
        throw unfinished()
    }

    public func requeue(_ id: CampaignID, status: DeliveryStatus, now: Date) throws(StoreError) -> Int {
        throw unfinished()
    }

    public func pauseCampaign(_ id: CampaignID, now: Date) throws(StoreError) -> (campaign: Campaign, parked: Int) {
        throw unfinished()
    }

    public func resumeCampaign(_ id: CampaignID, now: Date) throws(StoreError) -> (campaign: Campaign, resumed: Int) {
        throw unfinished()
    }

    public func pausedCampaigns() throws(StoreError) -> Set<CampaignID> {
        throw unfinished()
    }
}
