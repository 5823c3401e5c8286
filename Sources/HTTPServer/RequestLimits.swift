/// What a request head may hold, judged (`RequestHead`) before a route or a handler is chosen.
public struct RequestLimits: Sendable {
    /// The request target (path and query, as sent): longer is 414.
    public var targetBytes = 8 << 10
    /// The header fields together (names, values, separators): more is 431.
    public var headerBytes = 16 << 10
    /// Query items: more is 400.
    public var queryItems = 100
    /// Header fields a request may carry once (any case): a second one is 400. Two Content-Length or Host fields
    /// can be read differently by a proxy in front, as can Content-Length beside Transfer-Encoding (refused too).
    public var singleHeaders: Set<String> = ["content-length", "transfer-encoding", "host"]
    /// How much of a chunked body past its route's limit is read and dropped so that the client, once it has sent
    /// it all, reads the 413 in order; past it, the 413 is written at once and the connection closed (libmicrohttpd
    /// 0.9.75 can queue an answer only once the body has ended).
    public var chunkedOverrun = 4 << 20

    public init() {}

    /// libmicrohttpd's memory per connection (its read buffer and the parsed header records). A head that does not
    /// fit is answered by libmicrohttpd itself, not by `RequestHead`: four times the limits leaves room for heads
    /// well past them, and for the records of many short header lines.
    var connectionMemory: Int { max(128 << 10, 4 * (targetBytes + headerBytes)) }
}

/// Why a request head was refused before its handler ran: the status, a snake_case code and one sentence.
public struct HeadRefusal: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String

    public init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func invalid(_ message: String) -> HeadRefusal { HeadRefusal(400, "invalid_request", message) }

    /// The server's own rendering when none is configured (`HTTPServer.Options.refused`).
    public var plainResponse: HTTPResponse { HTTPResponse(status: status, text: message + "\n") }
}
