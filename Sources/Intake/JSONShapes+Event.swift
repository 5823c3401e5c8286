import Foundation
import Logging
import QueueModel

extension Event {
    /// An event as the event feed and the webhook give it; ids and cursors are JSON strings. `campaign` and
    /// `delivery` are present when the event came from a delivery.
    public var json: JSONLine {
        var line = JSONLine([
            "id": .string(id.description), "type": .string(type.rawValue), "token": .string(token.hex),
            "topic": .string(topic),
            "environment": .string(environment.rawValue), "user": .string(user), "reason": .string(reason?.rawValue),
            "at": .date(at),
        ])
        if let campaignID { line = line.adding([("campaign", .string(campaignID.description))]) }
        if let deliveryID { line = line.adding([("delivery", .string(deliveryID.description))]) }
        return line
    }

    /// The webhook's body: `{"events":[…]}`.
    public static func webhookBody(_ events: [Event]) -> String {
        "{\"events\":[" + events.map(\.json.description).joined(separator: ",") + "]}"
    }
}

extension EventPage {
    /// The feed's answer: `{"events":[…],"next":"CURSOR"}`.
    public var json: String {
        "{\"events\":[" + events.map(\.json.description).joined(separator: ",") + "],\"next\":"
            + JSONText.quote(next.description) + "}"
    }
}
