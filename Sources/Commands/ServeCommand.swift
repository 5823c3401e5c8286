import API
import APNs
import Dispatcher
import Events
import Foundation
import HTTPServer
import Intake
import Logging
import Metrics
import QueueModel
import Threads

/// `apnsd serve [--no-worker]`: the HTTP API and (unless --no-worker) the worker in one process. The first line
/// on stdout is `listening on http(s)://HOST:PORT`; SIGINT/SIGTERM stop accepting, finish open requests, drain the
/// worker as `apnsd worker` does, close the store and exit 0.
enum ServeCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let stops = StopRequests.forThisCommand()
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["no-worker"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let listen: ListenAddress
        do { listen = try ListenAddress(parsing: configuration.apiListen) } catch {
            throw .usage("api.listen: \(error)")
        }
        let tls = try tlsPEM(configuration)
        // The secret is read now (webhook.secretFile), so that one that cannot be read stops serve before it starts.
        let signing = configuration.webhookConfigured ? try configuration.webhookSigning() : nil
        let setup = arguments.flag("no-worker") ? nil : try WorkerSetup(configuration)
        let level = configuration.loggerLevel
        let logger = Logger(label: "apnsd.serve", minimumLevel: level)
        let store = try await StoreAccess.openForServe(configuration)
        let workerState = setup == nil ? nil : WorkerState()
        let readiness = Readiness(store: store, worker: workerState)
        // The webhook sender starts after the server; `/v1/status` reads its last error once it runs.
        let webhookSender = Locked<WebhookSender?>(nil)
        let webhookConfigured = configuration.webhookConfigured
        let lease = configuration.lease
        // Metrics (#12): the worker, transport and token cache report to `metricsFeed`; the store's gauges are read
        // just before each /metrics render.
        let metricsFeed = MetricsFeed(
            metrics: APNsdMetrics(version: BuildInfo.version), store: store, lease: configuration.lease,
            webhook: webhookConfigured)
        let events = EventFeed(store: store)
        // Channel management uses the credentials loaded at start, then those a SIGHUP reload rebuilds (with the
        // worker); with --no-worker, the credentials when they are configured and load, or no channel routes (503).
        let channelSetup = setup ?? (try? WorkerSetup(configuration))
        let channels = channelSetup?.channelManager(store: store)
        let api = API(
            store: store, events: events, metrics: metricsFeed.metrics,
            settings: APISettings(
                defaultTopic: configuration.topic, lease: configuration.lease,
                topicRoutes: try Self.topicRoutes(configuration), maxLongPolls: configuration.apiMaxLongPolls,
                maxLongPollsPerKey: configuration.apiMaxLongPollsPerKey),
            readiness: { await readiness.checks() },
            status: {
                let sender = webhookSender.withLock { $0 }
                return await StatusReport.json(
                    store: store, database: await readiness.database(), lease: lease,
                    webhook: webhookConfigured ? StatusReport.Webhook(lastError: await sender?.lastError) : nil)
            },
            refreshMetrics: { await metricsFeed.refreshGauges() },
            channels: channels,
            accessLog: configuration.apiAccessLog ? Logger(label: "apnsd.api", minimumLevel: level) : nil)
        let server: HTTPServer
        do {
            server = try HTTPServer.start(
                listen: listen, tls: tls, options: serverOptions(configuration, api),
                bodyLimit: { api.bodyLimit(method: $0, path: $1) },
                headCheck: { head in await api.checkHead(head) },
                handler: { request in await api.handle(request) })
        } catch {
            await store.close()
            throw .failure("\(error)")
        }
        Output.line("listening on \(server.isTLS ? "https" : "http")://\(server.address)")
        logger.info("serve.started", ("address", .string(server.address.description)), ("worker", .bool(setup != nil)))
        if !server.isTLS && !Self.isLoopback(listen) {
            logger.warning(
                "serve.plain_http", ("address", .string(server.address.description)),
                (
                    "hint",
                    .string("API keys and payloads cross the network in clear: put TLS in front or set api.tlsCert")
                ))
        }
        configuration.warnAboutSecretsOnTheCommandLine(arguments, logger: logger)
        // A file-size limit reached by the database must be a write error the worker can wait out, not a kill.
        signal(SIGXFSZ, SIG_IGN)
        var webhook: WebhookSender?
        if let url = configuration.webhookURL, let signing {
            var options = WebhookSender.Options()
            options.maxAttempts = configuration.webhookMaxAttempts
            let metrics = metricsFeed.metrics
            let sender = WebhookSender(
                store: store, url: url, signing: signing, logger: Logger(label: "apnsd.webhook", minimumLevel: level),
                options: options, parked: { metrics.webhookParkedEvents.increment(by: Double($0.events)) })
            await sender.start()
            webhook = sender
            webhookSender.withLock { $0 = sender }
        }
        let prune = EventPruner(
            store: store, keepUndelivered: webhook != nil, logger: Logger(label: "apnsd.events", minimumLevel: level))
        let pruner = Task { await prune.run() }
        // SIGHUP reloads the settings (ReloadSignal): with the worker, what it can take; without, the credentials,
        // which the API's topic checks and channel management follow.
        let reloadCredentials: @Sendable (WorkerSetup) -> Void = { rebuilt in
            api.reloadCredentials(channels: rebuilt.channelManager(store: store), topicRoutes: rebuilt.routes)
        }
        let apiReload =
            setup == nil
            ? ReloadSignal(
                arguments: arguments, configuration: configuration, worker: nil, credentialsChanged: reloadCredentials)
            : nil
        defer { withExtendedLifetime(apiReload) {} }
        let workerTask = setup.map { setup in
            Task {
                await runWorker(
                    setup, store: store, state: workerState!, feed: metricsFeed, arguments: arguments,
                    credentialsChanged: reloadCredentials)
            }
        }
        while stops.count == 0 {
            try? await Task.sleep(for: .milliseconds(50))
        }
        logger.info("serve.stopping")
        api.beginShutdown()
        await server.stop(deadline: .seconds(10))
        await workerTask?.value
        pruner.cancel()
        await pruner.value
        await webhook?.stop()
        await store.close()
        logger.info("serve.finished")
    }

    /// The same worker `apnsd worker` runs (never until idle); its end is recorded in `state`, not thrown: the API
    /// keeps answering, and `/readyz` says why the worker stopped.
    private static func runWorker(
        _ setup: WorkerSetup, store: any DeliveryStore, state: WorkerState,
        feed: MetricsFeed, arguments: Arguments,
        credentialsChanged: @escaping @Sendable (WorkerSetup) -> Void
    ) async {
        let stops = Invocation.current.stops
        let (worker, transport) = setup.makeWorker(store: store, feed: feed)
        let reload = ReloadSignal(
            arguments: arguments, configuration: setup.configuration, worker: worker, feed: feed,
            credentialsChanged: credentialsChanged)
        defer { withExtendedLifetime(reload) {} }
        state.set(.running)
        do {
            _ = try await worker.run(
                untilIdle: false, shouldStop: { stops.count > 0 }, shouldAbandon: { stops.count >= 2 })
            state.set(.stopped)
        } catch {
            let reason = "\(error)\(WorkerCommand.hint(error))"
            setup.logger.error("serve.worker_failed", ("error", .string(reason)))
            state.set(.failed(reason))
        }
        await transport.shutdown(deadline: .now + .seconds(5))
    }

    /// Whether `listen` is a loopback address (127.0.0.0/8, ::1), reachable from this host only.
    static func isLoopback(_ listen: ListenAddress) -> Bool {
        listen.host.hasPrefix("127.") || listen.host == "::1"
    }

    /// The API's server answers with the connection budget of the `api.*` settings; the server's own answers are
    /// counted and logged by the API.
    private static func serverOptions(_ configuration: Configuration, _ api: API) -> HTTPServer.Options {
        var options = API.serverOptions
        options.answeredByServer = { api.recordServerAnswer($0) }
        options.maxConnections = configuration.apiMaxConnections
        options.maxConnectionsPerClient = configuration.apiMaxConnectionsPerClient
        options.headerTimeout = configuration.apiHeaderTimeout
        options.bodyTimeout = configuration.apiBodyTimeout
        options.maxBodyBytesInFlight = configuration.apiMaxBodyBytesInFlight
        return options
    }

    /// Which credential sends which topic, so the API refuses a topic none sends.
    private static func topicRoutes(_ configuration: Configuration) throws(CLIError) -> TopicRoutes? {
        do { return try configuration.topicRoutes() } catch { throw .usage(error.description) }
    }

    /// The certificate chain and key when both are set (Configuration checked they go together), read whole.
    private static func tlsPEM(_ configuration: Configuration) throws(CLIError) -> (
        certificatePEM: String, keyPEM: String
    )? {
        guard let certificate = configuration.apiTLSCert, let key = configuration.apiTLSKey else { return nil }
        return (try pem(certificate, "api.tlsCert"), try pem(key, "api.tlsKey"))
    }

    private static func pem(_ path: String, _ name: String) throws(CLIError) -> String {
        guard let bytes = try? BoundedRead.file(path, limit: 1 << 20), let text = String(bytes: bytes, encoding: .utf8)
        else {
            throw .failure("cannot read \(name) \(path) (missing, unreadable, or over 1 MiB)")
        }
        guard text.contains("-----BEGIN ") else { throw .failure("\(name) \(path) is not a PEM file") }
        return text
    }
}
