import Dispatcher
import Foundation
import HTTP2Transport
import Intake
import Logging
import ProviderAuth
import QueueModel

/// What `apnsd worker` and `apnsd serve` need to run a worker, checked before anything is opened: the signing
/// key, the credential, the CA file and the logger.
struct WorkerSetup {
    let configuration: Configuration
    let key: SigningKey
    let credential: ProviderCredential
    let logger: Logger

    init(_ configuration: Configuration) throws(CLIError) {
        self.configuration = configuration
        let credentials = try configuration.requireCredentials()
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
        let level = configuration.loggerLevel
        logger = Logger(label: "apnsd.worker", minimumLevel: level)
        // Last, so that a bad setting is still one line (the warning does not stop the worker).
        Self.warnIfWorldReadable(keyFile: credentials.keyFile)
    }

    /// Anyone who can read the `.p8` can send pushes as the team: say so (it still works, as the file may sit in
    /// a container or a directory no one else can enter).
    static func warnIfWorldReadable(keyFile: String) {
        var info = stat()
        guard stat(keyFile, &info) == 0, info.st_mode & S_IROTH != 0 else { return }
        Output.error("apnsd: warning: key file \(keyFile) is readable by every user (mode \(String(info.st_mode & 0o777, radix: 8))): "
            + "chmod 600 it, or load it with systemd's LoadCredential= (deploy/)")
    }

    /// The worker on `store`, and the transport it sends through (to shut down after it); `feed` (serve) is told
    /// of its answers, outcomes, connections and token mints.
    func makeWorker(store: any DeliveryStore, feed: MetricsFeed? = nil) -> (worker: Worker, transport: TransportRegistry) {
        let transport = TransportRegistry(configuration: TransportConfiguration(
            baseURLs: [.production: configuration.productionURL, .development: configuration.developmentURL],
            caFile: configuration.caFile, connectionsPerPool: configuration.connections, ratePerConnection: configuration.rate,
            requestTimeout: .milliseconds(Int64(configuration.requestTimeout * 1000)), proxy: configuration.transportProxy))
        feed?.watch(transport)
        let (logger, credential) = (logger, credential)
        let tokens = ProviderTokenCache(key: key, credential: credential, minted: {
            // Never the token: which key made it is what an operator needs.
            logger.info("apns.token_minted", ("key_id", credential.keyId), ("team_id", credential.teamId))
            feed?.tokenMinted()
        })
        var settings = WorkerConfiguration(credentialID: credential.keyId, lease: configuration.lease,
                                           heartbeat: .milliseconds(Int64(configuration.workerHeartbeat * 1000)),
                                           retry: configuration.retryPolicy)
        settings.pace(ratePerConnection: configuration.rate, connections: configuration.connections)
        let worker = Worker(store: store, tokens: tokens, transport: transport, configuration: settings, logger: logger,
                            observer: feed)
        return (worker, transport)
    }
}
