import Foundation
import Logging
import QueueModel

extension Channel {
    /// A broadcast channel as `apnsd channel list --json` / `show --json` and `/v1/channels` show it.
    public var json: JSONLine {
        JSONLine([
            "id": .string(String(id)), "channelId": .string(channelID), "topic": .string(topic),
            "environment": .string(environment.rawValue),
            "storage": .string(storage.rawValue), "messageStoragePolicy": .int(storage.messageStoragePolicy),
            "credential": .string(credential), "createdAt": .date(createdAt), "deletedAt": .date(deletedAt),
        ])
    }
}
