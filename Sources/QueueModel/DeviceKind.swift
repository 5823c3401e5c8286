/// What a registered token is for: a device's own token, the update token of one running Live Activity, or the
/// app's push-to-start token for an activity type. A campaign's audience takes one kind only (see `Audience`).
public enum DeviceKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A device token (the default): the only kind `.all` and `.users` audiences reach.
    case device
    /// The update token of one running Live Activity of an activity type.
    case activity
    /// The app's push-to-start token for an activity type (iOS 17.2+): a push to it starts an activity.
    case pushToStart

    public var description: String { rawValue }

    /// Whether tokens of this kind belong to a Live Activity type (and are stored under its Live Activity topic).
    public var isLiveActivity: Bool { self != .device }

    /// Parses a kind as the CLI and the API spell it, with a one-line error naming the valid ones.
    public static func parse(_ text: String) throws(StoreError) -> DeviceKind {
        guard let kind = DeviceKind(rawValue: text) else {
            throw .invalidDevice("kind must be device, activity or pushToStart, got '\(String(text.prefix(40)))'")
        }
        return kind
    }
}
