/// A request's result, with how long APNs took to answer once the request's first byte was written.
public struct TransportAnswer: Sendable, Hashable {
    public var result: TransportResult
    /// From the first byte of the last attempt written to its answer (or failure); nil when nothing was written.
    /// Waiting in the throttle or for a stream is not in it.
    public var latency: Duration?

    public init(_ result: TransportResult, latency: Duration? = nil) {
        self.result = result
        self.latency = latency
    }
}

/// Receives a request's answer: called once, on the connection's loop thread (or on the caller's, for a request
/// refused at once). It must return quickly and never block: the connection waits for it.
public typealias TransportCompletion = @Sendable (TransportAnswer) -> Void
