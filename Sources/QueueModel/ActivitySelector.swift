/// Which Live Activity tokens an activity audience reaches: those of `kind` registered for activity type `type`.
public struct ActivitySelector: Hashable, Sendable, CustomStringConvertible {
    public var type: String
    /// `activity` or `pushToStart`.
    public var kind: DeviceKind

    public init(type: String, kind: DeviceKind = .activity) {
        self.type = type
        self.kind = kind
    }

    public var description: String { "\(kind == .pushToStart ? "push-to-start tokens" : "activities") of \(type)" }
}
