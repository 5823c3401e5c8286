/// What a handler answers. libmicrohttpd adds Content-Length, Date and the connection handling.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String = "text/plain; charset=utf-8", text: String) {
        self.init(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }
}
