import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import QueueModel
import Testing

/// The worker's decision for each of Apple's answers, without I/O.
struct DeliveryDecisionTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = RetryPolicy(base: .seconds(1), cap: .seconds(60), maxAttempts: 3)

    static func job(attempts: Int = 0, expiration: Int64? = nil) -> DeliveryJob {
        DeliveryJob(
            id: DeliveryID(7), campaignID: CampaignID(1), kind: .bulk,
            token: try! DeviceToken(String(repeating: "ab", count: 32)),
            environment: .production,
            content: try! NotificationContent(
                bundleID: "com.example", expiration: expiration.map { try! Expiration(secondsSince1970: $0) },
                payload: Payload(json: #"{"aps":{}}"#)),
            attempts: attempts, deviceRegisteredAt: nil, leasedUntil: now)
    }

    static func response(_ status: Int, _ reason: String? = nil, timestamp: Int64? = nil) -> TransportResult {
        let body = ErrorResponse(status: status, reason: reason.map(Reason.init(rawValue:)), timestamp: timestamp)
        return .response(status: status, apnsID: "00000000-0000-4000-8000-000000000000", body: body)
    }

    @Test(
        arguments: [
            (200, nil, DeliveryStatus.accepted),
            (410, "Unregistered", .unregistered),
            (410, "ExpiredToken", .unregistered),
            (400, "BadDeviceToken", .rejected),
            (400, "DeviceTokenNotForTopic", .rejected),
            (400, "BadTopic", .rejected),
            (400, "PayloadEmpty", .rejected),
            (404, "BadPath", .rejected),
            (405, "MethodNotAllowed", .rejected),
            (413, "PayloadTooLarge", .rejected),
            (429, "TooManyRequests", .pending),
            (429, "TooManyProviderTokenUpdates", .pending),
            (500, "InternalServerError", .pending),
            (503, "ServiceUnavailable", .pending),
            (503, "Shutdown", .pending),
        ] as [(Int, String?, DeliveryStatus)])
    func statusFollowsApplesTable(status: Int, reason: String?, expected: DeliveryStatus) {
        let decision = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(status, reason), credential: "default", now: Self.now,
            policy: Self.policy, unit: 0.5)
        #expect(decision.stop == nil)
        #expect(decision.result?.disposition.status == expected)
        if let reason { #expect(decision.result?.reason?.rawValue == reason) }
    }

    /// The jitter's draw is a system call: an answer that is not retried makes none.
    @Test func onlyARetryDrawsItsJitter() {
        var draws = 0
        func draw() -> Double {
            draws += 1
            return 0.5
        }
        for (status, reason) in [(200, nil), (410, "Unregistered"), (400, "BadDeviceToken")] as [(Int, String?)] {
            _ = DeliveryDecision.decide(
                job: Self.job(), answer: Self.response(status, reason), credential: "default", now: Self.now,
                policy: Self.policy, unit: draw())
        }
        #expect(draws == 0)
        let retry = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(503, "ServiceUnavailable"), credential: "default", now: Self.now,
            policy: Self.policy, unit: draw())
        #expect(draws == 1)
        #expect(retry.result?.disposition.status == .pending)
    }

    @Test func deactivationCarriesThe410Timestamp() {
        let decision = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(410, "Unregistered", timestamp: 1_700_000_000_123),
            credential: "default",
            now: Self.now, policy: Self.policy, unit: 0)
        #expect(
            decision.result?.deactivation
                == DeliveryResult.Deactivation(reason: .unregistered, unregisteredAt: 1_700_000_000_123))
        let bad = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(400, "BadDeviceToken"), credential: "default", now: Self.now,
            policy: Self.policy, unit: 0)
        #expect(bad.result?.deactivation == DeliveryResult.Deactivation(reason: .badDeviceToken, unregisteredAt: nil))
        let topic = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(400, "BadTopic"), credential: "default", now: Self.now,
            policy: Self.policy, unit: 0)
        #expect(topic.result?.deactivation == nil)
    }

    @Test(arguments: [
        "InvalidProviderToken", "MissingProviderToken", "BadCertificate", "BadCertificateEnvironment", "Forbidden",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadEnvironmentKeyInToken",
    ])
    func configurationErrorsStopAndLeaveTheDeliveryAlone(reason: String) {
        let decision = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(403, reason), credential: "default", now: Self.now,
            policy: Self.policy, unit: 0.5)
        #expect(decision.result == nil)
        #expect(
            decision.stop == .credentialsRefused(status: 403, reason: Reason(rawValue: reason), credential: "default"))
    }

    @Test func anExpiredProviderTokenIsMintedAgainOnceThenRetried() {
        let first = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(403, "ExpiredProviderToken"), credential: "default", now: Self.now,
            policy: Self.policy, unit: 0.5)
        #expect(first == DeliveryDecision(result: nil, mintNewToken: true))
        let again = DeliveryDecision.decide(
            job: Self.job(), answer: Self.response(403, "ExpiredProviderToken"), credential: "default",
            tokenMinted: true, now: Self.now, policy: Self.policy, unit: 0.5)
        #expect(!again.mintNewToken && again.stop == nil)
        #expect(again.result?.disposition.status == .pending && again.result?.reason == .expiredProviderToken)
    }

    @Test func aRequestThatCannotBeSentFailsAtOnceInsteadOfEightTimes() {
        let error = TransportError(
            kind: .invalidRequest, curlCode: 3, message: "URL using bad/illegal format",
            isConnectionFatal: false, isRetryable: false)
        let decision = DeliveryDecision.decide(
            job: Self.job(), answer: .failure(error), credential: "default", now: Self.now, policy: Self.policy,
            unit: 0.5)
        #expect(decision.result?.disposition == .failed && decision.result?.reason == .transport("invalid-request"))
        #expect(decision.result?.countsAsAttempt == false)
    }

    @Test func tlsVerificationFailureStops() {
        let error = TransportError(
            kind: .tlsVerification, curlCode: 60, message: "SSL peer certificate or SSH remote key was not OK",
            isConnectionFatal: true, isRetryable: false)
        let decision = DeliveryDecision.decide(
            job: Self.job(), answer: .failure(error), credential: "default", now: Self.now, policy: Self.policy,
            unit: 0.5)
        #expect(decision.result == nil && decision.stop == .tlsVerification(error))
    }

    @Test func transportFailuresAreRetriedWithBackoff() {
        let error = TransportError(
            kind: .connectionLost, curlCode: 16, message: "Error in the HTTP2 framing layer",
            isConnectionFatal: true, isRetryable: true, requestWasSent: true)
        let decision = DeliveryDecision.decide(
            job: Self.job(), answer: .failure(error), credential: "default", now: Self.now, policy: Self.policy,
            unit: 0.5)
        guard case .retry(let at)? = decision.result?.disposition else {
            Issue.record("not a retry")
            return
        }
        #expect(at == Self.now.addingTimeInterval(0.5))
        #expect(decision.result?.reason?.rawValue == "Transport:connection-lost")
    }

    @Test func retriesEndAtMaxAttempts() {
        let last = DeliveryDecision.decide(
            job: Self.job(attempts: 2), answer: Self.response(503, "ServiceUnavailable"), credential: "default",
            now: Self.now, policy: Self.policy, unit: 0.5)
        #expect(last.result?.disposition == .failed)
        #expect(last.result?.httpStatus == 503 && last.result?.reason == .serviceUnavailable)
    }

    @Test func neverRetriesPastTheExpiration() {
        let expiresSoon = Int64(Self.now.timeIntervalSince1970) + 1
        // unit 0.9 after 1 attempt: up to 0.9 s later — still inside; after 2 attempts up to 1.8 s — past it.
        let inside = DeliveryDecision.decide(
            job: Self.job(attempts: 0, expiration: expiresSoon), answer: Self.response(429, "TooManyRequests"),
            credential: "default",
            now: Self.now, policy: Self.policy, unit: 0.9)
        let outside = DeliveryDecision.decide(
            job: Self.job(attempts: 1, expiration: expiresSoon), answer: Self.response(429, "TooManyRequests"),
            credential: "default",
            now: Self.now, policy: Self.policy, unit: 0.9)
        #expect(inside.result?.disposition.status == .pending)
        #expect(outside.result?.disposition == .failed)
        let once = DeliveryDecision.decide(
            job: Self.job(expiration: 0), answer: Self.response(500, "InternalServerError"), credential: "default",
            now: Self.now, policy: Self.policy, unit: 0.1)
        #expect(once.result?.disposition == .failed)
    }

    @Test func expiredJobsAreNotSent() {
        let past = Int64(Self.now.timeIntervalSince1970) - 10
        #expect(DeliveryDecision.isExpired(Self.job(expiration: past), now: Self.now, policy: Self.policy))
        #expect(!DeliveryDecision.isExpired(Self.job(expiration: 0), now: Self.now, policy: Self.policy))
        #expect(!DeliveryDecision.isExpired(Self.job(), now: Self.now, policy: Self.policy))
        #expect(DeliveryDecision.expired(Self.job()).countsAsAttempt == false)
    }

    @Test func withoutAnExpirationADeliveryIsGivenUpAfterMaxAge() {
        let policy = RetryPolicy(base: .seconds(1), cap: .seconds(60), maxAttempts: 8, maxAge: .seconds(3600))
        let job = Self.job()  // created at `now`
        #expect(!DeliveryDecision.isExpired(job, now: Self.now.addingTimeInterval(3600), policy: policy))
        #expect(DeliveryDecision.isExpired(job, now: Self.now.addingTimeInterval(3601), policy: policy))
        // A retry that would come after the age limit fails instead; an apns-expiration overrides the age limit.
        let late = DeliveryDecision.decide(
            job: job, answer: Self.response(503, "ServiceUnavailable"), credential: "default",
            now: Self.now.addingTimeInterval(3599.5), policy: policy, unit: 0.9)
        #expect(late.result?.disposition == .failed)
        let farFuture = Int64(Self.now.timeIntervalSince1970) + 86_400 * 3
        #expect(
            !DeliveryDecision.isExpired(
                Self.job(expiration: farFuture), now: Self.now.addingTimeInterval(86_400), policy: policy))
    }

    static func failure(_ kind: TransportError.Kind, sent: Bool) -> TransportResult {
        .failure(
            TransportError(
                kind: kind, curlCode: 7, message: "test", isConnectionFatal: true, isRetryable: true,
                requestWasSent: sent))
    }

    @Test func onlyAnsweredOrTimedOutRequestsSpendAnAttempt() {
        // Nothing written: APNs is unreachable; no result, no attempt, the pool pauses.
        for kind in [TransportError.Kind.connect, .timeout, .connectionLost] {
            let decision = DeliveryDecision.decide(
                job: Self.job(attempts: 2), answer: Self.failure(kind, sent: false), credential: "default",
                now: Self.now, policy: Self.policy, unit: 0.5)
            #expect(decision.unreachable && decision.result == nil && decision.stop == nil, "\(kind)")
        }
        // Written, then the connection broke: retried, without spending an attempt (even at the limit).
        let cut = DeliveryDecision.decide(
            job: Self.job(attempts: 2), answer: Self.failure(.connectionLost, sent: true), credential: "default",
            now: Self.now, policy: Self.policy, unit: 0.5)
        #expect(!cut.unreachable && cut.result?.disposition.status == .pending && cut.result?.countsAsAttempt == false)
        // Written and timed out: that is an attempt (APNs may have it).
        let timedOut = DeliveryDecision.decide(
            job: Self.job(attempts: 1), answer: Self.failure(.timeout, sent: true), credential: "default",
            now: Self.now, policy: Self.policy, unit: 0.5)
        #expect(timedOut.result?.disposition.status == .pending && timedOut.result?.countsAsAttempt == true)
        let lastTimeout = DeliveryDecision.decide(
            job: Self.job(attempts: 2), answer: Self.failure(.timeout, sent: true), credential: "default",
            now: Self.now, policy: Self.policy, unit: 0.5)
        #expect(lastTimeout.result?.disposition == .failed)
        // Withdrawn (cancel, stop): untouched.
        let withdrawn = DeliveryDecision.decide(
            job: Self.job(), answer: .failure(.withdrawn()), credential: "default", now: Self.now, policy: Self.policy,
            unit: 0.5)
        #expect(withdrawn.result == nil && !withdrawn.unreachable)
    }
}

