import APNs
import QueueModel

/// Reading stored text back into the protocol's value types; a value that does not parse is `corruptValue`.
package enum Decode {
    package static func token(_ hex: String) throws -> DeviceToken {
        do { return try DeviceToken(hex) } catch { throw StoreError.corruptValue("device token: \(error)") }
    }

    /// A delivery's target: its channel when it names one (`token` then holds the id APNs gave the channel),
    /// otherwise its device token.
    package static func target(token: String, channel: Int64?) throws -> DeliveryTarget {
        if let channel { return .channel(id: channel, channelID: token) }
        return .device(try Self.token(token))
    }

    package static func environment(_ raw: String) throws -> Environment {
        guard let value = Environment(rawValue: raw) else { throw StoreError.corruptValue("environment '\(raw)'") }
        return value
    }

    package static func pushType(_ raw: String) throws -> PushType {
        guard let value = PushType(rawValue: raw) else { throw StoreError.corruptValue("push type '\(raw)'") }
        return value
    }

    package static func priority(_ raw: Int) throws -> Priority {
        guard let value = Priority(rawValue: raw) else { throw StoreError.corruptValue("priority \(raw)") }
        return value
    }

    package static func expiration(_ seconds: Int64?) throws -> Expiration? {
        guard let seconds else { return nil }
        do { return try Expiration(secondsSince1970: seconds) } catch {
            throw StoreError.corruptValue("expiration \(seconds)")
        }
    }

    /// A campaign's content as stored: checked when it was enqueued, so not validated again (a rule tightened
    /// since must not strand a campaign already accepted); only values that cannot be represented are corrupt.
    package static func content(
        bundleID: String, pushType: String, priority: Int, expiration: Int64?, collapseID: String?,
        apnsID: String?, payload: [UInt8]
    ) throws -> NotificationContent {
        NotificationContent(
            trusted: bundleID, pushType: try Self.pushType(pushType), priority: try Self.priority(priority),
            expiration: try Self.expiration(expiration), collapseID: collapseID.map(CollapseID.init(trusted:)),
            apnsID: apnsID.map(NotificationID.init(trusted:)), payload: Payload(trusted: payload))
    }

    package static func deliveryStatus(_ raw: String) throws -> DeliveryStatus {
        guard let value = DeliveryStatus(rawValue: raw) else {
            throw StoreError.corruptValue("delivery status '\(raw)'")
        }
        return value
    }

    package static func campaignStatus(_ raw: String) throws -> CampaignStatus {
        guard let value = CampaignStatus(rawValue: raw) else {
            throw StoreError.corruptValue("campaign status '\(raw)'")
        }
        return value
    }

    package static func campaignKind(_ raw: String) throws -> CampaignKind {
        guard let value = CampaignKind(rawValue: raw) else { throw StoreError.corruptValue("campaign kind '\(raw)'") }
        return value
    }

    package static func audienceKind(_ raw: String) throws -> AudienceKind {
        guard let value = AudienceKind(rawValue: raw) else { throw StoreError.corruptValue("audience '\(raw)'") }
        return value
    }

    package static func deviceKind(_ raw: String) throws -> DeviceKind {
        guard let value = DeviceKind(rawValue: raw) else { throw StoreError.corruptValue("device kind '\(raw)'") }
        return value
    }

    /// An activity audience's selector from its two stored columns (both NULL for other audiences).
    package static func activitySelector(type: String?, kind: String?) throws -> ActivitySelector? {
        guard let type else { return nil }
        return ActivitySelector(type: type, kind: try deviceKind(kind ?? ""))
    }
}
