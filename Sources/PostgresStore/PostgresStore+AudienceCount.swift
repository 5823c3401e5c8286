import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
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
                let rows = try db.query(
                    "SELECT token, environment, active FROM devices WHERE topic = $1 AND token = ANY($2::text[])",
                    [.text(topic), .texts(Array(Set(tokens.map(\.hex))))])
                var registered: [String: Recipient.Registered] = [:]
                for row in 0..<rows.count {
                    registered[try rows.string(row, 0)] = Recipient.Registered(
                        environment: try Decode.environment(rows.string(row, 1)), active: try rows.bool(row, 2))
                }
                count = AudienceTally.tokens(tokens, registered: registered, given: environment)
            case .all, .users, .activities:
                let users = AudienceTally.users(spec.audience)
                let rows = try db.query(
                    """
                    SELECT environment, COUNT(*) FROM devices
                    WHERE topic = $1 AND active AND ($2::text IS NULL OR environment = $2::text)
                      AND ($3::text IS NULL AND kind = 'device' OR kind = $3::text AND activity_type = $4::text)
                      AND ($5::text[] IS NULL OR user_id = ANY($5::text[]))
                    GROUP BY environment
                    """,
                    [
                        .text(topic), environment.map { .text($0.rawValue) } ?? .null,
                        activity.map { .text($0.kind.rawValue) } ?? .null, activity.map { .text($0.type) } ?? .null,
                        users.map { .texts($0) } ?? .null,
                    ])
                for row in 0..<rows.count {
                    count.add(try rows.int(row, 1), in: try Decode.environment(rows.string(row, 0)))
                }
            }
            return count
        }
    }
}
