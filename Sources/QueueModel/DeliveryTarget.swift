import APNs

/// Where a delivery goes: a device token (`POST /3/device/<token>`) or a broadcast channel
/// (`POST /4/broadcasts/apps/<bundle id>` with `apns-channel-id`).
public enum DeliveryTarget: Hashable, Sendable, CustomStringConvertible {
    case device(DeviceToken)
    /// The channel's local number (`channels.id`) and the id APNs gave it.
    case channel(id: Int64, channelID: String)

    /// The device token; nil for a broadcast.
    public var token: DeviceToken? {
        guard case .device(let token) = self else { return nil }
        return token
    }

    /// The channel's local number; nil for a device.
    public var channel: Int64? {
        guard case .channel(let id, _) = self else { return nil }
        return id
    }

    /// The token (shortened, as `DeviceToken` shows it) or `channel N`.
    public var description: String {
        switch self {
        case .device(let token): return token.description
        case .channel(let id, _): return "channel \(id)"
        }
    }
}
