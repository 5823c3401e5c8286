/// What a server answered to an `HTTPExchange`.
public struct HTTPExchangeResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The start of the response body (at most the exchange's `maximumResponseBody` bytes).
    public var body: [UInt8]
    /// The response's header fields in order, names lowercased (HTTP/2 sends them so), values trimmed.
    public var headers: [Header]

    /// One response header field.
    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(status: Int, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers.map { Header(name: $0.name, value: $0.value) }
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The first value of the header `name` (any case), nil when absent.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }
}
