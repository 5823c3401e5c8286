import APNs
import QueueModel

/// What a dry run counts, the same on both engines: the deliveries expansion would make now and send (a skipped
/// token, `Recipient.skipped`, is not counted), each device or token once.
package enum AudienceTally {
    /// Users or tokens per count query, as bound parameters.
    package static let chunk = 500

    /// Who a users audience names, each once (an activity audience without users is `nil`: every device).
    package static func users(_ audience: Audience) -> [String]? {
        switch audience {
        case .users(let users, _): Array(Set(users)).sorted()
        case .activities(_, _, let users, _): users.map { Array(Set($0)).sorted() }
        default: nil
        }
    }

    /// A tokens audience's count: `registered` holds the tokens found for the campaign's topic (hex → device).
    package static func tokens(_ tokens: [DeviceToken], registered: [String: Recipient.Registered], given: Environment?)
        -> AudienceCount
    {
        var count = AudienceCount()
        var seen = Set<String>()
        for token in tokens where seen.insert(token.hex).inserted {
            let recipient = Recipient(registered: registered[token.hex], given: given)
            if recipient.status == .pending { count.add(1, in: recipient.environment) }
        }
        return count
    }
}
