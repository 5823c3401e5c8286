/// One request as the handler sees it: its body read whole (within the route's limit) before the handler runs.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query, percent-decoded (`RequestHead`: never a control character or an encoded `/`).
    public var path: String
    /// The query's items in order, decoded; `?flag` has a nil value.
    public var query: [(name: String, value: String?)]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client's address (`127.0.0.1`, `::1`), or "" if unknown.
    public var remoteAddress: String

    public init(
        method: String, path: String, query: [(name: String, value: String?)] = [], headers: HTTPHeaders = [:],
        body: [UInt8] = [], remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The first value of query item `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}
