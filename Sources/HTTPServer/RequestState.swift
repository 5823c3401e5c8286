import Threads

/// One request's progress through the server, owned by libmicrohttpd's per-request pointer from the target
/// callback (the request line read) to the request-completed callback. Everything but `response` is touched only on
/// the connection's daemon thread; `response` is handed from the handler's task to that thread.
final class RequestState: @unchecked Sendable {
    /// The request target exactly as sent, up to a raw NUL if it held one.
    let target: [UInt8]
    /// Set by the first access call, once the head is whole: then `method`, `path`, `query`, `headers` and `limit`
    /// hold.
    var begun = false
    var method = ""
    /// The path, decoded by `RequestHead`.
    var path = ""
    var query: [(name: String, value: String?)] = []
    var headers: HTTPHeaders = [:]
    /// The most body bytes this route accepts, decided before any is read.
    var limit = 0
    var body: [UInt8] = []
    /// Body bytes received and counted against the server's in-flight budget until the request completes.
    var held = 0
    /// Set once a refusal (413, 503, the head check's) is queued: the rest of the body is dropped unread into memory.
    var rejected = false
    /// Set when the body went over the in-flight budget: the rest is dropped unread into memory, then answered 503.
    var overBudget = false
    /// Set while the head check runs on the suspended connection; its answer (a refusal or nil) is in `response`.
    var checking = false
    /// Bytes of a chunked body dropped past `limit`: answered 413 when the body ends.
    var dropped = 0
    /// Set when the handler has been started (the connection is suspended until it answers).
    var handed = false
    /// The suspended connection, while the handler runs.
    var connection: OpaquePointer?
    /// The handler's answer (or the shutdown's 503), queued when the connection resumes.
    let response = Locked<HTTPResponse?>(nil)

    init(target: [UInt8]) { self.target = target }
}
