import Foundation
import TestSupport
import Threads

/// Backends enqueueing through `apnsd serve` as the README's snippets do: each client posts one notification at a
/// time to a token of its own, with an idempotency key, and sends the same request again after a 503's
/// `Retry-After` (or shortly, when no answer came) until it is enqueued. Every answer is kept for the test to check.
final class EnqueueClients: Sendable {
    /// An answer that did not enqueue: when its request was sent, its status, `Retry-After`, error code and body.
    struct Refusal: Sendable {
        let client: Int
        let sentAt: Date
        let status: Int
        let retryAfter: String?
        let code: String?
        let body: String
    }

    private struct State {
        /// Enqueued notifications: token → notification id.
        var accepted: [String: String] = [:]
        var refusals: [Refusal] = []
        var unanswered = 0
        var stopping = false
    }

    private let base: String
    private let key: String
    private let firstToken: Int
    private let state = Locked(State())

    /// Client `c`'s `n`th notification goes to `Tokens.hex(firstToken + c * 1_000_000 + n)`.
    init(base: String, key: String, firstToken: Int) {
        self.base = base
        self.key = key
        self.firstToken = firstToken
    }

    /// Starts `count` clients; the task ends once `stop()` was called and each finished its notification.
    func start(_ count: Int) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<count { group.addTask { await self.run(client) } }
            }
        }
    }

    /// Each client enqueues no new notification after the one it is on.
    func stop() { state.withLock { $0.stopping = true } }

    var accepted: [String: String] { state.withLock { $0.accepted } }
    var refusals: [Refusal] { state.withLock { $0.refusals } }
    var unanswered: Int { state.withLock { $0.unanswered } }

    private func run(_ client: Int) async {
        var number = 0
        while !state.withLock({ $0.stopping }) {
            let token = Tokens.hex(firstToken + client * 1_000_000 + number)
            await enqueue(token, key: "restart-\(client)-\(number)", client: client)
            number += 1
        }
    }

    /// Sends until apnsd enqueued it (202, or 200 replaying an enqueue whose answer was lost); a refusal other than
    /// 503 is kept and not retried (nothing was enqueued).
    private func enqueue(_ token: String, key idempotencyKey: String, client: Int) async {
        let body = APIHarness.notification(token)
        while true {
            let sentAt = Date()
            let answer = await HTTPClient.request(
                "POST", base + "/v1/notifications",
                headers: [
                    "Authorization: Bearer \(key)", "Content-Type: application/json",
                    "Idempotency-Key: \(idempotencyKey)",
                ], body: body)
            guard let answer else {
                state.withLock { $0.unanswered += 1 }
                try? await Task.sleep(for: .milliseconds(200))
                continue
            }
            let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
            if answer.status == 202 || answer.status == 200, let id = object?["id"] as? String {
                state.withLock { $0.accepted[token] = id }
                return
            }
            let refusal = Refusal(
                client: client, sentAt: sentAt, status: answer.status, retryAfter: answer.headers["retry-after"],
                code: (object?["error"] as? [String: Any])?["code"] as? String, body: answer.body)
            state.withLock { $0.refusals.append(refusal) }
            guard answer.status == 503 else { return }
            let delay = refusal.retryAfter.flatMap(Double.init) ?? 1
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        }
    }
}
