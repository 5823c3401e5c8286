import APNs

extension APNsRequest {
    /// The request for `notification`, authorised by a provider token (JWT) when one is given; with nil it carries
    /// no `authorization` header, as certificate-based requests must (the connection's client certificate authorises it).
    public init(notification: Notification, bearerToken: String?) {
        var headers = notification.headers
        if let bearerToken { headers.insert((HeaderName.authorization, HeaderName.bearer(bearerToken)), at: 0) }
        self.init(path: notification.path, headers: headers, body: notification.payload.bytes)
    }
}
