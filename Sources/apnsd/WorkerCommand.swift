import Intake
import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import Logging
import ProviderAuth
import Store
import Synchronization

/// `apnsd worker [--until-idle] [--json]`: send what is due; SIGINT/SIGTERM stop it cleanly.
enum WorkerCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["until-idle", "json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let credentials = try configuration.requireCredentials()
        let key: SigningKey
        let credential: ProviderCredential
        do {
            key = try SigningKey(contentsOfFile: credentials.keyFile)
        } catch {
            throw .failure("apns.keyFile \(credentials.keyFile): \(error)")
        }
        do {
            credential = try ProviderCredential(keyId: credentials.keyID, teamId: credentials.teamID)
        } catch {
            throw .usage("\(error)")
        }
        if let caFile = configuration.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .failure("cannot read apns.caFile \(caFile)")
        }
        let level: Logger.Level = ["debug": .debug, "warning": .warning, "error": .error][configuration.logLevel] ?? .info
        let logger = Logger(label: "apnsd.worker", minimumLevel: level)
        let store = try await StoreAccess.open(configuration)
        let transport = TransportRegistry(configuration: TransportConfiguration(
            baseURLs: [.production: configuration.productionURL, .development: configuration.developmentURL],
            caFile: configuration.caFile, connectionsPerPool: configuration.connections, ratePerConnection: configuration.rate,
            requestTimeout: .milliseconds(Int64(configuration.requestTimeout * 1000)), proxy: configuration.transportProxy))
        let tokens = ProviderTokenCache(key: key, credential: credential)
        var settings = WorkerConfiguration(credentialID: credential.keyId, lease: configuration.lease,
                                           heartbeat: .milliseconds(Int64(configuration.workerHeartbeat * 1000)),
                                           retry: configuration.retryPolicy)
        settings.pace(ratePerConnection: configuration.rate, connections: configuration.connections)
        let worker = Worker(store: store, tokens: tokens, transport: transport, configuration: settings, logger: logger)
        let stop = StopFlag()
        // A file-size limit reached by the database must be a write error the worker can wait out, not a kill.
        signal(SIGXFSZ, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { signo in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            source.setEventHandler { stop.raise() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        logger.info("worker.started", ("database", configuration.database), ("connections", String(configuration.connections)),
                    ("rate", String(configuration.rate)), ("until_idle", String(arguments.flag("until-idle"))))
        let summary: WorkerSummary
        do {
            summary = try await worker.run(untilIdle: arguments.flag("until-idle"), shouldStop: { stop.isRaised },
                                           shouldAbandon: { stop.count >= 2 })
        } catch {
            await transport.shutdown(deadline: .now + .seconds(5))
            throw .failure("\(error)")
        }
        await transport.shutdown(deadline: .now + .seconds(5))
        logger.info("worker.finished", ("sent", String(summary.sent)), ("accepted", String(summary.accepted)))
        if arguments.flag("json") {
            Output.line(Output.jsonLine([
                "sent": .int(summary.sent), "accepted": .int(summary.accepted), "unregistered": .int(summary.unregistered),
                "rejected": .int(summary.rejected), "failed": .int(summary.failed), "retried": .int(summary.retried),
                "expired": .int(summary.expired), "cancelled": .int(summary.cancelled), "tokenRefreshes": .int(summary.tokenRefreshes),
                "seconds": .raw(String(format: "%.3f", summary.seconds)),
            ]))
        } else {
            Output.line(String(format: "sent %d requests in %.1f s: %d accepted, %d unregistered, %d rejected, %d failed, %d retried later, %d expired unsent",
                               summary.sent, summary.seconds, summary.accepted, summary.unregistered, summary.rejected,
                               summary.failed, summary.retried, summary.expired))
        }
    }
}

/// Counts stop signals, read by the worker loop: the first stops it cleanly, a second abandons outcomes the
/// database would not take.
final class StopFlag: Sendable {
    private let raised = Atomic<Int>(0)
    func raise() { raised.add(1, ordering: .relaxed) }
    var isRaised: Bool { count > 0 }
    var count: Int { raised.load(ordering: .relaxed) }
}
