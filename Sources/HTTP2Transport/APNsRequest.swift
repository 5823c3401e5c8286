import APNs

/// One HTTP/2 POST as the transport sends it: path, `authorization` (a provider token; none when the connection
/// presents a client certificate), the other headers, body.
///
/// The transport knows nothing about JWTs; it never logs or prints header values.
public struct APNsRequest: Sendable {
    /// The request path, e.g. `/3/device/<hex token>`.
    public var path: String
    /// The `authorization` header's value, sent first (a provider token); nil when the connection presents a client
    /// certificate, or when `headers` carry it. Apart from `headers` so that a campaign's requests share one array.
    public var authorization: String?
    /// Header fields in order; names in lowercase.
    public var headers: [(name: String, value: String)]
    /// The request body (the notification's JSON payload).
    public var body: [UInt8]
    /// Queued on its connection ahead of requests without it (single sends ahead of campaigns); the
    /// throttle still applies.
    public var isExpedited: Bool
    /// Who the request belongs to (the worker passes the campaign id), so that requests still waiting on
    /// their connection can be withdrawn together (`TransportRegistry.withdraw`).
    public var group: Int64?

    public init(
        path: String, authorization: String? = nil, headers: [(name: String, value: String)], body: [UInt8],
        isExpedited: Bool = false, group: Int64? = nil
    ) {
        self.path = path
        self.authorization = authorization
        self.headers = headers
        self.body = body
        self.isExpedited = isExpedited
        self.group = group
    }

    /// Every header as it is sent: `authorization` first, then `headers`.
    public var fields: [(name: String, value: String)] {
        (authorization.map { [(name: HeaderName.authorization, value: $0)] } ?? []) + headers
    }
}

extension APNsRequest: CustomStringConvertible {
    /// The path with any device token shortened, and header names only — never values.
    public var description: String {
        var shownPath = path
        if let slash = path.lastIndex(of: "/"), path.distance(from: slash, to: path.endIndex) > 13 {
            let token = path[path.index(after: slash)...]
            shownPath = "\(path[...slash])\(token.prefix(8))…(\(token.count))"
        }
        return "POST \(shownPath) headers: [\(fields.map(\.name).joined(separator: ", "))] body: \(body.count) bytes"
    }
}
