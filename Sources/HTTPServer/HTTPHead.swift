/// A request as it stands once its head is in and before any body byte is read: what a head check decides on.
public struct HTTPHead: Sendable {
    public var method: String
    /// The path without the query, percent-decoded by libmicrohttpd.
    public var path: String
    public var headers: HTTPHeaders
    /// The client's address (`127.0.0.1`, `::1`), or "" if unknown.
    public var remoteAddress: String

    public init(method: String, path: String, headers: HTTPHeaders = [:], remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.headers = headers
        self.remoteAddress = remoteAddress
    }
}

/// Run on a request that announces a body, before any of it is read: a response refuses the request (answered at
/// once, the body never read, the connection closed), nil lets it go on to its body and the handler.
public typealias HTTPHeadCheck = @Sendable (HTTPHead) async -> HTTPResponse?
