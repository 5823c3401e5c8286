/// A `reason` string from an APNs error response; unknown strings are kept as they came.
public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    // 400
    public static let badCollapseId = Reason(rawValue: "BadCollapseId")
    public static let badDeviceToken = Reason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = Reason(rawValue: "BadExpirationDate")
    public static let badMessageId = Reason(rawValue: "BadMessageId")
    public static let badPriority = Reason(rawValue: "BadPriority")
    public static let badTopic = Reason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = Reason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = Reason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = Reason(rawValue: "IdleTimeout")
    public static let invalidPushType = Reason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = Reason(rawValue: "MissingDeviceToken")
    public static let missingTopic = Reason(rawValue: "MissingTopic")
    public static let payloadEmpty = Reason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = Reason(rawValue: "TopicDisallowed")
    // 403
    public static let badCertificate = Reason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = Reason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = Reason(rawValue: "ExpiredProviderToken")
    public static let forbidden = Reason(rawValue: "Forbidden")
    public static let invalidProviderToken = Reason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = Reason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIdInToken = Reason(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIdInToken = Reason(rawValue: "BadEnvironmentKeyIdInToken")
    /// The spelling seen on the wire for `badEnvironmentKeyIdInToken`.
    public static let badEnvironmentKeyInToken = Reason(rawValue: "BadEnvironmentKeyInToken")
    // 404, 405
    public static let badPath = Reason(rawValue: "BadPath")
    public static let methodNotAllowed = Reason(rawValue: "MethodNotAllowed")
    // 410
    public static let unregistered = Reason(rawValue: "Unregistered")
    public static let expiredToken = Reason(rawValue: "ExpiredToken")
    // 413
    public static let payloadTooLarge = Reason(rawValue: "PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = Reason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = Reason(rawValue: "TooManyRequests")
    // 500, 503
    public static let internalServerError = Reason(rawValue: "InternalServerError")
    public static let serviceUnavailable = Reason(rawValue: "ServiceUnavailable")
    public static let shutdown = Reason(rawValue: "Shutdown")

    // apnsd's own reasons, never sent by APNs (the delivery log shows them like Apple's).
    /// The notification's apns-expiration (or `retry.maxAge`) passed before it could be sent.
    public static let expired = Reason(rawValue: "Expired")
    /// The device was deactivated before the delivery's turn.
    public static let deviceInactive = Reason(rawValue: "DeviceInactive")
    /// The campaign was cancelled before the delivery was sent.
    public static let campaignCancelled = Reason(rawValue: "CampaignCancelled")
    /// apnsd's own: no configured credential sends for the notification's topic; it waits until one does.
    public static let noCredential = Reason(rawValue: "NoCredentialForTopic")
    /// The device was deactivated because its app registered a new token in its place.
    public static let replaced = Reason(rawValue: "Replaced")
    /// The device was removed through the API (deactivated, kept in the registry).
    public static let removed = Reason(rawValue: "Removed")

    /// No HTTP answer: the transport failed this way (`Transport:connect`, `Transport:timeout`, …).
    public static func transport(_ kind: String) -> Reason { Reason(rawValue: "Transport:" + kind) }

    /// An HTTP status that came without a reason (`HTTP502`).
    public static func httpStatus(_ status: Int) -> Reason { Reason(rawValue: "HTTP\(status)") }

    /// Every reason Apple documents, each with the status it comes with.
    public static let documented: [(status: Int, reason: Reason)] = [
        (400, .badCollapseId), (400, .badDeviceToken), (400, .badExpirationDate), (400, .badMessageId),
        (400, .badPriority), (400, .badTopic), (400, .deviceTokenNotForTopic), (400, .duplicateHeaders),
        (400, .idleTimeout), (400, .invalidPushType), (400, .missingDeviceToken), (400, .missingTopic),
        (400, .payloadEmpty), (400, .topicDisallowed),
        (403, .badCertificate), (403, .badCertificateEnvironment), (403, .expiredProviderToken),
        (403, .forbidden), (403, .invalidProviderToken), (403, .missingProviderToken),
        (403, .unrelatedKeyIdInToken), (403, .badEnvironmentKeyIdInToken), (403, .badEnvironmentKeyInToken),
        (404, .badPath), (405, .methodNotAllowed), (410, .unregistered), (410, .expiredToken),
        (413, .payloadTooLarge), (429, .tooManyProviderTokenUpdates), (429, .tooManyRequests),
        (500, .internalServerError), (503, .serviceUnavailable), (503, .shutdown),
    ]

    /// Whether Apple documents this reason.
    public var isDocumented: Bool { Self.documented.contains { $0.reason == self } }

    public var description: String { rawValue }
}
