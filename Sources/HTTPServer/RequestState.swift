import Threads

/// One request's progress through the server, owned by libmicrohttpd's per-request pointer from its first
/// callback to the request-completed callback. `body` and `rejected` are touched only on the connection's
/// daemon thread; `response` is handed from the handler's task to that thread.
final class RequestState: @unchecked Sendable {
    let method: String
    let path: String
    /// The most body bytes this route accepts, decided before any is read.
    let limit: Int
    var body: [UInt8] = []
    /// Set once a 413 is queued: the rest of the body is dropped unread into memory.
    var rejected = false
    /// Set when the handler has been started (the connection is suspended until it answers).
    var handed = false
    /// The suspended connection, while the handler runs.
    var connection: OpaquePointer?
    /// The handler's answer (or the shutdown's 503), queued when the connection resumes.
    let response = Locked<HTTPResponse?>(nil)

    init(method: String, path: String, limit: Int) {
        self.method = method
        self.path = path
        self.limit = max(0, limit)
    }
}