struct OutageBackoffTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func pausesGrowWithDecorrelatedJitterUpToTheCapAndOneProbeGoesAtATime() {
        var outage = OutageBackoff(base: .seconds(1), cap: .seconds(10))
        #expect(outage.maySend(now: Self.t0) && !outage.isOut)
        let first = outage.unreachable(now: Self.t0, unit: 0.5)
        #expect(first == Self.t0.addingTimeInterval(1))  // the first pause is base: [base, base]
        // Failures of requests sent before the pause do not lengthen it.
        #expect(outage.unreachable(now: Self.t0.addingTimeInterval(0.1), unit: 0.9) == first)
        #expect(!outage.maySend(now: Self.t0.addingTimeInterval(0.99)))
        #expect(outage.maySend(now: first))
        outage.probeSent()
        #expect(!outage.maySend(now: first.addingTimeInterval(5)), "one probe at a time")
        var now = first
        var pauses: [Double] = []
        for _ in 0..<8 {
            now = now.addingTimeInterval(0.01)
            let end = outage.unreachable(now: now, unit: 1)
            pauses.append(end.timeIntervalSince(now))
            now = end
            outage.probeSent()
        }
        #expect(
            abs(pauses[0] - 3) < 1e-9 && abs(pauses[1] - 9) < 1e-9 && pauses[2...].allSatisfy { abs($0 - 10) < 1e-9 },
            "\(pauses)")
        #expect(outage.since == Self.t0)
        outage.reached()
        #expect(!outage.isOut && outage.maySend(now: now) && outage.pauses == 0)
    }

    @Test func jitterSpreadsPausesBetweenBaseAndThreeTimesTheLast() {
        var outage = OutageBackoff(base: .seconds(1), cap: .seconds(100))
        _ = outage.unreachable(now: Self.t0, unit: 0)
        outage.probeSent()
        let second = outage.unreachable(now: Self.t0.addingTimeInterval(1), unit: 0).timeIntervalSince(
            Self.t0.addingTimeInterval(1))
        #expect(abs(second - 1) < 1e-9)
        outage.probeSent()
        let third = outage.unreachable(now: Self.t0.addingTimeInterval(2), unit: 0.5).timeIntervalSince(
            Self.t0.addingTimeInterval(2))
        #expect(abs(third - 2) < 1e-9)  // halfway between 1 and 3 × 1
    }
}

