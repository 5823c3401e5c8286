import APNs
import Channels
import Events
import Foundation
import HTTPServer
import Logging
import Metrics
import QueueModel
import Threads

/// What the API needs to know of the configuration.
public struct APISettings: Sendable {
    /// `apns.topic`: the topic of notifications and campaigns that name none.
    public var defaultTopic: String?
    /// `worker.lease`: a worker whose heartbeat is older is not waited for by a cancel.
    public var lease: Duration
    /// Which credential sends which topic (`apns.credentials`): a topic none sends is refused at enqueue. nil: no
    /// credential configured here, no topic refused.
    public var topicRoutes: TopicRoutes?
    /// `api.maxLongPolls`: `GET /v1/events` requests waiting at once; more are answered at once.
    public var maxLongPolls: Int
    /// `api.maxLongPollsPerKey`: of those, how many one API key may hold.
    public var maxLongPollsPerKey: Int

    public init(
        defaultTopic: String?, lease: Duration, topicRoutes: TopicRoutes? = nil, maxLongPolls: Int = 256,
        maxLongPollsPerKey: Int = 16
    ) {
        self.defaultTopic = defaultTopic
        self.lease = lease
        self.topicRoutes = topicRoutes
        self.maxLongPolls = maxLongPolls
        self.maxLongPollsPerKey = maxLongPollsPerKey
    }
}

/// apnsd's HTTP API (`apnsd serve`): routes each request, checks its API key and scope, answers JSON, and counts
/// it in the metrics. The validation and JSON shapes are Intake's, as the CLI's are.
public final class API: Sendable {
    let store: any ProducerStore & APIKeyStore
    let events: EventFeed
    let metrics: APNsdMetrics
    private let initialSettings: APISettings
    let readiness: @Sendable () async -> [(String, String)]
    let status: @Sendable () async -> String
    let refreshMetrics: @Sendable () async -> Void
    /// What a SIGHUP reload of the credentials replaces (`reloadCredentials`).
    private let reloadable: Locked<(channels: ChannelManager?, topicRoutes: TopicRoutes?)>
    let authenticator: Authenticator
    let enqueueQueue: EnqueueQueue
    let rates = CampaignRates()
    let longPolls: LongPollBudget
    /// `api.accessLog`: one line per request (nil: off).
    let accessLog: Logger?
    static let router = Router(routes)

    /// `readiness` answers `/readyz`'s checks ("ok" or a reason each) and `status` `/v1/status`'s object
    /// (`StatusReport`); `refreshMetrics` updates the sampled gauges
    /// before each `/metrics` render. An in-process worker learns of new work from its store's own commit signal,
    /// so the API needs no hook for it. `accessLog` gets one `api.request` line per request, whatever its level.
    public init(
        store: any ProducerStore & APIKeyStore, events: EventFeed, metrics: APNsdMetrics, settings: APISettings,
        readiness: @escaping @Sendable () async -> [(String, String)],
        status: @escaping @Sendable () async -> String,
        refreshMetrics: @escaping @Sendable () async -> Void = {}, channels: ChannelManager? = nil,
        accessLog: Logger? = nil
    ) {
        self.accessLog = accessLog
        reloadable = Locked((channels, settings.topicRoutes))
        self.store = store
        self.events = events
        self.metrics = metrics
        initialSettings = settings
        self.readiness = readiness
        self.status = status
        self.refreshMetrics = refreshMetrics
        authenticator = Authenticator(store: store)
        enqueueQueue = EnqueueQueue(store: store)
        longPolls = LongPollBudget(total: settings.maxLongPolls, perKey: settings.maxLongPollsPerKey)
    }

    /// Long polls (`GET /v1/events` with a wait) waiting now.
    public var longPollsWaiting: Int { longPolls.inUse }

    /// The settings, with the topic routes of the credentials loaded last.
    var settings: APISettings {
        var settings = initialSettings
        settings.topicRoutes = reloadable.withLock { $0.topicRoutes }
        return settings
    }

    /// Broadcast channel management (`/v1/channels`) with the credentials loaded last; nil when none is configured.
    var channels: ChannelManager? { reloadable.withLock { $0.channels } }

    /// After a SIGHUP rebuilt the credentials: channel management and the topics refused at enqueue follow them.
    public func reloadCredentials(channels: ChannelManager?, topicRoutes: TopicRoutes?) {
        reloadable.withLock { $0 = (channels, topicRoutes) }
    }

