import APNs

extension Channel {
    /// Why `content` cannot be broadcast on this channel, or nil: the channel was deleted, belongs to another app, or
    /// stores no message while the content asks APNs to keep it (APNs answers 400 BadExpirationDate to an
    /// `apns-expiration` other than 0 on a no-storage channel). Checked at enqueue by every engine.
    public func broadcastRefusal(for content: NotificationContent) -> String? {
        if isDeleted {
            return "channel \(id) was deleted: broadcast on another (apnsd channel list)"
        }
        if content.pushType != .liveactivity {
            return "a broadcast is a Live Activity update or end: push type liveactivity, not \(content.pushType)"
        }
        if content.bundleID != topic {
            return "channel \(id) belongs to \(topic), not \(content.bundleID)"
        }
        if storage == .none, let expiration = content.expiration, expiration.secondsSince1970 != 0 {
            return
                "channel \(id) stores no message (storage none): the expiration must be 0 (or left out), not \(expiration.secondsSince1970)"
        }
        return nil
    }
}
