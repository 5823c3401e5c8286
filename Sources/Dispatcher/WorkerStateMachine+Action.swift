import APNs
import Foundation
import HTTP2Transport
import ProviderAuth
import QueueModel

/// What the machine asks of its driver, and what comes back.
extension WorkerStateMachine {
    /// What the driver does for the machine; a store call's result comes back through the event it names.
    enum Action {
        /// Send `job` with `credential`; `expired`: mint a token after this one, which APNs said had expired.
        /// The answer comes back as `answered`.
        case send(DeliveryJob, SendingCredential, expired: ProviderToken?)
        /// Take this worker's requests of `groups` back from the transport (`andLater`: their later sends too);
        /// then `withdrew`.
        case withdraw(groups: Set<Int64>, andLater: Bool, Withdrawal)
        /// `heartbeat`, then `heartbeatAnswered`.
        case heartbeat
        /// `rescueStaleWorkers`, then `rescued`.
        case rescue
        /// `workers`, each with what this host sees of its process, then `workersSeen`.
        case readWorkers
        /// `takeOver` of these dead workers' leases, then `tookOver`.
        case takeOver([WorkerID])
        /// Register again under a new id (another worker took the leases over), then `reregistered`.
        case register(lost: WorkerID, dropped: Int)
        /// `cancelRequests(after:)`, then `cancelsRead`.
        case readCancels(after: Int64)
        /// `acknowledgeCancels`, then `cancelsAcknowledged`.
        case acknowledgeCancels([(request: CancelRequest, inFlight: Int)], upTo: Int64)
        /// `pausedCampaigns`, then `pausesRead`.
        case readPauses
        /// Give these leases back to the store.
        case release([DeliveryID])
        /// `changeCount`, then `changeCountRead`.
        case readChangeCount(ChangeCheck)
        /// `expandDueCampaigns` one page leasing up to `limit` of it to this worker, log the campaigns it started,
        /// then `expanded`.
        case expand(pageSize: Int, limit: Int)
        /// Read the commit signal and change count, `claim`, then `claimed`.
        case claim(limit: Int)
        /// `claimSingles`, then `singlesClaimed`.
        case claimSingles(limit: Int)
        /// `nextDueDate` and `workers` (as `readWorkers`), then `nextDatesFound`.
        case findNextDates
        /// Write these outcomes, then `recorded`.
        case record([DeliveryResult])
        /// Write these outcomes (if any) and heartbeat, then `recovered` (or `recoveryFailed`).
        case recover([DeliveryResult])
        /// Log these bulk campaigns as finished (their counts are read from the store).
        case logFinished([CampaignID])
        /// Read the connections' states, then `connectionsSampled`.
        case sampleConnections
        case log(LogLine)
        /// Connection attempts to `environment` failed for `reason`: tell the observer.
        case connectFailed(Environment, ConnectFailureReason, count: Int)
        /// `/readyz` and metrics: this credential is paused (with why and until when) or sends (`nil`).
        case credentialStatus(String, CredentialPauseStatus?)
        /// The credentials were replaced: every status starts again from them.
        case resetCredentialStatuses
        /// Ask the machine for what follows once the actions before it are done (`resume`).
        case then(Step)

        /// Whether carrying it out calls the store (skipped while a storage fault lasts).
        var callsStore: Bool {
            switch self {
            case .heartbeat, .rescue, .readWorkers, .takeOver, .register, .readCancels, .acknowledgeCancels,
                .readPauses, .release, .readChangeCount, .expand, .claim, .claimSingles, .findNextDates, .record,
                .logFinished:
                return true
            case .send, .withdraw, .recover, .sampleConnections, .log, .connectFailed, .credentialStatus,
                .resetCredentialStatuses, .then:
                return false
            }
        }
    }

    /// Why requests were withdrawn: what `withdrew` does next.
    enum Withdrawal {
        case stopping(why: String, dropped: Int)
        case leasesLost(dropped: Int)
        case cancelled(CampaignID, dropped: Int)
    }

    /// What a change count was read for.
    enum ChangeCheck {
        /// Waiting for the next claim with nothing queued.
        case idle
        /// Busy with bulk work: a single send may have come in.
        case singles
    }

    /// Points the machine resumes at, after the actions before them are done.
    enum Step {
        /// The cancels were taken in: write what is answered, then acknowledge them.
        case acknowledgeCancels([CancelRequest])
        /// The change count was read: claim if it is due.
        case claim
        /// The change count was read while busy: claim single sends if any came in.
        case claimSingles
    }

    /// A paused credential's state, for `/readyz`.
    struct CredentialPauseStatus: Hashable {
        var detail: String
        var since: Date?
        var nextProbe: Date
    }

    /// What sending a job gave.
    struct Sent: Sendable {
        /// nil when no provider token could be made: nothing was sent.
        var result: TransportResult?
        /// The token it carried (nil for a certificate).
        var token: ProviderToken?
        /// The token was minted again after APNs said the last one had expired.
        var tokenMinted = false
        /// The provider token could not be made.
        var tokenFailure: ProviderAuthError?
    }

    /// The outcome of one request handed to the transport, with the job and credential it was for.
    struct Answer: Sendable {
        var job: DeliveryJob
        var credential: SendingCredential
        var sent: Sent

        init(job: DeliveryJob, credential: SendingCredential, sent: Sent) {
            self.job = job
            self.credential = credential
            self.sent = sent
        }

        init(
            job: DeliveryJob, credential: SendingCredential, result: TransportResult? = nil,
            token: ProviderToken? = nil,
            tokenMinted: Bool = false, tokenFailure: ProviderAuthError? = nil
        ) {
            self.init(
                job: job, credential: credential,
                sent: Sent(result: result, token: token, tokenMinted: tokenMinted, tokenFailure: tokenFailure))
        }

        var result: TransportResult? { sent.result }
        var token: ProviderToken? { sent.token }
        var tokenMinted: Bool { sent.tokenMinted }
        var tokenFailure: ProviderAuthError? { sent.tokenFailure }

        /// Whether the request went on the wire.
        var wasSent: Bool {
            guard let result else { return false }
            if case .failure(let error) = result, !error.requestWasSent { return false }
            return true
        }
    }
}
