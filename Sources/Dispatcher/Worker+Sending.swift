import APNs
import Foundation
import HTTP2Transport
import ProviderAuth
import QueueModel
import Threads

extension Worker {
    /// Hands one job to the transport with `credential`; its answer arrives in `inbox`. The provider token is the
    /// cache's current one, or one minted again after `expired`, which APNs said had expired (the decision to mint
    /// again is `DeliveryDecision`'s).
    func dispatch(_ job: DeliveryJob, with credential: SendingCredential, after expired: ProviderToken?) async {
        var token: ProviderToken?
        var failure: ProviderAuthError?
        if case .token(let tokens, _, _, _) = credential.authorization {
            do {
                if let expired {
                    token = try await tokens.tokenAfterExpired(expired)
                } else if let current = tokens.currentToken() {
                    token = current
                } else {
                    token = try await tokens.token()
                }
            } catch {
                failure = error
            }
        }
        let request = AnswerInbox.Request(
            job: job, credential: credential, token: token, tokenMinted: expired != nil, inbox: inbox, clock: clock)
        if let failure { return request.unsent(failure) }
        transport.submit(
            APNsRequest(job: job, authorization: token?.authorizationHeader), on: credential.poolKey(job.environment),
            completion: request.answered)
    }

    /// Tells the observer and the log how one request went.
    /// Only requests that were written count as requests to APNs (with the time from their first byte written to
    /// the answer, and the job's wait from due to written); one that could not connect is a failed connection
    /// attempt, counted by the transport.
    func report(_ reply: AnswerInbox.Reply) {
        guard let exchange = reply.exchange else { return }
        let (job, answer) = (reply.request.job, exchange.result)
        // Taken back or cut by our own stop: says nothing about APNs.
        if case .failure(let error) = answer, error.kind == .withdrawn || error.kind == .shutdown { return }
        let seconds =
            exchange.latency.map { $0.seconds } ?? max(0, reply.answered.timeIntervalSince(reply.request.submitted))
        if let latency = exchange.latency {
            observer?.apnsAnswered(job.environment, status: answer.status, seconds: seconds)
            // Written when its first byte went: the answer's time less the latency.
            let written = reply.answered.addingTimeInterval(-latency.seconds)
            observer?.queueWaited(job.kind, seconds: max(0, written.timeIntervalSince(job.dueAt)))
        }
        logAnswer(job, answer, seconds: seconds)
    }
}
