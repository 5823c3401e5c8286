import Foundation
import HTTP2Transport
import Intake
import Logging
import ProviderAuth
import QueueModel

/// Delivers the event feed to `webhook.url`: events after the store's webhook cursor, POSTed as
/// `{"events":[…]}` in batches, signed `X-Apnsd-Signature: sha256=<hex HMAC-SHA256 of the body>`. A batch is
/// retried with jittered exponential backoff until a 2xx, and only then is the cursor advanced: nothing is lost
/// across restarts, and a batch whose 2xx was not recorded (a crash in between) is sent again.
public actor WebhookSender {
    /// How the sender behaves; the defaults are the production ones, tests shorten them.
    public struct Options: Sendable {
        /// Events per POST.
        public var batchSize = 500
        /// The first retry waits up to this; each further one twice as long, up to `retryCap`.
        public var retryBase: Duration = .seconds(1)
        public var retryCap: Duration = .seconds(60)
        /// How often the store is read for events another process wrote (this one's wake the sender at once).
        public var pollInterval: Duration = .seconds(1)
        /// The POST's timeouts and CA; a stop waits for a POST in flight.
        public var post = HTTPExchange()

        public init() {}
    }

    private let store: any EventStore
    private let url: String
    private let secret: String
    private let options: Options
    private let logger: Logger
    private var task: Task<Void, Never>?
    /// Why the last POST (or reading the events) failed; nil once a batch is delivered, or before any failure.
    public private(set) var lastError: String?

    /// A sender of `store`'s events to `url`, signed with `secret` (never logged).
    public init(store: any EventStore, url: String, secret: String, logger: Logger, options: Options = Options()) {
        self.store = store
        self.url = url
        self.secret = secret
        self.options = options
        self.logger = logger.with("webhook.url", .string(url))
    }

    /// Starts sending in a task of its own (once), woken by every commit of `store` that writes events.
    public func start() async {
        guard task == nil else { return }
        task = Task { await self.run() }
    }

    /// Stops sending and waits for the task to end (a POST in flight runs to its answer or timeout first).
    public func stop() async {
        guard let task else { return }
        task.cancel()
        await task.value
        self.task = nil
    }

    /// Wakes the sender to look for events at once.
    public nonisolated func notify() { store.eventCommits.notify() }

    /// The signature header's value for `body`.
    public static func signature(of body: [UInt8], secret: String) -> String {
        "sha256=" + HMACSHA256.hex(key: Array(secret.utf8), message: body)
    }

    private func run() async {
        var cursor: EventID?
        var loaded = false
        var failures = 0
        while !Task.isCancelled {
            let seen = store.eventCommits.current
            let events: [Event]
            do {
                if !loaded {
                    cursor = try await store.webhookCursor()
                    loaded = true
                }
                events = try await store.events(after: cursor, limit: options.batchSize)
            } catch {
                failures += 1
                await pause(after: failures, status: nil, detail: "reading events: \(error.description)")
                continue
            }
            guard let last = events.last else {
                await store.eventCommits.wait(whileAt: seen, timeout: options.pollInterval)
                continue
            }
            let body = Array(Event.webhookBody(events).utf8)
            let headers = [
                (name: "Content-Type", value: "application/json"),
                (name: "X-Apnsd-Signature", value: Self.signature(of: body, secret: secret)),
            ]
            do {
                let response = try await options.post.send(url: url, headers: headers, body: body)
                guard response.isSuccess else {
                    failures += 1
                    await pause(after: failures, status: response.status, detail: "")
                    continue
                }
                try await store.advanceWebhookCursor(to: last.id, now: Date())
                cursor = last.id
                failures = 0
                lastError = nil
                logger.info(
                    "webhook.delivered", ("events", .int(events.count)), ("cursor", .string(last.id.description)),
                    ("status", .int(response.status)))
            } catch let error as TransportError {
                failures += 1
                await pause(after: failures, status: nil, detail: error.description)
            } catch {
                // Delivered, but the cursor was not recorded: the batch goes again (at least once).
                failures += 1
                await pause(after: failures, status: nil, detail: "cursor not stored: \(error)")
            }
        }
    }

    /// Logs `webhook.failed` (with the HTTP status when there was an answer) and sleeps the jittered backoff of the
    /// `failures`-th failure in a row.
    private func pause(after failures: Int, status: Int?, detail: String) async {
        lastError = status.map { "HTTP \($0)" + (detail.isEmpty ? "" : ": \(detail)") } ?? detail
        let delay = Self.backoff(
            failures: failures, base: options.retryBase, cap: options.retryCap, random: Double.random(in: 0...1))
        logger.log(
            .warning, "webhook.failed",
            (status.map { [("status", .int($0))] } ?? [])
                + [
                    ("error", .string(detail)), ("failures", .int(failures)),
                    ("retry.in_ms", .int(Int(delay / .milliseconds(1)))),
                ])
        try? await Task.sleep(for: delay)
    }

    /// The `failures`-th retry's wait: a bound that doubles from `base` to `cap`, of which a random half is taken
    /// (`random` in 0…1), so that many senders do not retry in step.
    static func backoff(failures: Int, base: Duration, cap: Duration, random: Double) -> Duration {
        let bound = min(cap, base * Double(1 << min(max(failures - 1, 0), 30)))
        return bound * (0.5 + 0.5 * random)
    }
}
