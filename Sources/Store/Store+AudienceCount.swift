import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// How many deliveries `spec`'s audience would make now, by environment (a dry run): read only, as expansion
    /// would select them (`AudienceTally`).
    public func audienceCount(_ spec: CampaignSpec) throws(StoreError) -> AudienceCount {
        let topic = spec.content.bundleID
        let environment = spec.audience.environment
        let activity = spec.audience.activity
        return try read { db in
            var count = AudienceCount()
            switch spec.audience {
            case .channel:
                break  // a broadcast, not a campaign: no devices to count
            case .tokens(let tokens, _):
                var registered: [String: Recipient.Registered] = [:]
                let hexes = Array(Set(tokens.map(\.hex)))
                for start in stride(from: 0, to: hexes.count, by: AudienceTally.chunk) {
                    let part = hexes[start..<min(start + AudienceTally.chunk, hexes.count)]
                    let statement = try db.prepare(
                        "SELECT token, environment, active FROM devices WHERE topic = ?1 AND token IN ("
                            + part.indices.map { "?\($0 - start + 2)" }.joined(separator: ",") + ")")
                    try statement.bindAt(1, topic)
                    for (offset, hex) in part.enumerated() { try statement.bindAt(Int32(offset + 2), hex) }
                    while try statement.step() {
                        registered[statement.string(0)] = Recipient.Registered(
                            environment: try Decode.environment(statement.string(1)), active: statement.int64(2) != 0)
                    }
                }
                count = AudienceTally.tokens(tokens, registered: registered, given: environment)
            case .all, .users, .activities:
                let users = AudienceTally.users(spec.audience)
                let kind = activity != nil ? "kind = ?3 AND activity_type = ?4" : "kind = 'device'"
                let firstUser = activity != nil ? 5 : 3
                let chunks: [ArraySlice<String>?] =
                    users.map { users in
                        stride(from: 0, to: users.count, by: AudienceTally.chunk).map {
                            users[$0..<min($0 + AudienceTally.chunk, users.count)]
                        }
                    } ?? [nil]
                for part in chunks {
                    let byUser = part.map { part in
                        " AND user_id IN ("
                            + part.indices.map { "?\($0 - part.startIndex + firstUser)" }.joined(separator: ",")
                            + ")"
                    }
                    let statement = try db.prepare(
                        """
                        SELECT environment, COUNT(*) FROM devices
                        WHERE topic = ?1 AND active = 1 AND (?2 IS NULL OR environment = ?2) AND \(kind)\(byUser ?? "")
                        GROUP BY environment
                        """)
                    try statement.bindAt(1, topic)
                    try statement.bindAt(2, environment?.rawValue)
                    if let activity {
                        try statement.bindAt(3, activity.kind.rawValue)
                        try statement.bindAt(4, activity.type)
                    }
                    for (offset, user) in (part ?? []).enumerated() {
                        try statement.bindAt(Int32(offset + firstUser), user)
                    }
                    while try statement.step() {
                        count.add(statement.int(1), in: try Decode.environment(statement.string(0)))
                    }
                }
            }
            return count
        }
    }
}
