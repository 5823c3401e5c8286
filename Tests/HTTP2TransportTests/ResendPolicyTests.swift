import Testing

@testable import HTTP2Transport

/// What happens to an attempt that got no HTTP response.
@Suite struct ResendPolicyTests {
    static func error(_ kind: TransportError.Kind, curlCode: Int) -> TransportError {
        let (_, fatal, retryable) = TransportError.classify(curlCode: curlCode)
        return TransportError(
            kind: kind, curlCode: curlCode, message: "", isConnectionFatal: fatal, isRetryable: retryable)
    }

    typealias Case = (error: TransportError, attempts: Int, stopping: Bool, proven: Bool, action: ResendPolicy.Action)

    @Test(
        arguments: [
            // A stream the connection cut (GOAWAY, reset, EOF) goes again, `transportRetries` (2) times.
            (error(.connectionLost, curlCode: 16), 1, false, true, .resend),
            (error(.connectionLost, curlCode: 56), 2, false, true, .resend),
            (error(.connectionLost, curlCode: 92), 3, false, true, .fail),
            // Also on a connection that never answered: it was cut, not refused.
            (error(.connectionLost, curlCode: 55), 1, false, false, .resend),
            // Not while stopping.
            (error(.connectionLost, curlCode: 16), 1, true, true, .fail),
            // A timeout or refusal is the caller's to retry (after a backoff, perhaps elsewhere)…
            (error(.timeout, curlCode: 28), 1, false, true, .fail),
            (error(.connect, curlCode: 7), 1, false, true, .fail),
            (error(.tlsVerification, curlCode: 60), 1, false, true, .fail),
            (error(.other, curlCode: 43), 1, false, false, .fail),
            // …and when the connection never came up, everything waiting for it fails with it.
            (error(.connect, curlCode: 7), 1, false, false, .failWithWaiting),
            (error(.timeout, curlCode: 28), 1, false, false, .failWithWaiting),
            (error(.tlsVerification, curlCode: 60), 1, true, false, .failWithWaiting),
        ] as [Case])
    func afterAFailure(_ failure: Case) {
        let policy = ResendPolicy(transportRetries: 2)
        let action = policy.afterFailure(
            failure.error, attempts: failure.attempts, stopping: failure.stopping,
            connectionProven: failure.proven)
        #expect(action == failure.action, "\(failure.error) after \(failure.attempts) attempts")
    }

    @Test(arguments: [0, 1, 3])
    func aRequestCutOnEveryConnectionGoesBackToTheCallerAfterItsResends(retries: Int) {
        // The loop's part: a re-send waits ahead of new requests; each attempt counts.
        let policy = ResendPolicy(transportRetries: retries)
        var admission = AdmissionState<String>(
            maxInFlight: 1, throttle: Throttle(ratePerSecond: 0, now: 0), corks: false)
        admission.enqueue("cut", expedited: false)
        admission.enqueue("next", expedited: false)
        var attempts = 0
        var outcome = ResendPolicy.Action.resend
        var order: [String] = []
        while outcome == .resend {
            admission.beginRound()
            guard let name = admission.next(now: 0) else { break }
            order.append(name)
            attempts += 1
            admission.startedSending()
            admission.left(wasUnsent: false)
            outcome = policy.afterFailure(
                Self.error(.connectionLost, curlCode: 16), attempts: attempts, stopping: false,
                connectionProven: false)
            if outcome == .resend { admission.resend(name) }
        }
        #expect(outcome == .fail)
        #expect(attempts == retries + 1)
        #expect(order == Array(repeating: "cut", count: retries + 1), "re-sends go before the request waiting behind")
        #expect(admission.queued == 1)
    }
}