struct RetryPolicyTests {
    @Test func fullJitterBoundsDoubleUpToTheCap() {
        let policy = RetryPolicy(base: .milliseconds(100), cap: .seconds(1), maxAttempts: 10)
        let ceilings = (1...6).map { policy.delay(afterAttempts: $0, unit: 1).seconds }
        #expect(ceilings.map { ($0 * 1000).rounded() } == [100, 200, 400, 800, 1000, 1000])
        #expect(policy.delay(afterAttempts: 3, unit: 0) == .zero)
        #expect(abs(policy.delay(afterAttempts: 3, unit: 0.25).seconds - 0.1) < 1e-9)
    }

    @Test func jitterSpreadsAHerd() {
        let policy = RetryPolicy(base: .seconds(1), cap: .seconds(30), maxAttempts: 10)
        var generator = SystemRandomNumberGenerator()
        let delays = (0..<1000).map { _ in
            policy.delay(afterAttempts: 4, unit: Double.random(in: 0..<1, using: &generator)).seconds
        }
        #expect(delays.allSatisfy { $0 >= 0 && $0 <= 8 })
        // Full jitter: roughly uniform over [0, 8): the halves are both well populated.
        #expect(delays.filter { $0 < 4 }.count > 400 && delays.filter { $0 >= 4 }.count > 400)
    }
}
