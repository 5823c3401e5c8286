import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import Intake
import Logging
import ProviderAuth
import QueueModel

/// What `apnsd worker` and `apnsd serve` need to run a worker, checked before anything is opened: every credential
/// (its key or certificate loaded), which topic each sends, the CA file and the logger.
struct WorkerSetup {
    let configuration: Configuration
    let credentials: [LoadedCredential]
    let routes: TopicRoutes
    let logger: Logger

    /// One credential with its key material read and checked.
    struct LoadedCredential {
        let setting: CredentialSetting
        /// The signing key and its ids; nil for a certificate.
        let key: (key: SigningKey, credential: ProviderCredential)?
        /// The client certificate and its key; nil for a signing key.
        let certificate: ClientCertificate?
        /// The SHA-256 of the key or certificate file: tells a replaced file from the same one.
        let fingerprint: String

        var name: String { setting.name }

        /// What the transport presents for a certificate credential; nil for a key.
        var clientIdentity: ClientIdentity? {
            certificate.map {
                ClientIdentity(certificateChainPEM: $0.certificateChainPEM, privateKeyPEM: $0.privateKeyPEM)
            }
        }
    }

    init(_ configuration: Configuration) throws(CLIError) {
        self.configuration = configuration
        let settings: [CredentialSetting]
        do { settings = try configuration.sendingCredentials() } catch { throw .usage(error.description) }
        guard !settings.isEmpty else {
            throw .usage(
                "apns.keyFile, apns.keyId and apns.teamId are required to dispatch (config file, APNSD_KEY_FILE/APNSD_KEY_ID/APNSD_TEAM_ID or --key-file/--key-id/--team-id), or apns.credentials in the config file"
            )
        }
        var loaded: [LoadedCredential] = []
        for setting in settings { loaded.append(try Self.load(setting)) }
        credentials = loaded
        do { routes = try configuration.topicRoutes() } catch {
            throw .usage(error.description)
        }
        if let caFile = configuration.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .failure("cannot read apns.caFile \(caFile)")
        }
        let level = configuration.loggerLevel
        logger = Logger(label: "apnsd.worker", minimumLevel: level)
        // Last, so that a bad setting is still one line (the warning does not stop the worker).
        for credential in settings {
            if case .token(let keyFile, _, _) = credential.authentication { Self.warnIfWorldReadable(keyFile: keyFile) }
        }
    }

    /// Reads and checks one credential's key; errors name the setting.
    private static func load(_ setting: CredentialSetting) throws(CLIError) -> LoadedCredential {
        let named =
            setting.name == CredentialSetting.defaultName ? "apns.keyFile" : "apns.credentials '\(setting.name)'"
        switch setting.authentication {
        case .token(let keyFile, let keyID, let teamID):
            let key: SigningKey
            do { key = try SigningKey(contentsOfFile: keyFile) } catch {
                throw .failure("\(named) \(keyFile): \(error)")
            }
            let credential: ProviderCredential
            do { credential = try ProviderCredential(keyId: keyID, teamId: teamID) } catch {
                throw .usage(setting.name == CredentialSetting.defaultName ? "\(error)" : "\(named): \(error)")
            }
            return LoadedCredential(
                setting: setting, key: (key, credential), certificate: nil, fingerprint: fingerprint(keyFile))
        case .certificate(let file, let source):
            let password: String?
            switch source {
            case .none: password = nil
            case .text(let text): password = text
            case .file(let path):
                guard let bytes = (try? BoundedRead.file(path, limit: 4096)) ?? nil,
                    let text = String(bytes: bytes, encoding: .utf8)
                else {
                    throw .failure("\(named): cannot read passwordFile \(path) (missing, unreadable, or over 4 KiB)")
                }
                password =
                    text.hasSuffix("\r\n")
                    ? String(text.dropLast(2)) : text.hasSuffix("\n") ? String(text.dropLast()) : text
            }
            let certificate: ClientCertificate
            do { certificate = try ClientCertificate(contentsOfFile: file, password: password) } catch {
                throw .failure("\(named) certificate \(file): \(error)")
            }
            return LoadedCredential(
                setting: setting, key: nil, certificate: certificate, fingerprint: fingerprint(file))
        }
    }

    /// The SHA-256 of a file (empty when it cannot be read: loading it already succeeded or failed loudly).
    static func fingerprint(_ path: String) -> String {
        guard let bytes = (try? BoundedRead.file(path, limit: 1 << 20)) ?? nil else { return "" }
        return SHA256.hex(bytes)
    }

    /// Anyone who can read the `.p8` can send pushes as the team: say so (it still works, as the file may sit in
    /// a container or a directory no one else can enter).
    static func warnIfWorldReadable(keyFile: String) {
        var info = stat()
        guard stat(keyFile, &info) == 0, info.st_mode & S_IROTH != 0 else { return }
        Output.error(
            "apnsd: warning: key file \(keyFile) is readable by every user (mode \(String(info.st_mode & 0o777, radix: 8))): "
                + "chmod 600 it, or load it with systemd's LoadCredential= (deploy/)")
    }

    /// The worker's credentials: those in `previous` whose key or certificate did not change are kept as they were
    /// (their token caches too: APNs refuses a new token on a connection within 20 minutes); the others are new.
    /// New ones log their token mints to `logger` (a running worker's, on a reload), else to this setup's.
    func credentialSet(previous: CredentialSet? = nil, feed: MetricsFeed? = nil, logger: Logger? = nil) -> CredentialSet
    {
        let logger = logger ?? self.logger
        let sending = credentials.map { loaded -> SendingCredential in
            let made: SendingCredential
            if let (key, credential) = loaded.key {
                let name = loaded.name
                let tokens = ProviderTokenCache(
                    key: key, credential: credential,
                    minted: {
                        // Never the token: which key made it is what an operator needs.
                        logger.info(
                            "apns.token_minted", ("credential", .string(name)), ("key_id", .string(credential.keyId)),
                            ("team_id", .string(credential.teamId)))
                        feed?.tokenMinted()
                    })
                made = SendingCredential(
                    name: name,
                    authorization: .token(
                        tokens, keyID: credential.keyId, teamID: credential.teamId,
                        fingerprint: loaded.fingerprint))
            } else {
                made = SendingCredential(
                    name: loaded.name,
                    authorization: .certificate(
                        notAfter: loaded.certificate!.notAfter,
                        fingerprint: loaded.fingerprint))
            }
            if let old = previous?.byName[made.name], old.poolID == made.poolID { return old }
            return made
        }
        return CredentialSet(sending, routes: routes)
    }

    /// The transport every credential's pools share, with the client certificates of `set`'s certificate credentials.
    func transportConfiguration(for set: CredentialSet) -> TransportConfiguration {
        TransportConfiguration(
            baseURLs: [.production: configuration.productionURL, .development: configuration.developmentURL],
            caFile: configuration.caFile, connectionsPerPool: configuration.connections,
            ratePerConnection: configuration.rate,
            requestTimeout: .milliseconds(Int64(configuration.requestTimeout * 1000)),
            proxy: configuration.transportProxy,
            clientIdentities: clientIdentities(of: set), reconnectBase: configuration.retryPolicy.base,
            reconnectCap: configuration.retryPolicy.cap)
    }

    /// The client certificate of each certificate credential, by its pool id in `set`.
    func clientIdentities(of set: CredentialSet) -> [String: ClientIdentity] {
        var identities: [String: ClientIdentity] = [:]
        for loaded in credentials {
            guard let identity = loaded.clientIdentity, let credential = set.byName[loaded.name] else { continue }
            identities[credential.poolID] = identity
        }
        return identities
    }

    /// The worker on `store`, and the transport it sends through (to shut down after it); `feed` (serve, or a
    /// worker with `worker.listen`) is told of its answers, outcomes, connections, credentials, reachability and
    /// token mints.
    func makeWorker(store: any DeliveryStore, feed: MetricsFeed? = nil) -> (
        worker: Worker, transport: TransportRegistry
    ) {
        let credentials = credentialSet(feed: feed)
        let transport = TransportRegistry(configuration: transportConfiguration(for: credentials))
        var settings = WorkerConfiguration(
            lease: configuration.lease,
            heartbeat: .milliseconds(Int64(configuration.workerHeartbeat * 1000)),
            retry: configuration.retryPolicy)
        settings.pace(ratePerConnection: configuration.rate, connections: configuration.connections)
        let worker = Worker(
            store: store, credentials: credentials, transport: transport, configuration: settings,
            logger: logger, observer: feed)
        feed?.watch(worker: worker)
        return (worker, transport)
    }
}
