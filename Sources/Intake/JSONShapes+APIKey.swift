import Foundation
import Logging
import QueueModel

extension APIKeyRecord {
    /// An API key as `apnsd api-key list --json` and the HTTP API show it: never its secret nor its hash.
    public var json: JSONLine {
        JSONLine([
            "name": .string(name),
            "scopes": .raw("[" + sortedScopes.map { JSONText.quote($0.rawValue) }.joined(separator: ",") + "]"),
            "createdAt": .date(createdAt), "lastUsedAt": .date(lastUsedAt),
        ])
    }
}
