import APNs

/// What a producer tells the registry about a device (`apnsd device add`, one line of `device import`).
public struct DeviceRegistration: Hashable, Sendable {
    public var token: DeviceToken
    /// The app's bundle id, for every kind: the campaign's bundle id a device is matched with (apnsd adds the
    /// push type's suffix to the `apns-topic` header itself). Devices are unique on (token, topic).
    public var topic: String
    public var environment: Environment
    /// The producer's user id, for `--user` audiences; nil keeps the user already stored for the device.
    public var user: String?
    /// A token this one takes over (the app got a new token): the old token's device for the same topic is
    /// deactivated (`Replaced`) in the same transaction, and its user kept when `user` is nil. Only
    /// `register` honours it; `importDevices` ignores it.
    public var replaces: DeviceToken?
    /// What the token is for. Re-registering a (token, topic) with another kind or activity type updates both.
    public var kind: DeviceKind
    /// The ActivityAttributes type name: required for `activity` and `pushToStart`, refused for `device`.
    public var activityType: String?

    /// The longest activity type accepted (Swift type names are far shorter).
    public static let maximumActivityTypeBytes = 200

    public init(
        token: DeviceToken, topic: String, environment: Environment = .production, user: String? = nil,
        replaces: DeviceToken? = nil, kind: DeviceKind = .device, activityType: String? = nil
    ) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.user = user
        self.replaces = replaces
        self.kind = kind
        self.activityType = activityType
    }

    /// The registration as the registry stores it, or `StoreError.invalidDevice`: an activity type is required
    /// for Live Activity kinds and refused for devices, and a Live Activity token given with the Live Activity
    /// topic (`<bundle id>.push-type.liveactivity`) is stored under the bundle id, like every device: a campaign
    /// to it (`--topic <bundle id> --push-type liveactivity`) then finds it, and a 410 deactivates it.
    public func checked() throws(StoreError) -> DeviceRegistration {
        try Self.check(kind, activityType: activityType)
        guard kind.isLiveActivity else { return self }
        var stored = self
        if let suffix = PushType.liveactivity.topicSuffix, topic.hasSuffix(suffix), topic.count > suffix.count {
            stored.topic = String(topic.dropLast(suffix.count))
        }
        return stored
    }

    /// Checks that `activityType` goes with `kind`: required (and valid) for activity and pushToStart, refused for device.
    public static func check(_ kind: DeviceKind, activityType: String?) throws(StoreError) {
        guard kind.isLiveActivity else {
            guard activityType == nil else {
                throw .invalidDevice("an activity type goes with kind activity or pushToStart, not with kind device")
            }
            return
        }
        guard let activityType else {
            throw .invalidDevice("kind \(kind) needs an activity type (the ActivityAttributes type name)")
        }
        try validateActivityType(activityType)
    }

    /// `registrations` as the registry stores them (each `checked()`), the same array when every one is a plain
    /// device registration (the common case of a large import: nothing copied).
    public static func checked(_ registrations: [DeviceRegistration]) throws(StoreError) -> [DeviceRegistration] {
        guard registrations.contains(where: { $0.kind != .device || $0.activityType != nil }) else {
            return registrations
        }
        var stored: [DeviceRegistration] = []
        stored.reserveCapacity(registrations.count)
        for registration in registrations { stored.append(try registration.checked()) }
        return stored
    }

    /// Checks an activity type: 1–200 bytes of letters, digits, `_` and `.` (a Swift type name, possibly
    /// qualified), starting with a letter or `_`.
    public static func validateActivityType(_ text: String) throws(StoreError) {
        var shown: String { "'\(Printable.escaped(String(text.prefix(60))))'" }
        guard let first = text.utf8.first else { throw .invalidDevice("the activity type is empty") }
        guard text.utf8.count <= maximumActivityTypeBytes else {
            throw .invalidDevice("activity type \(shown)… is longer than \(maximumActivityTypeBytes) bytes")
        }
        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
        guard isLetter(first) else { throw .invalidDevice("activity type \(shown) must start with a letter or '_'") }
        for byte in text.utf8
        where !isLetter(byte) && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) && byte != UInt8(ascii: ".") {
            throw .invalidDevice("activity type \(shown) is not a type name (only letters, digits, '_' and '.')")
        }
    }
}
