import Foundation
import HTTP2Transport
import ProviderAuth
import QueueModel
import Threads

/// Where the transport leaves the worker's answers, from the connections' threads, and where the worker's loop
/// waits for them. The loop takes everything that came in at once, so one turn handles a batch of answers, and a
/// request in flight is a closure the transport holds rather than a task of its own.
final class AnswerInbox: Sendable {
    /// One request handed to the transport: what the worker needs back with its answer. A class, so that the
    /// transport's completion holds one reference (`answered`, no closure context) and posting copies no job.
    final class Request: Sendable {
        let job: DeliveryJob
        let credential: SendingCredential
        /// The provider token it carries (nil for a certificate).
        let token: ProviderToken?
        /// The token was minted again after APNs said the last one had expired.
        let tokenMinted: Bool
        /// When it was handed to the transport (the worker's clock).
        let submitted: Date
        private let inbox: AnswerInbox
        private let clock: @Sendable () -> Date

        init(
            job: DeliveryJob, credential: SendingCredential, token: ProviderToken?, tokenMinted: Bool,
            inbox: AnswerInbox, clock: @escaping @Sendable () -> Date
        ) {
            self.job = job
            self.credential = credential
            self.token = token
            self.tokenMinted = tokenMinted
            self.inbox = inbox
            self.clock = clock
            submitted = clock()
        }

        /// The transport's completion: posts the answer.
        func answered(_ exchange: TransportAnswer) {
            inbox.post(Reply(request: self, exchange: exchange, tokenFailure: nil, answered: clock()))
        }

        /// No provider token could be made: nothing is sent.
        func unsent(_ failure: ProviderAuthError) {
            inbox.post(Reply(request: self, exchange: nil, tokenFailure: failure, answered: submitted))
        }
    }

    /// One request's answer as the transport gave it, or why it was never sent.
    struct Reply: Sendable {
        var request: Request
        /// What the transport said; nil when no provider token could be made (`tokenFailure`).
        var exchange: TransportAnswer?
        var tokenFailure: ProviderAuthError?
        /// When the answer came back (the worker's clock).
        var answered: Date

        /// The answer as the worker's state machine takes it.
        var answer: WorkerStateMachine.Answer {
            .init(
                job: request.job, credential: request.credential, result: exchange?.result, token: request.token,
                tokenMinted: request.tokenMinted, tokenFailure: tokenFailure)
        }
    }

    /// What the loop takes in one go: the replies in the order they came, and whether its wake-up fired.
    struct Batch {
        var replies: [Reply] = []
        var woke = false
    }

    private struct State {
        var batch = Batch()
        var waiter: UnsafeContinuation<Void, Never>?
        var isEmpty: Bool { batch.replies.isEmpty && !batch.woke }
    }
    private let state = Locked(State())

    func post(_ reply: Reply) {
        let waiter = state.withLock { state in
            state.batch.replies.append(reply)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The loop's wake-up (a deadline, a commit in this process, a look at `shouldStop`) fired.
    func wake() {
        let waiter = state.withLock { state in
            state.batch.woke = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Waits until something came in, then moves it into `batch` (which must be empty; the two swap, keeping their
    /// capacity). One task waits at a time: the worker's loop.
    func take(into batch: inout Batch) async {
        let taken = state.withLock { state in
            if !state.isEmpty { swap(&state.batch, &batch) }
            return batch.woke || !batch.replies.isEmpty
        }
        if taken { return }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.isEmpty { state.waiter = continuation }
                return !state.isEmpty
            }
            if ready { continuation.resume() }
        }
        state.withLock { swap(&$0.batch, &batch) }
    }
}
