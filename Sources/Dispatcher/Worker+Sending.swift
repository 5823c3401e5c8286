import APNs
import Foundation
import HTTP2Transport
import ProviderAuth
import QueueModel
import Threads

extension Worker {
    /// Sends one job with `credential`: with a provider token from its cache, or minted again after `expired`,
    /// which APNs said had expired (the decision to mint again is `DeliveryDecision`'s).
    func send(_ job: DeliveryJob, with credential: SendingCredential, after expired: ProviderToken?) async
        -> WorkerStateMachine.Sent
    {
        let key = credential.poolKey(job.environment)
        guard case .token(let tokens, _, _, _) = credential.authorization else {
            return .init(result: await transmit(APNsRequest(job: job, authorization: nil), on: key, for: job))
        }
        let token: ProviderToken
        do {
            if let expired {
                token = try await tokens.tokenAfterExpired(expired)
            } else {
                token = try await tokens.token()
            }
        } catch {
            return .init(tokenFailure: error)
        }
        let result = await transmit(
            APNsRequest(job: job, authorization: token.authorizationHeader), on: key, for: job)
        return .init(result: result, token: token, tokenMinted: expired != nil)
    }

    /// Sends one request on the transport, telling the observer how it went.
    /// Only requests that were written count as requests to APNs (with the time from their first byte written to
    /// the answer, and the job's wait from due to written); one that could not connect is a failed connection
    /// attempt, counted by the transport.
    private func transmit(_ request: APNsRequest, on key: PoolKey, for job: DeliveryJob) async -> TransportResult {
        let start = clock()
        let exchange = await transport.exchange(request, on: key)
        let answer = exchange.result
        // Taken back or cut by our own stop: says nothing about APNs.
        if case .failure(let error) = answer, error.kind == .withdrawn || error.kind == .shutdown { return answer }
        let end = clock()
        let seconds = exchange.latency.map { $0.seconds } ?? max(0, end.timeIntervalSince(start))
        if let latency = exchange.latency {
            observer?.apnsAnswered(key.environment, status: answer.status, seconds: seconds)
            // Written when its first byte went: the answer's time less the latency.
            let written = end.addingTimeInterval(-latency.seconds)
            observer?.queueWaited(job.kind, seconds: max(0, written.timeIntervalSince(job.dueAt)))
        }
        logAnswer(job, answer, seconds: seconds)
        return answer
    }
}
