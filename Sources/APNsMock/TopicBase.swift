import APNs

/// The bundle id a topic stands for: the topic without the push-type suffix APNS.md lists (`.voip`,
/// `.push-type.liveactivity`, …), the way APNs matches a topic to a team's apps or a certificate's bundle id.
enum TopicBase {
    /// Every push type's topic suffix, longest first so `.voip-ptt` is not read as `.voip`'s.
    static let suffixes: [String] = PushType.all.compactMap(\.topicSuffix).sorted { $0.utf8.count > $1.utf8.count }

    /// `topic` with a known push-type suffix removed (at most one).
    static func bundleID(of topic: String) -> String {
        for suffix in suffixes where topic.hasSuffix(suffix) && topic.utf8.count > suffix.utf8.count {
            return String(topic.dropLast(suffix.count))
        }
        return topic
    }
}