    /// The HTTP server's own answers (a head refused, a body over its limit, a request during a stop, too many
    /// connections or bodies in flight) in the API's error format; the API's credentials and idempotency keys come
    /// once per request.
    public static var serverOptions: HTTPServer.Options {
        var options = HTTPServer.Options()
        options.refused = { APIError($0.status, $0.code, $0.message).response }
        options.limits.singleHeaders.formUnion(["authorization", "idempotency-key"])
        options.tooLarge =
            APIError(
                413, "body_too_large",
                "the body is over this route's limit: 1 MiB, 64 MiB on the batch and campaign routes"
            ).response
        options.unavailable =
            APIError(
                503, "shutting_down", "apnsd is stopping; retry on another instance or shortly",
                headers: [("Retry-After", "1")]
            ).response
        options.busy =
            APIError(
                503, "too_many_connections",
                "apnsd has api.maxConnections connections open; retry shortly (/healthz, /readyz and /metrics are "
                    + "still answered)",
                headers: [("Retry-After", "1")]
            ).response
        options.bodiesBusy =
            APIError(
                503, "too_many_bodies_in_flight",
                "apnsd holds api.maxBodyBytesInFlight bytes of request bodies; retry shortly",
                headers: [("Retry-After", "1")]
            ).response
        return options
    }

    /// Ends waiting long polls (`GET /v1/events`) so a stopping server answers them at once.
    public func beginShutdown() { events.close() }

    /// The body limit of a request, decided before its body is read (the server answers 413 beyond it).
    public func bodyLimit(method: String, path: String) -> Int {
        if case .found(let route, _) = Self.router.match(method: method, path: path) { return route.bodyLimit }
        return Route.defaultBodyLimit
    }

    /// Every API route's method and template (the OpenAPI document's test checks each is documented): all but the
    /// console's files.
    public static var routeTemplates: [(method: String, template: String)] {
        router.all.filter(\.documented).map { ($0.method, $0.template) }
    }

    /// Answers one request.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let start = ContinuousClock.now
        let (template, key, response) = await answer(request)
        record(request.method, template, key, response, since: start)
        return response
    }

    /// Counts an answered request in the metrics and writes its access log line.
    func record(
        _ method: String, _ template: String, _ key: String?, _ response: HTTPResponse,
        since start: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - start
        metrics.httpRequest(route: template, code: response.status, seconds: elapsed.seconds)
        // The route's template, never the path (it may hold a device token); the key's name, never its secret.
        let replay = response.headers["Idempotent-Replayed"] == "true"
        logAccess(
            method, template, response.status, elapsed.seconds,
            (key.map { [("api_key", .string($0))] } ?? []) + [("replay", .bool(replay))])
    }

    /// Counts and logs an answer the HTTP server gave by itself (`HTTPServer.Options.answeredByServer`): a head
    /// refused, a body over its limit or the budget, a connection past the cap, a stop. Its route is the template
    /// the path matches, or `unmatched`; its log line says why (`refused`).
    public func recordServerAnswer(_ answer: ServerAnswer) {
        let template = answer.path.map { Self.router.match(method: answer.method, path: $0).template } ?? "unmatched"
        metrics.httpAnsweredByServer(route: template, code: answer.status)
        logAccess(answer.method, template, answer.status, 0, [("refused", .string(answer.reason))])
    }

    private func logAccess(
        _ method: String, _ template: String, _ status: Int, _ seconds: Double, _ more: [(String, Logger.Value)]
    ) {
        guard let accessLog else { return }
        let fields: [(String, Logger.Value)] = [
            ("method", .string(method)), ("route", .string(template)), ("status", .int(status)),
            ("duration_ms", .decimal(seconds * 1000, places: 3)),
        ]
        accessLog.log(.info, "api.request", fields + more, always: true)
    }

    /// The route's template (`unmatched` when none), the name of the API key that was accepted (nil: none, or
    /// refused) and the response.
    private func answer(_ request: HTTPRequest) async -> (String, String?, HTTPResponse) {
        switch Self.router.match(method: request.method, path: request.path) {
        case .notFound:
            return ("unmatched", nil, Self.unrouted(request.path))
        case .methodNotAllowed(let template, let allowed):
            return (template, nil, Self.notAllowed(template, allowed, request.method))
        case .found(let route, let parameters):
            var matched = APIRequest(http: request, parameters: parameters, key: nil)
            do throws(APIError) {
                matched.key = try await authorize(route, request.headers)
                return (route.template, matched.key?.name, try await route.handler(self, matched))
            } catch {
                return (route.template, matched.key?.name, error.response)
            }
        }
    }
}
