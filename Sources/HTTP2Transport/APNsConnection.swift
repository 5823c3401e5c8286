import Threads

/// One multiplexed HTTP/2 connection over TLS to an APNs host, throttled to `ratePerSecond`.
///
/// Backed by one libcurl multi handle and one event-loop thread. When the server goes away (GOAWAY,
/// reset, EOF) libcurl drops the connection and opens a new one for the next request, within the same
/// multi handle; requests whose streams were cut are re-sent up to `transportRetries` times, then returned
/// as retryable failures. Call `shutdown` before dropping the last reference (dropping it fails whatever
/// is still queued with a shutdown error).
public final class APNsConnection: Sendable {
    public let configuration: ConnectionConfiguration
    private let loop: ConnectionLoop

    /// Starts the event loop; the TCP/TLS connection itself opens with the first request.
    public convenience init(configuration: ConnectionConfiguration) throws(TransportError) {
        try self.init(configuration: configuration, recordingSends: false)
    }

    /// Tests: `recordingSends` keeps the time libcurl started sending each request (see `sendTimes`).
    init(configuration: ConnectionConfiguration, recordingSends: Bool) throws(TransportError) {
        self.configuration = configuration
        loop = try ConnectionLoop(configuration: configuration)
        if recordingSends { loop.sendLog = [] }
        loop.start()
    }

    /// Tests: monotonic nanoseconds at which libcurl started sending each request; read only after
    /// `shutdown` returned.
    var sendTimes: [UInt64] { loop.sendLog ?? [] }

    deinit { loop.stopNow() }

    /// Sends one request and waits for its response or failure. Never throws: failures are results.
    /// The request goes out even if the calling task is cancelled (APNs has no way to take it back).
    public func send(_ request: APNsRequest) async -> TransportResult {
        await exchange(request).result
    }

    /// `send`, with the time APNs took once the request was written.
    public func exchange(_ request: APNsRequest) async -> TransportAnswer {
        await withUnsafeContinuation { continuation in
            loop.submit(request) { continuation.resume(returning: $0) }
        }
    }

    /// `exchange` without a task waiting: `completion` gets the answer (see `TransportCompletion`).
    public func submit(_ request: APNsRequest, completion: @escaping TransportCompletion) {
        loop.submit(request, completion: completion)
    }

    /// Takes back the requests of `groups` (nil: all) that have not started on the wire; they fail with
    /// `TransportError.withdrawn` before this returns. Returns how many.
    /// With `andLater`, requests of these groups submitted later are withdrawn at once.
    public func withdraw(groups: Set<Int64>?, andLater: Bool = false) async -> Int {
        await loop.withdraw(groups: groups, andLater: andLater)
    }

    /// Refuses requests of `groups` from now on, as `withdraw` does for those submitted after it.
    public func refuse(groups: Set<Int64>) { loop.refuse(groups: groups) }

    /// Counters for metrics.
    public var stats: ConnectionStats { loop.statsSnapshot }

    /// Requests submitted and not yet finished (queued + in flight): the pool routes by it.
    public var outstanding: Int { loop.outstanding }

    /// Closes the HTTP/2 connection once the streams in flight have finished; the next request opens a
    /// new one. For "open a new connection" advice from APNs (UnrelatedKeyIdInToken, a revoked key).
    public func reconnect() { loop.requestReconnect() }

    /// Stops accepting requests, lets queued and in-flight ones finish until `deadline`, fails the rest
    /// with a `.shutdown` error, closes the connection and ends the thread.
    public func shutdown(deadline: ContinuousClock.Instant) async {
        let left = ContinuousClock.now.duration(to: deadline)
        let nanoseconds =
            left <= .zero
            ? 0
            : UInt64(left.components.seconds) * 1_000_000_000
                + UInt64(left.components.attoseconds / 1_000_000_000)
        await loop.stop(deadline: MonotonicClock.nanoseconds() &+ nanoseconds)
    }

    /// `shutdown(deadline: .now + timeout)`.
    public func shutdown(timeout: Duration) async {
        await shutdown(deadline: .now + timeout)
    }
}
