/// What a server answered to an `HTTPPost`.
public struct HTTPPostResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The start of the response body (at most `HTTPPost.maximumResponseBody` bytes).
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
