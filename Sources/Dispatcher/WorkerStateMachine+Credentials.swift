import APNs
import Foundation
import Logging
import QueueModel

/// Credentials that cannot send: no credential for a topic, one APNs refused (paused, with probes), one whose
/// certificate expired, and a reload that ends every pause.
extension WorkerStateMachine {
    /// The credential to send `job` with, or nil when it must wait: no credential sends its topic, or its
    /// credential is paused (one probe goes when the pause ends). A job that waits is written back as pending,
    /// its attempts unspent (with `untilIdle`, left leased until the run ends instead: nothing probes then).
    mutating func sendingCredential(for job: DeliveryJob, now: Date, actions: inout [Action]) -> SendingCredential? {
        guard let credential = credentials.credential(for: job.content.bundleID) else {
            if unrouted.insert(job.content.bundleID).inserted {
                actions.append(
                    .log(
                        LogLine(
                            .error, "worker.no_credential_for_topic", ("topic", .string(job.content.bundleID)),
                            (
                                "action",
                                "its deliveries stay pending: add the topic to an apns.credentials entry and reload (SIGHUP)"
                            ))))
            }
            if !untilIdle {
                var result = DeliveryResult(
                    job, disposition: .retry(at: now.addingTimeInterval(configuration.retry.cap.seconds)),
                    reason: .noCredential, countsAsAttempt: false)
                result.held = true
                results.append(result)
            }
            return nil
        }
        guard var pause = credentialPauses[credential.name] else { return credential }
        if !untilIdle && !pause.certificateExpired && pause.backoff.maySend(now: now) {
            pause.backoff.probeSent()
            credentialPauses[credential.name] = pause
            return credential
        }
        wait(job, of: credential.name, now: now)
        return nil
    }

    /// `job` of a paused credential waits, unsent and its attempt not counted: written back as pending, claimable
    /// when the pause ends and still due since it first was (with `untilIdle`, left leased and released when the run
    /// ends).
    mutating func wait(_ job: DeliveryJob, of name: String, now: Date) {
        guard !untilIdle, let pause = credentialPauses[name] else { return }
        var result = DeliveryResult(
            job, disposition: .retry(at: pause.due(now: now, unit: random())), httpStatus: pause.status,
            reason: pause.reason, countsAsAttempt: false)
        result.held = true
        results.append(result)
    }

    /// APNs refused `name`'s credential (or its token could not be made): pauses its deliveries, or lengthens the
    /// pause when a probe was refused. Said once at error level per pause; later refusals at debug.
    mutating func pauseCredential(_ name: String, status: Int?, reason: Reason, detail: String, now: Date) -> [Action] {
        var pause =
            credentialPauses[name] ?? CredentialPause(base: configuration.retry.base, cap: configuration.retry.cap)
        let first = !pause.backoff.isOut
        let until = pause.backoff.unreachable(now: now, unit: random())
        pause.status = status
        pause.reason = reason
        pause.detail = detail
        credentialPauses[name] = pause
        let probe = Logger.Value.decimal(until.timeIntervalSince(now), places: 1)
        let line =
            first
            ? LogLine(
                .error, "worker.credential_paused", ("credential", .string(name)), ("reason", .string(detail)),
                ("probe_in_seconds", probe),
                (
                    "action",
                    "its deliveries stay pending, attempts unspent; other credentials keep sending; fix it and reload (SIGHUP)"
                ))
            : LogLine(
                .debug, "worker.credential_still_refused", ("credential", .string(name)), ("reason", .string(detail)),
                ("probe_in_seconds", probe))
        let status = CredentialPauseStatus(detail: detail, since: pause.backoff.since, nextProbe: until)
        return [.credentialStatus(name, status), .log(line)]
    }

    /// `name`'s credential was answered (not refused) again: its deliveries go out again.
    mutating func resumeCredential(_ name: String, now: Date) -> [Action] {
        guard let pause = credentialPauses.removeValue(forKey: name) else { return [] }
        let seconds = pause.backoff.since.map { now.timeIntervalSince($0) } ?? 0
        return [
            .credentialStatus(name, nil),
            .log(
                LogLine(
                    .info, "worker.credential_resumed", ("credential", .string(name)),
                    ("paused_seconds", .decimal(seconds, places: 1)))),
        ]
    }

    /// Looks at every certificate's expiry (at the start, then twice a day): from 30 days before, a warning; once
    /// expired, its credential is paused without probes (APNs refuses an expired certificate) until a reload.
    mutating func checkCertificates(now: Date) -> [Action] {
        guard now >= nextCertificateCheck else { return [] }
        nextCertificateCheck = now.addingTimeInterval(12 * 3600)
        var actions: [Action] = []
        for credential in credentials.byName.values.sorted(by: { $0.name < $1.name }) {
            guard let notAfter = credential.certificateExpires else { continue }
            let expires = Logger.timestamp(notAfter)
            if notAfter <= now {
                guard credentialPauses[credential.name]?.certificateExpired != true else { continue }
                actions += pauseCredential(
                    credential.name, status: nil, reason: .badCertificate, detail: "certificate expired on \(expires)",
                    now: now)
                credentialPauses[credential.name]?.certificateExpired = true
                continue
            }
            let days = Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
            if days < Self.certificateWarningDays {
                actions.append(
                    .log(
                        LogLine(
                            .warning, "apns.certificate_expiring", ("credential", .string(credential.name)),
                            ("days_left", .int(days)), ("not_after", .string(expires)),
                            ("action", "renew the APNs certificate and reload (SIGHUP) before it expires"))))
            }
        }
        return actions
    }

    /// A reload replaced the credentials: every pause ends (the next request of each tries the new settings).
    mutating func endCredentialPauses(now: Date) -> [Action] {
        unrouted.removeAll()
        var actions: [Action] = []
        for name in credentialPauses.keys.sorted() { actions += resumeCredential(name, now: now) }
        nextCertificateCheck = now
        return actions + [.resetCredentialStatuses]
    }
}
