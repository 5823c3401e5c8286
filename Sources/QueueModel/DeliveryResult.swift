import APNs
import Foundation

/// What happened to one claimed delivery; `DeliveryStore.record` writes a batch of them in one transaction.
public struct DeliveryResult: Hashable, Sendable {
    /// The new state of the delivery.
    public enum Disposition: Hashable, Sendable {
        case accepted
        case rejected
        case unregistered
        case failed
        case cancelled
        /// Still pending: claimable again at this time.
        case retry(at: Date)

        public var status: DeliveryStatus {
            switch self {
            case .accepted: return .accepted
            case .rejected: return .rejected
            case .unregistered: return .unregistered
            case .failed: return .failed
            case .cancelled: return .cancelled
            case .retry: return .pending
            }
        }
    }

    /// Deactivate the delivery's device (its token for the campaign's topic).
    public struct Deactivation: Hashable, Sendable {
        public var reason: Reason
        /// The 410 `timestamp` (ms since 1970): a device (re-)registered at or after it stays active.
        /// nil (400 BadDeviceToken, DeviceTokenNotForTopic, or a 410 without timestamp): always deactivate.
        public var unregisteredAt: Int64?

        public init(reason: Reason, unregisteredAt: Int64? = nil) {
            self.reason = reason
            self.unregisteredAt = unregisteredAt
        }
    }

    public var deliveryID: DeliveryID
    /// The delivery's campaign, whose counters move.
    public var campaignID: CampaignID
    /// The delivery's device token, deactivated for `topic` by a `deactivation`; nil for a broadcast.
    public var token: DeviceToken?
    /// The campaign's bundle id: the registry's topic of the device.
    public var topic: String
    public var disposition: Disposition
    public var httpStatus: Int?
    public var reason: Reason?
    /// The `apns-id` APNs answered with.
    public var apnsID: String?
    public var deactivation: Deactivation?
    /// Whether a request was actually sent (false e.g. when the worker drops an expired notification unsent).
    public var countsAsAttempt: Bool
    /// A retry of a delivery held unsent (its credential paused or missing): it stays due since it first was
    /// (`deliveries.due_at` is kept), whatever `retry(at:)` says.
    public var held = false

    /// The outcome of `job`: it carries what recording needs (delivery, campaign, token, topic), so a store
    /// writes it without remembering what it handed out.
    public init(
        _ job: DeliveryJob, disposition: Disposition, httpStatus: Int? = nil, reason: Reason? = nil,
        apnsID: String? = nil, deactivation: Deactivation? = nil, countsAsAttempt: Bool = true
    ) {
        self.deliveryID = job.id
        self.campaignID = job.campaignID
        self.token = job.token
        self.topic = job.content.bundleID
        self.disposition = disposition
        self.httpStatus = httpStatus
        self.reason = reason
        self.apnsID = apnsID
        self.deactivation = deactivation
        self.countsAsAttempt = countsAsAttempt
    }

    /// 200 from APNs.
    public static func accepted(_ job: DeliveryJob, apnsID: String?) -> DeliveryResult {
        DeliveryResult(job, disposition: .accepted, httpStatus: 200, apnsID: apnsID)
    }

    /// Try again at `date` (429, 5xx, transport errors, ExpiredProviderToken …).
    public static func retry(
        _ job: DeliveryJob, at date: Date, httpStatus: Int? = nil, reason: Reason? = nil,
        apnsID: String? = nil
    ) -> DeliveryResult {
        DeliveryResult(job, disposition: .retry(at: date), httpStatus: httpStatus, reason: reason, apnsID: apnsID)
    }

    /// 410 Unregistered / ExpiredToken: the delivery is `unregistered` and the device deactivated unless it
    /// registered again at or after `timestamp`.
    public static func unregistered(_ job: DeliveryJob, reason: Reason, timestamp: Int64?, apnsID: String? = nil)
        -> DeliveryResult
    {
        DeliveryResult(
            job, disposition: .unregistered, httpStatus: 410, reason: reason, apnsID: apnsID,
            deactivation: Deactivation(reason: reason, unregisteredAt: timestamp))
    }

    /// 400 BadDeviceToken / DeviceTokenNotForTopic: the delivery is `rejected` and the device deactivated.
    public static func badToken(_ job: DeliveryJob, httpStatus: Int = 400, reason: Reason, apnsID: String? = nil)
        -> DeliveryResult
    {
        DeliveryResult(
            job, disposition: .rejected, httpStatus: httpStatus, reason: reason, apnsID: apnsID,
            deactivation: Deactivation(reason: reason))
    }
}
