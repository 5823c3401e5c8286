import Threads

/// One request's progress through the server, owned by libmicrohttpd's per-request pointer from its first
/// callback to the request-completed callback. `body`, `held` and the flags are touched only on the
/// connection's daemon thread; `response` is handed from the handler's task to that thread.
final class RequestState: @unchecked Sendable {
    let method: String
    let path: String
    /// The most body bytes this route accepts, decided before any is read.
    let limit: Int
    var body: [UInt8] = []
    /// Body bytes received and counted against the server's in-flight budget until the request completes.
    var held = 0
    /// Set once a refusal (413, 503, the head check's) is queued: the rest of the body is dropped unread into memory.
    var rejected = false
    /// Set when the body went over the in-flight budget: the rest is dropped unread into memory, then answered 503.
    var overBudget = false
    /// Set while the head check runs on the suspended connection; its answer (a refusal or nil) is in `response`.
    var checking = false
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
