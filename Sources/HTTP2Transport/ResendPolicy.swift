/// What happens to an attempt that ended without an HTTP response; no I/O here.
///
/// A stream the connection cut (GOAWAY above the last stream id, reset, EOF) was not processed by APNs: the
/// transport sends it again itself, at most `transportRetries` times and not while stopping, then hands the
/// failure to the caller. When a connection that never answered cannot be set up, the requests waiting for
/// it fail with it: one at a time, each would wait out its own connect timeout.
struct ResendPolicy: Equatable {
    /// How often one request may be re-sent by the transport.
    let transportRetries: Int

    enum Action: Equatable {
        /// Queue the attempt again, ahead of new requests.
        case resend
        /// Hand the failure to the caller.
        case fail
        /// Hand the failure to the caller, and fail every request waiting for this connection the same way.
        case failWithWaiting
    }

    /// The action for an attempt that failed with `error` after `attempts` attempts (this one included).
    func afterFailure(_ error: TransportError, attempts: Int, stopping: Bool, connectionProven: Bool) -> Action {
        if !connectionProven && error.meansNoConnection { return .failWithWaiting }
        if error.isRetriedByTransport && attempts <= transportRetries && !stopping { return .resend }
        return .fail
    }
}
