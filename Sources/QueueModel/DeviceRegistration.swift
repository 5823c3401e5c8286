import APNs

/// What a producer tells the registry about a device (`apnsd device add`, one line of `device import`).
public struct DeviceRegistration: Hashable, Sendable {
    public var token: DeviceToken
    /// The app's bundle id. Devices are unique on (token, topic).
    public var topic: String
    public var environment: Environment
    /// The producer's user id, for `--user` audiences; nil keeps the user already stored for the device.
    public var user: String?

    public init(token: DeviceToken, topic: String, environment: Environment = .production, user: String? = nil) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.user = user
    }
}
