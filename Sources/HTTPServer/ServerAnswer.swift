/// An answer the server gave by itself, without running the handler (`HTTPServer.Options.answeredByServer`): a head
/// refused, a body over its limit or over the bytes-in-flight budget, a connection past the cap, a stop.
public struct ServerAnswer: Sendable, Equatable {
    public var method: String
    /// The decoded path; nil when the head was refused before its path was read.
    public var path: String?
    public var status: Int
    /// Why, in snake_case: the head refusal's code, `body_too_large`, `too_many_connections`,
    /// `too_many_bodies_in_flight` or `shutting_down`.
    public var reason: String

    public init(method: String, path: String?, status: Int, reason: String) {
        self.method = method
        self.path = path
        self.status = status
        self.reason = reason
    }
}
