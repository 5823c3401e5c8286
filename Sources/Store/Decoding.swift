import APNs

/// Reading stored text back into the protocol's value types; a value that does not parse is `corruptValue`.
enum Decode {
    static func token(_ hex: String) throws -> DeviceToken {
        do { return try DeviceToken(hex) } catch { throw StoreError.corruptValue("device token: \(error)") }
    }

    static func environment(_ raw: String) throws -> Environment {
        guard let value = Environment(rawValue: raw) else { throw StoreError.corruptValue("environment '\(raw)'") }
        return value
    }

    static func pushType(_ raw: String) throws -> PushType {
        guard let value = PushType(rawValue: raw) else { throw StoreError.corruptValue("push type '\(raw)'") }
        return value
    }

    static func priority(_ raw: Int) throws -> Priority {
        guard let value = Priority(rawValue: raw) else { throw StoreError.corruptValue("priority \(raw)") }
        return value
    }

    static func expiration(_ seconds: Int64?) throws -> Expiration? {
        guard let seconds else { return nil }
        do { return try Expiration(secondsSince1970: seconds) } catch { throw StoreError.corruptValue("expiration \(seconds)") }
    }

    static func collapseID(_ raw: String?) throws -> CollapseID? {
        guard let raw else { return nil }
        do { return try CollapseID(raw) } catch { throw StoreError.corruptValue("collapse id: \(error)") }
    }

    static func deliveryStatus(_ raw: String) throws -> DeliveryStatus {
        guard let value = DeliveryStatus(rawValue: raw) else { throw StoreError.corruptValue("delivery status '\(raw)'") }
        return value
    }

    static func campaignStatus(_ raw: String) throws -> CampaignStatus {
        guard let value = CampaignStatus(rawValue: raw) else { throw StoreError.corruptValue("campaign status '\(raw)'") }
        return value
    }

    static func campaignKind(_ raw: String) throws -> CampaignKind {
        guard let value = CampaignKind(rawValue: raw) else { throw StoreError.corruptValue("campaign kind '\(raw)'") }
        return value
    }

    static func audienceKind(_ raw: String) throws -> AudienceKind {
        guard let value = AudienceKind(rawValue: raw) else { throw StoreError.corruptValue("audience '\(raw)'") }
        return value
    }
}
