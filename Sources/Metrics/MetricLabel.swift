/// A label a family declares. With `allowed`, any other value is recorded as `other` (`MetricLabel.other`), so that
/// the label stays bounded whatever the caller passes (a reason from the network, say).
public struct MetricLabel: Sendable, Hashable {
    /// The value that stands for anything not allowed, and for every label of series beyond a family's cap.
    public static let other = "other"

    public let name: String
    /// The values this label may take; nil: any (bounded only by the family's series cap).
    public let allowed: Set<String>?

    public init(_ name: String, allowed: some Sequence<String>) {
        self.name = name
        self.allowed = Set(allowed)
    }

    public init(_ name: String) {
        self.name = name
        self.allowed = nil
    }

    /// `value`, or `other` when it is not allowed.
    public func bound(_ value: String) -> String {
        guard let allowed, !allowed.contains(value) else { return value }
        return Self.other
    }
}
