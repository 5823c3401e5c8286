/// Which credential sends for which app: each credential's bundle ids, and at most one credential that sends for
/// every other. A topic is looked up by its bundle id (`PushType.bundleID(ofTopic:)`), so one entry covers the
/// app's VoIP, Live Activity and other suffixed topics too.
public struct TopicRoutes: Sendable, Hashable {
    /// Credential name by bundle id.
    public let byBundleID: [String: String]
    /// The credential for bundle ids no credential lists; nil: those are refused.
    public let fallback: String?
    /// The credentials that authenticate with a client certificate (APNs takes Live Activity pushes over token
    /// connections only).
    public let certificates: Set<String>

    /// Routes from checked settings: each bundle id listed once, at most one credential without topics.
    public init(byBundleID: [String: String], fallback: String?, certificates: Set<String> = []) {
        self.byBundleID = byBundleID
        self.fallback = fallback
        self.certificates = certificates
    }

    /// Every topic to the one credential `name` (a single-credential setup).
    public static func only(_ name: String) -> TopicRoutes { TopicRoutes(byBundleID: [:], fallback: name) }

    /// The name of the credential that sends `topic`, or nil when none does.
    public func credential(for topic: String) -> String? {
        if byBundleID.isEmpty { return fallback }
        return byBundleID[String(PushType.bundleID(ofTopic: topic))] ?? fallback
    }

    /// Why a `pushType` notification for `topic` cannot be sent, or nil when a credential sends it: for refusing
    /// it at enqueue. `pushType` nil asks only whether a credential sends the app (channel management, broadcasts:
    /// a certificate serves those too).
    public func refusal(for topic: String, pushType: PushType? = nil) -> String? {
        if let name = credential(for: topic) {
            guard pushType == .liveactivity, certificates.contains(name) else { return nil }
            return
                "Live Activity pushes need a key (.p8): APNs takes them over token connections only, and credential '\(name)' for \(PushType.bundleID(ofTopic: topic)) is a certificate"
        }
        let known = byBundleID.keys.sorted()
        let shown = known.prefix(10).joined(separator: ", ") + (known.count > 10 ? ", …" : "")
        return
            "no credential sends for topic '\(Printable.escaped(String(topic.prefix(120))))' (apns.credentials topics: \(shown))"
    }
}
