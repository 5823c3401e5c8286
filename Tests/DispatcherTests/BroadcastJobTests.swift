import APNs
import Foundation
import HTTP2Transport
import QueueModel
import Testing

@testable import Dispatcher

/// A broadcast job's request (path, headers) and the decisions that differ from a device's, without I/O.
struct BroadcastJobTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = RetryPolicy(base: .seconds(1), cap: .seconds(60), maxAttempts: 3)
    static let channelID = "dGVzdCBjaGFubmVsIGlk"

    static func job(expiration: Int64?, apnsID: String? = nil, broadcast: Bool = true) -> DeliveryJob {
        let content = NotificationContent(
            trusted: "com.example.scores", pushType: .liveactivity, priority: .low,
            expiration: expiration.map { try! Expiration(secondsSince1970: $0) }, collapseID: nil,
            apnsID: apnsID.map { try! NotificationID($0) },
            payload: Payload(trusted: Array(#"{"aps":{"event":"end","timestamp":1,"content-state":{}}}"#.utf8)))
        let target: DeliveryTarget =
            broadcast
            ? .channel(id: 3, channelID: channelID) : .device(try! DeviceToken(String(repeating: "ab", count: 32)))
        return DeliveryJob(
            id: DeliveryID(7), campaignID: CampaignID(1), kind: .single, target: target, environment: .production,
            content: content, attempts: 0, deviceRegisteredAt: nil, leasedUntil: now)
    }

    @Test func aBroadcastGoesToItsAppsBroadcastPathWithTheChannelsHeaders() {
        let request = APNsRequest(
            job: Self.job(expiration: 0, apnsID: "0f8b6a52-4c1e-4d1a-9b7e-2a3c4d5e6f70"), authorization: "bearer x")
        #expect(request.path == "/4/broadcasts/apps/com.example.scores")
        #expect(
            request.fields.map(\.name) == [
                "authorization", "apns-channel-id", "apns-push-type", "apns-priority", "apns-expiration",
                "apns-request-id",
            ])
        let values = Dictionary(request.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(values["apns-channel-id"] == Self.channelID && values["apns-push-type"] == "LiveActivity")
        #expect(values["apns-priority"] == "1" && values["apns-expiration"] == "0")
        #expect(values["apns-request-id"] == "0f8b6a52-4c1e-4d1a-9b7e-2a3c4d5e6f70")
        #expect(request.isExpedited && request.body.count > 0)
        // No topic: the bundle id is in the path. Without a chosen id, none is sent.
        #expect(
            !APNsRequest(job: Self.job(expiration: nil), authorization: nil).headers.contains {
                $0.name == "apns-topic" || $0.name == "apns-request-id"
            })
    }

    @Test func aBusyAnswerToABroadcastWithExpirationZeroIsRetriedUnlikeADevicePush() {
        let busy = TransportResult.response(
            status: 429, apnsID: nil, body: ErrorResponse(status: 429, reason: .tooManyRequests))
        let broadcast = DeliveryDecision.decide(
            job: Self.job(expiration: 0), answer: busy, credential: "default", now: Self.now, policy: Self.policy,
            unit: 0.5)
        #expect(
            broadcast.result?.disposition.status == .pending, "a no-storage channel's 0 is not a request to try once")
        let device = DeliveryDecision.decide(
            job: Self.job(expiration: 0, broadcast: false), answer: busy, credential: "default", now: Self.now,
            policy: Self.policy, unit: 0.5)
        #expect(device.result?.disposition.status == .failed, "apns-expiration 0 on a device push: try once")
    }

    @Test(arguments: [
        "ChannelNotRegistered", "BadChannelId", "FeatureNotEnabled", "BadExpirationDate", "MissingPushType",
    ])
    func aChannelReasonIsRecordedAndNotRetried(reason: String) {
        let answer = TransportResult.response(
            status: 400, apnsID: nil, body: ErrorResponse(status: 400, reason: Reason(rawValue: reason)))
        let decision = DeliveryDecision.decide(
            job: Self.job(expiration: nil), answer: answer, credential: "default", now: Self.now, policy: Self.policy,
            unit: 0.5)
        #expect(decision.result?.disposition.status == .rejected && decision.result?.reason?.rawValue == reason)
        #expect(decision.result?.deactivation == nil && decision.result?.token == nil && decision.stop == nil)
    }
}
