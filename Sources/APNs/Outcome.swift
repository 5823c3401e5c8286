/// What the sender must do with a notification after APNs answered.
public enum Outcome: Hashable, Sendable {
    /// 200: APNs took it.
    case accepted
    /// 410 Unregistered / ExpiredToken: the token is no longer valid for the topic. `since` is the 410
    /// timestamp (ms since 1970) when APNs gave one: a device that registered after it stays active.
    case unregistered(Reason, since: Int64?)
    /// 400 BadDeviceToken / DeviceTokenNotForTopic: the token is wrong for this topic or environment.
    case badDeviceToken(Reason)
    /// 429, 500, 503: try again later, with backoff. (429 TooManyProviderTokenUpdates too: APNs then refuses the
    /// connection until the client reconnects, which the transport does once that connection's streams are done.)
    case retryLater(Reason)
    /// 403 ExpiredProviderToken: mint a new provider token and send again.
    case refreshProviderToken
    /// Our request broke a rule (400, 404, 405, 413): record it; the same request will never succeed.
    case reject(Reason)
    /// Credentials or environment are wrong: stop sending and tell an operator.
    case configurationError(Reason)

    /// Classifies an APNs response by Apple's table in `docs/APNS.md`.
    public init(status: Int, reason: Reason?, timestamp: Int64? = nil) {
        let reason = reason ?? .httpStatus(status)
        switch (status, reason) {
        case (200, _):
            self = .accepted
        case (410, _):
            self = .unregistered(reason, since: timestamp)
        case (400, .badDeviceToken), (400, .deviceTokenNotForTopic):
            self = .badDeviceToken(reason)
        case (403, .expiredProviderToken):
            self = .refreshProviderToken
        case (403, _):
            self = .configurationError(reason)
        case (429, _), (500...599, _):
            self = .retryLater(reason)
        default:
            self = .reject(reason)
        }
    }

    /// Classifies a parsed error response.
    public init(response: ErrorResponse) {
        self.init(status: response.status, reason: response.reason, timestamp: response.timestamp)
    }
}
