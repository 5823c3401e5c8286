import APNs

/// What a producer tells the registry about a device (`apnsd device add`, one line of `device import`).
public struct DeviceRegistration: Hashable, Sendable {
    public var token: DeviceToken
    /// The app's bundle id. Devices are unique on (token, topic).
    public var topic: String
    public var environment: Environment
    /// The producer's user id, for `--user` audiences; nil keeps the user already stored for the device.
    public var user: String?
    /// A token this one takes over (the app got a new token): the old token's device for the same topic is
    /// deactivated (`Replaced`) in the same transaction, and its user kept when `user` is nil. Only
    /// `register` honours it; `importDevices` ignores it.
    public var replaces: DeviceToken?

    public init(token: DeviceToken, topic: String, environment: Environment = .production, user: String? = nil,
                replaces: DeviceToken? = nil) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.user = user
        self.replaces = replaces
    }
}
