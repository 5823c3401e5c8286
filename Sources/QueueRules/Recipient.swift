import APNs
import QueueModel

/// What expansion gives a token of a `.tokens` audience (or a single send): a token registered for the
/// campaign's topic goes to its device's environment, and is `cancelled` with `DeviceInactive` when that device
/// is inactive; a token not registered goes to the audience's environment (production unless given). A claim
/// skips a delivery whose device became inactive since, the same way (`skipped`).
package struct Recipient: Hashable, Sendable {
    /// A registered device as the rule reads it.
    package struct Registered: Hashable, Sendable {
        package var environment: Environment
        package var active: Bool

        package init(environment: Environment, active: Bool) {
            self.environment = environment
            self.active = active
        }
    }

    /// The status and reason of a delivery whose device is inactive: not sent.
    package static let skipped = (status: DeliveryStatus.cancelled, reason: Reason.deviceInactive)

    package var environment: Environment
    package var status: DeliveryStatus
    package var reason: Reason?

    /// The delivery of a token registered as `device` (nil: not registered), in an audience of `given` environment.
    package init(registered device: Registered?, given: Environment?) {
        environment = device?.environment ?? Self.unregisteredEnvironment(given)
        let inactive = device.map { !$0.active } ?? false
        status = inactive ? Self.skipped.status : .pending
        reason = inactive ? Self.skipped.reason : nil
    }

    /// How a campaign's counters move when a claim skips `count` of its pending deliveries.
    package static func skippedCounts(_ count: Int) -> CampaignCounters {
        var counters = CampaignCounters()
        counters[.pending] -= count
        counters[skipped.status] += count
        return counters
    }

    /// The environment of a token that is not registered, in an audience of `given` environment.
    package static func unregisteredEnvironment(_ given: Environment?) -> Environment { given ?? .production }

    /// The rule in SQL, for an INSERT … SELECT over devices LEFT JOINed to the tokens: `inactive`, a condition
    /// true only when a device was found and is inactive.
    package static func statusSQL(inactive: String) -> String {
        "CASE WHEN \(inactive) THEN '\(skipped.status.rawValue)' ELSE '\(DeliveryStatus.pending.rawValue)' END"
    }

    /// The reason column of `statusSQL`'s row: `DeviceInactive` when skipped, NULL otherwise.
    package static func reasonSQL(inactive: String) -> String {
        "CASE WHEN \(inactive) THEN '\(skipped.reason.rawValue)' END"
    }
}
