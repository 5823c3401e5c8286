import APNs
import ProviderAuth

/// One team the simulator accepts provider tokens from: its signing key, the key id and team id tokens must name,
/// and the topics (bundle ids) it may push to.
public struct MockTeam: Sendable {
    /// The key whose public half must have signed the token.
    public let key: SigningKey
    /// The kid and iss a token must name.
    public let credential: ProviderCredential
    /// The bundle ids this team may push to (a topic counts by its bundle id, push-type suffix removed); empty
    /// accepts any topic.
    public let topics: Set<String>

    /// A team whose tokens are signed by `key` under `credential`, allowed `topics` (empty: any).
    public init(key: SigningKey, credential: ProviderCredential, topics: Set<String> = []) {
        self.key = key
        self.credential = credential
        self.topics = topics
    }

    /// Whether this team may push to `topic` (as sent in apns-topic).
    public func allows(topic: String) -> Bool {
        topics.isEmpty || topics.contains(String(PushType.bundleID(ofTopic: topic)))
    }
}
