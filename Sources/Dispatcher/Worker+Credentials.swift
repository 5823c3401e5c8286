import APNs
import Foundation
import QueueModel

extension Worker {
    /// The credential to send `job` with, or nil when it must wait: no credential sends its topic, or its
    /// credential is paused (one probe goes when the pause ends). A job that waits is written back as pending,
    /// its attempts unspent (with `untilIdle`, left leased until the run ends instead: nothing probes then).
    /// `credentials` is read once per turn by the caller (it sits behind the reload lock).
    func sendingCredential(
        for job: DeliveryJob, from credentials: CredentialSet, state: inout RunState, now: Date,
        untilIdle: Bool
    ) -> SendingCredential? {
        guard let credential = credentials.credential(for: job.content.bundleID) else {
            if state.unrouted.insert(job.content.bundleID).inserted {
                logger.error(
                    "worker.no_credential_for_topic", ("topic", job.content.bundleID),
                    (
                        "action",
                        "its deliveries stay pending: add the topic to an apns.credentials entry and reload (SIGHUP)"
                    ))
            }
            if !untilIdle {
                state.results.append(
                    DeliveryResult(
                        job, disposition: .retry(at: now.addingTimeInterval(configuration.retry.cap.seconds)),
                        reason: .noCredential, countsAsAttempt: false))
            }
            return nil
        }
        guard var pause = state.credentialPauses[credential.name] else { return credential }
        if !untilIdle && !pause.certificateExpired && pause.backoff.maySend(now: now) {
            pause.backoff.probeSent()
            state.credentialPauses[credential.name] = pause
            return credential
        }
        wait(job, of: credential.name, state: &state, now: now, untilIdle: untilIdle)
        return nil
    }

    /// `job` of a paused credential waits, unsent and its attempt not counted: written back as pending, due when
    /// the pause ends (with `untilIdle`, left leased and released when the run ends).
    func wait(_ job: DeliveryJob, of name: String, state: inout RunState, now: Date, untilIdle: Bool) {
        guard !untilIdle, let pause = state.credentialPauses[name] else { return }
        state.results.append(
            DeliveryResult(
                job, disposition: .retry(at: pause.due(now: now, unit: random())),
                httpStatus: pause.status, reason: pause.reason, countsAsAttempt: false))
    }

    /// APNs refused `name`'s credential (or its token could not be made): pauses its deliveries, or lengthens the
    /// pause when a probe was refused. Said once at error level per pause; later refusals at debug.
    func pauseCredential(_ name: String, status: Int?, reason: Reason, detail: String, state: inout RunState, now: Date)
    {
        let configuration = self.configuration
        var pause =
            state.credentialPauses[name]
            ?? CredentialPause(base: configuration.retry.base, cap: configuration.retry.cap)
        let first = !pause.backoff.isOut
        let until = pause.backoff.unreachable(now: now, unit: random())
        pause.status = status
        pause.reason = reason
        pause.detail = detail
        state.credentialPauses[name] = pause
        credentialStates.withLock { states in
            states[name, default: CredentialStatus(name: name)].paused = detail
            states[name]!.pausedSince = pause.backoff.since
            states[name]!.nextProbe = until
        }
        let probe = String(format: "%.1f", until.timeIntervalSince(now))
        if first {
            logger.error(
                "worker.credential_paused", ("credential", name), ("reason", detail), ("probe_in_seconds", probe),
                (
                    "action",
                    "its deliveries stay pending, attempts unspent; other credentials keep sending; fix it and reload (SIGHUP)"
                ))
        } else {
            logger.debug(
                "worker.credential_still_refused", ("credential", name), ("reason", detail), ("probe_in_seconds", probe)
            )
        }
    }

    /// `name`'s credential was answered (not refused) again: its deliveries go out again.
    func resumeCredential(_ name: String, state: inout RunState, now: Date) {
        guard let pause = state.credentialPauses.removeValue(forKey: name) else { return }
        credentialStates.withLock { states in
            states[name]?.paused = nil
            states[name]?.pausedSince = nil
            states[name]?.nextProbe = nil
        }
        logger.info(
            "worker.credential_resumed", ("credential", name),
            ("paused_seconds", String(format: "%.1f", pause.backoff.since.map { now.timeIntervalSince($0) } ?? 0)))
    }

    /// Days before a certificate expires from which the worker warns.
    static let certificateWarningDays = 30

    /// Looks at every certificate's expiry (at the start, then twice a day): from 30 days before, a warning; once
    /// expired, its credential is paused without probes (APNs refuses an expired certificate) until a reload.
    func checkCertificates(_ state: inout RunState, now: Date) {
        guard now >= state.nextCertificateCheck else { return }
        state.nextCertificateCheck = now.addingTimeInterval(12 * 3600)
        for credential in credentials.byName.values.sorted(by: { $0.name < $1.name }) {
            guard let notAfter = credential.certificateExpires else { continue }
            let expires = notAfter.formatted(.iso8601)
            if notAfter <= now {
                guard state.credentialPauses[credential.name]?.certificateExpired != true else { continue }
                pauseCredential(
                    credential.name, status: nil, reason: .badCertificate, detail: "certificate expired on \(expires)",
                    state: &state, now: now)
                state.credentialPauses[credential.name]?.certificateExpired = true
                continue
            }
            let days = Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
            if days < Self.certificateWarningDays {
                logger.warning(
                    "apns.certificate_expiring", ("credential", credential.name), ("days_left", String(days)),
                    ("not_after", expires),
                    ("action", "renew the APNs certificate and reload (SIGHUP) before it expires"))
            }
        }
    }

    /// A reload replaced the credentials: every pause ends (the next request of each tries the new settings).
    func endCredentialPauses(_ state: inout RunState, now: Date, why: String) {
        state.unrouted.removeAll()
        for name in state.credentialPauses.keys.sorted() { resumeCredential(name, state: &state, now: now) }
        credentialStates.withLock { $0 = Self.statuses(of: credentials) }
        state.nextCertificateCheck = now
    }
}
