import APNs
import Foundation
import QueueModel

extension NotificationInput {
    /// The validated content of a broadcast on `channel` (docs/APNS.md): a Live Activity update or end (a broadcast
    /// never starts one) of the channel's app, payload up to 5120 bytes, priority 10, 5 or 1, no collapse id. The
    /// topic defaults to the channel's and must be its app; the environment is the channel's. A channel that stores
    /// no message takes expiration 0, which is what is sent when none is given.
    public func validateBroadcast(channel: Channel, now: Date = Date()) throws(Failure) -> NotificationContent {
        if let topic, PushType.bundleID(ofTopic: topic) != channel.topic {
            throw Failure(
                field: .topic,
                message:
                    "channel \(channel.id) belongs to \(channel.topic), not \(Printable.escaped(String(topic.prefix(120))))"
            )
        }
        if let pushType, (try? PushType.parse(pushType)) != .liveactivity {
            throw Failure(
                field: .pushType,
                message:
                    "a broadcast is a Live Activity update or end: push type liveactivity, not \(Printable.escaped(String(pushType.prefix(40))))"
            )
        }
        if collapseID != nil {
            throw Failure(
                field: .collapseId, message: "a broadcast takes no collapse id (APNs reads none on a channel)")
        }
        if let environment, (try? Environment.parse(environment)) != channel.environment {
            throw Failure(
                field: .environment,
                message: "channel \(channel.id) belongs to \(channel.environment): leave out the environment")
        }
        let priority = try check(.priority) { () throws(APNsError) in
            try self.priority.map(Priority.init(validating:)) ?? .immediate
        }
        var expiration = try check(.expiration) { () throws(APNsError) in
            try self.expiration.map(Expiration.init(secondsSince1970:))
        }
        if channel.storage == .none {
            if let given = expiration, given.secondsSince1970 != 0 {
                throw Failure(
                    field: .expiration,
                    message:
                        "channel \(channel.id) stores no message (storage none): the expiration must be 0 (or left out)"
                )
            }
            expiration = .immediately
        }
        let apnsID = try check(.apnsId) { () throws(APNsError) in
            try self.apnsID.map { (text: String) throws(APNsError) in try NotificationID(text) }
        }
        guard let bytes = payload else {
            throw Failure(field: .payload, message: "payload is required (a JSON object with \"aps\")")
        }
        let payload = try check(.payload) { () throws(APNsError) in
            let payload = try Payload(bytes: bytes, pushType: .liveactivity, limit: PushType.broadcastPayloadLimit)
            // Said first: a start's own rules (alert, attributes) would otherwise hide that no start can be broadcast.
            if Self.event(of: payload) == "start" {
                throw APNsError.invalidLiveActivity(
                    "a broadcast updates or ends Live Activities (aps.event update or end); start one with push-to-start tokens"
                )
            }
            try LiveActivityPayload(payload: payload).checkTimestamp(now: Int64(now.timeIntervalSince1970))
            return payload
        }
        return NotificationContent(
            trusted: channel.topic, pushType: .liveactivity, priority: priority, expiration: expiration,
            collapseID: nil, apnsID: apnsID, payload: payload)
    }

    /// `aps.event` of a payload already checked to be a JSON object, when it is a string.
    private static func event(of payload: Payload) -> String? {
        guard let tree = try? JSONReader.read(payload.bytes),
            let aps = tree.member(of: tree.root, named: "aps")?.value,
            tree[aps].kind == .object, let event = tree.member(of: aps, named: "event")?.value,
            tree[event].kind == .string
        else {
            return nil
        }
        return tree.string(event)
    }
}
