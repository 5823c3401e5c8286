import APNs
import Foundation
import QueueModel

/// Hand-built jobs for the rules' tests: delivery `id` of `campaign`, to token `token` or to a channel.
enum Jobs {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func job(_ id: Int64, campaign: Int64 = 1, token: Int? = 1) -> DeliveryJob {
        let content = try! NotificationContent(bundleID: "com.example", payload: Payload(json: #"{"aps":{}}"#))
        let target: DeliveryTarget =
            token.map { .device(try! DeviceToken(String(format: "%064x", $0))) } ?? .channel(id: 3, channelID: "c")
        return DeliveryJob(
            id: DeliveryID(id), campaignID: CampaignID(campaign), kind: .bulk, target: target,
            environment: .production, content: content, attempts: 0, deviceRegisteredAt: nil, leasedUntil: now)
    }
}
