import APNs
import Foundation
import HTTP2Transport
import QueueModel

/// What the worker does after one send: the row to record, and whether the whole worker must stop.
/// A pure function of the job, the transport's answer, the time and a random number, so it is tested without I/O.
public struct DeliveryDecision: Hashable, Sendable {
    /// The outcome to write; nil when the delivery must be left untouched (its lease is released instead).
    public var result: DeliveryResult?
    /// Set when APNs or TLS says our configuration is wrong: stop sending, keep the queue as it is.
    public var stop: WorkerStop?
    /// APNs could not be reached and nothing was written: no attempt is spent; the worker holds the delivery
    /// and pauses its pool (`OutageBackoff`).
    public var unreachable: Bool
    /// APNs said ExpiredProviderToken to a token not yet minted again: mint a new one and send again at once
    /// (nothing is written, no attempt is spent).
    public var mintNewToken: Bool

    public init(result: DeliveryResult?, stop: WorkerStop? = nil, unreachable: Bool = false, mintNewToken: Bool = false)
    {
        self.result = result
        self.stop = stop
        self.unreachable = unreachable
        self.mintNewToken = mintNewToken
    }

    /// Decides for `job`, sent with the credential named `credential`, after `answer`, at `now`, following Apple's
    /// reason table (`APNs.Outcome`). `tokenMinted`: the request carried a token minted after ExpiredProviderToken.
    ///
    /// Attempts count only requests APNs answered or that timed out after being written. A request that
    /// never left (connect, DNS, TLS handshake) is `unreachable`; one cut with the connection after it was
    /// written is retried without spending an attempt (`retry.maxAge` and apns-expiration still bound it).
    /// `unit` (a draw in [0, 1) for the retry's jitter) is drawn only for a retry: an accepted answer costs no draw.
    public static func decide(
        job: DeliveryJob, answer: TransportResult, credential: String, tokenMinted: Bool = false, now: Date,
        policy: RetryPolicy, unit: @autoclosure () -> Double
    ) -> DeliveryDecision {
        let attempts = job.attempts + 1
        switch answer {
        case .failure(let error):
            if error.kind == .tlsVerification {
                return DeliveryDecision(result: nil, stop: .tlsVerification(error))
            }
            if error.kind == .withdrawn || error.kind == .shutdown {
                return DeliveryDecision(result: nil)
            }
            if error.meansUnreachable {
                return DeliveryDecision(result: nil, unreachable: true)
            }
            let reason = Reason.transport(error.kind.rawValue)
            let counts = error.kind == .timeout && error.requestWasSent
            guard error.isRetryable else {
                // The request itself cannot be sent (e.g. a header libcurl refuses): the same request never will.
                return DeliveryDecision(
                    result: DeliveryResult(
                        job, disposition: .failed, reason: reason,
                        countsAsAttempt: error.requestWasSent))
            }
            return retryOrFail(
                job: job, attempts: counts ? attempts : job.attempts, now: now, policy: policy, unit: unit,
                status: nil, reason: reason, countsAsAttempt: counts)
        case .response(let status, let apnsID, let body):
            switch Outcome(response: body) {
            case .accepted:
                return DeliveryDecision(result: .accepted(job, apnsID: apnsID))
            case .unregistered(let reason, let since):
                return DeliveryDecision(result: .unregistered(job, reason: reason, timestamp: since, apnsID: apnsID))
            case .badDeviceToken(let reason):
                return DeliveryDecision(result: .badToken(job, httpStatus: status, reason: reason, apnsID: apnsID))
            case .retryLater(let reason):
                return retryOrFail(
                    job: job, attempts: attempts, now: now, policy: policy, unit: unit, status: status, reason: reason)
            case .refreshProviderToken:
                guard tokenMinted else { return DeliveryDecision(result: nil, mintNewToken: true) }
                // A token minted for this very request is still expired: our clock is off.
                return retryOrFail(
                    job: job, attempts: attempts, now: now, policy: policy, unit: unit,
                    status: status, reason: .expiredProviderToken)
            case .reject(let reason):
                return DeliveryDecision(
                    result: DeliveryResult(
                        job, disposition: .rejected, httpStatus: status,
                        reason: reason, apnsID: apnsID))
            case .configurationError(let reason):
                return DeliveryDecision(
                    result: nil, stop: .credentialsRefused(status: status, reason: reason, credential: credential))
            }
        }
    }

    /// Whether `job` may not be sent at `now`: its apns-expiration has passed, or (without one) it is older
    /// than `policy.maxAge`.
    public static func isExpired(_ job: DeliveryJob, now: Date, policy: RetryPolicy) -> Bool {
        guard let expiration = job.content.expiration else { return now > giveUpDate(job, policy: policy) }
        return expiration.forbidsAttempt(atUnixSeconds: Int64(now.timeIntervalSince1970))
    }

    /// When a delivery without apns-expiration is given up.
    static func giveUpDate(_ job: DeliveryJob, policy: RetryPolicy) -> Date {
        job.createdAt.addingTimeInterval(policy.maxAge.seconds)
    }

    /// The result for a job that expired before it could be sent.
    public static func expired(_ job: DeliveryJob) -> DeliveryResult {
        DeliveryResult(job, disposition: .failed, reason: .expired, countsAsAttempt: false)
    }

    private static func retryOrFail(
        job: DeliveryJob, attempts: Int, now: Date, policy: RetryPolicy, unit: () -> Double,
        status: Int?, reason: Reason, countsAsAttempt: Bool = true
    ) -> DeliveryDecision {
        let at = now.addingTimeInterval(
            policy.delay(afterAttempts: max(attempts, 1), unit: unit(), previous: job.previousDelay).seconds)
        let expired =
            job.content.expiration.map {
                $0.forbidsAttempt(atUnixSeconds: Int64(at.timeIntervalSince1970.rounded(.up)))
            }
            ?? (at > giveUpDate(job, policy: policy))
        // apns-expiration 0 means "try once": never retried. Not for a broadcast: a no-storage channel requires 0,
        // which says nothing about retrying one APNs did not take (retry.maxAge bounds it).
        let tryOnce = job.content.expiration?.secondsSince1970 == 0 && !job.isBroadcast
        guard policy.allowsRetry(afterAttempts: attempts), !expired, !tryOnce else {
            return DeliveryDecision(
                result: DeliveryResult(
                    job, disposition: .failed, httpStatus: status, reason: reason,
                    countsAsAttempt: countsAsAttempt))
        }
        var result = DeliveryResult.retry(job, at: at, httpStatus: status, reason: reason)
        result.countsAsAttempt = countsAsAttempt
        return DeliveryDecision(result: result)
    }
}
