/// The `apns-priority` header.
public struct Priority: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    /// Accepts 10, 5 and 1 only.
    public init?(rawValue: Int) {
        guard rawValue == 10 || rawValue == 5 || rawValue == 1 else { return nil }
        self.rawValue = rawValue
    }

    private init(known: Int) { rawValue = known }

    /// 10: deliver now (Apple's default).
    public static let immediate = Priority(known: 10)
    /// 5: deliver as the device's power allows; required for background pushes.
    public static let conservePower = Priority(known: 5)
    /// 1: never wake the device.
    public static let low = Priority(known: 1)

    /// Parses "10", "5" or "1".
    /// The priority of value `value` (10, 5 or 1).
    public init(validating value: Int) throws(APNsError) {
        guard let priority = Priority(rawValue: value) else { throw .invalidPriority(String(value)) }
        self = priority
    }

    public static func parse(_ string: String) throws(APNsError) -> Priority {
        guard let value = Int(string), let priority = Priority(rawValue: value) else { throw .invalidPriority(string) }
        return priority
    }

    /// Checks Apple's rules: background pushes use priority 5; Live Activity pushes 10 or 5 (ActivityKit has no 1).
    public func validate(for pushType: PushType) throws(APNsError) {
        if pushType == .background && self != .conservePower { throw .priorityNotAllowed(self, pushType) }
        if pushType == .liveactivity && self == .low { throw .priorityNotAllowed(self, pushType) }
    }

    public var description: String { String(rawValue) }
}
