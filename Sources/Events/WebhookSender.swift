import Foundation
import HTTP2Transport
import Intake
import Logging
import QueueModel
import QueueRules

/// Delivers the event feed to `webhook.url`: events after the store's webhook cursor, POSTed as
/// `{"events":[…]}` in batches, signed afresh at every attempt (`WebhookSigning`). A batch is retried with jittered
/// exponential backoff until a 2xx, and only then is the cursor advanced: nothing is lost across restarts, and a
/// batch whose 2xx was not recorded (a crash in between) is sent again. A batch the receiver keeps refusing is
/// parked (`WebhookParking`: `webhook.maxAttempts` refusals and an hour of failing) so that later events go on;
/// `apnsd webhook retry` sends parked batches again (`retryParked`).
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
        /// When a batch the receiver refuses is parked.
        public var parking = WebhookParking()
        /// `webhook.maxAttempts`: `parking`'s refusals before a batch may be parked.
        public var maxAttempts: Int {
            get { parking.maxAttempts }
            set { parking.maxAttempts = newValue }
        }
        /// The time signatures carry and parking is decided on.
        public var clock: @Sendable () -> Date = { Date() }

        public init() {}
    }

    private let store: any EventStore
    private let url: String
    private let signing: WebhookSigning
    private let options: Options
    private let logger: Logger
    private let parked: @Sendable (ParkedWebhookBatch) -> Void
    private var task: Task<Void, Never>?
    /// Why the last POST (or reading the events) failed; nil once a batch is delivered, or before any failure.
    public private(set) var lastError: String?

    /// A sender of `store`'s events to `url`, signed as `signing` says (secrets never logged; the URL logged
    /// without its query or user). `parked` is told of every batch parked (for the metrics).
    public init(
        store: any EventStore, url: String, signing: WebhookSigning, logger: Logger, options: Options = Options(),
        parked: @escaping @Sendable (ParkedWebhookBatch) -> Void = { _ in }
    ) {
        self.store = store
        self.url = url
        self.signing = signing
        self.options = options
        self.parked = parked
        self.logger = logger.with("webhook.url", .string(Self.redacted(url)))
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

    /// `url` as logs and messages show it: without its query string, fragment and user information (a token in
    /// the URL stays out of the journal).
    public static func redacted(_ url: String) -> String {
        var text = Substring(url)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        guard let scheme = text.range(of: "://") else { return String(text) }
        let authorityEnd = text[scheme.upperBound...].firstIndex(of: "/") ?? text.endIndex
        if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
            return String(text[..<scheme.upperBound]) + String(text[text.index(after: at)...])
        }
        return String(text)
    }

    private func run() async {
        var cursor: EventID?
        var loaded = false
        var failures = 0
        var failure: WebhookFailure?
        while !Task.isCancelled {
            let seen = store.eventCommits.current
            let events: [Event]
            do {
                if !loaded {
                    cursor = try await store.webhookCursor()
                    failure = try await store.webhookFailure()
                    loaded = true
                }
                events = try await store.events(after: cursor, limit: options.batchSize)
            } catch {
                failures += 1
                await pause(after: failures, status: nil, detail: "reading events: \(error.description)")
                continue
            }
            guard let first = events.first, let last = events.last else {
                await store.eventCommits.wait(whileAt: seen, timeout: options.pollInterval)
                continue
            }
            let body = Array(Event.webhookBody(events).utf8)
            let status: Int?
            let detail: String
            do {
                let response = try await options.post.send(
                    url: url, headers: signing.headers(body: body, at: options.clock()), body: body)
                if response.isSuccess {
                    do {
                        try await store.advanceWebhookCursor(to: last.id, now: options.clock())
                    } catch {
                        // Delivered, but the cursor was not recorded: the batch goes again (at least once).
                        failures += 1
                        await pause(after: failures, status: nil, detail: "cursor not stored: \(error)")
                        continue
                    }
                    cursor = last.id
                    failures = 0
                    failure = nil
                    lastError = nil
                    logger.info(
                        "webhook.delivered", ("events", .int(events.count)),
                        ("cursor", .string(last.id.description)), ("status", .int(response.status)))
                    continue
                }
                status = response.status
                detail = ""
            } catch {
                status = nil
                detail = error.description.replacingOccurrences(of: url, with: Self.redacted(url))
            }
            failures += 1
            let failed = options.parking.failed(
                failure, first: first.id, last: last.id, events: events.count, status: status,
                error: Self.describe(status: status, detail: detail), now: options.clock())
            failure = failed
            if options.parking.parks(failed, now: options.clock()), await park(failed) {
                // Parked here, or passed by another process: go on from the stored cursor.
                loaded = false
                failure = nil
                failures = 0
                continue
            }
            do { try await store.recordWebhookFailure(failed) } catch {
                logger.warning("webhook.failure_not_stored", ("error", .string(error.description)))
            }
            await pause(after: failures, status: status, detail: detail)
        }
    }

    /// Parks `failure`'s batch; true too when the cursor was already past it, false (logged) when the store failed.
    private func park(_ failure: WebhookFailure) async -> Bool {
        do {
            guard let batch = try await store.parkWebhookBatch(failure, now: options.clock()) else { return true }
            logger.warning(
                "webhook.parked", ("batch", .string(String(batch.id))), ("events", .int(batch.events)),
                ("first", .string(batch.first.description)), ("last", .string(batch.last.description)),
                ("attempts", .int(batch.attempts)), ("error", .string(batch.lastError)))
            parked(batch)
            return true
        } catch {
            logger.warning("webhook.park_failed", ("error", .string(error.description)))
            return false
        }
    }

    /// A failure as `lastError` and `webhook status` show it.
    static func describe(status: Int?, detail: String) -> String {
        status.map { "HTTP \($0)" + (detail.isEmpty ? "" : ": \(detail)") } ?? detail
    }

    /// Logs `webhook.failed` (with the HTTP status when there was an answer) and sleeps the jittered backoff of the
    /// `failures`-th failure in a row.
    private func pause(after failures: Int, status: Int?, detail: String) async {
        lastError = Self.describe(status: status, detail: detail)
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
