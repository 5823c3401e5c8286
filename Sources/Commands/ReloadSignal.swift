import Dispatcher
import Foundation
import Intake
import Logging
import ProviderAuth
import Threads

/// SIGHUP for `apnsd worker` and `apnsd serve`: reads the settings again (config file → environment → flags) and
/// the key file, and applies to the running worker what can change without a restart — the key (another key id or
/// team, or other key material), the retry settings and the log level. Without a worker (`serve --no-worker`) only
/// the credentials apply: the topics the API accepts and channel management follow them. The log names what was
/// applied and what changed but needs a restart; a setting or key that does not load leaves everything as it was.
/// `reload.done` and `reload.failed` are written whatever the log level: an operator who sent the signal waits for one.
final class ReloadSignal {
    /// Settings (`Configuration`'s property names) a running worker takes on SIGHUP.
    static let reloadable = credentialSettings.union(retrySettings).union(["logLevel"])

    private let source: any DispatchSourceSignal
    private let queue = DispatchQueue(label: "apnsd.reload")

    /// Starts listening for SIGHUP; reloads apply to `worker` (when there is one) one at a time, in order.
    /// `credentialsChanged` is told of credentials rebuilt (serve's channel management and enqueue checks follow them).
    init(
        arguments: Arguments, configuration: Configuration, worker: Worker?, feed: MetricsFeed? = nil,
        credentialsChanged: (@Sendable (WorkerSetup) -> Void)? = nil
    ) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        let current = Locked((configuration: configuration, keyDigest: Self.digests(configuration)))
        source.setEventHandler {
            let done = DispatchSemaphore(value: 0)
            Task {
                await Self.reload(
                    arguments: arguments, current: current, worker: worker, feed: feed,
                    credentialsChanged: credentialsChanged)
                done.signal()
            }
            // One reload at a time: the next SIGHUP waits on this (serial) queue.
            done.wait()
        }
        source.resume()
    }

    deinit { source.cancel() }

    private static func reload(
        arguments: Arguments, current: Locked<(configuration: Configuration, keyDigest: String?)>,
        worker: Worker?, feed: MetricsFeed?, credentialsChanged: (@Sendable (WorkerSetup) -> Void)?
    ) async {
        let (old, oldDigest) = current.withLock { ($0.configuration, $0.keyDigest) }
        let next: Configuration
        do {
            next = try Configuration.load(arguments: arguments)
        } catch {
            reloadLogger(worker, old).always(
                .error, "reload.failed", ("error", .string(error.message)),
                ("action", "kept every setting as it was"))
            return
        }
        let logger = reloadLogger(worker, next)
        let changed = Self.changed(old, next)
        let digest = Self.digests(next)
        var credentials: CredentialSet?
        var rebuilt: WorkerSetup?
        // Rebuilt when a credential's settings or files changed; a credential whose key did not change keeps its
        // token (APNs refuses a key's tokens renewed within 20 minutes), even under another path.
        if changed.contains(where: { Self.credentialSettings.contains($0) }) || digest != oldDigest {
            do {
                let setup = try WorkerSetup(next)
                if let worker {
                    let set = setup.credentialSet(previous: worker.credentials, feed: feed, logger: worker.logger)
                    // A new certificate has a new pool id: its connections present it.
                    for (poolID, identity) in setup.clientIdentities(of: set) {
                        worker.transport.setClientIdentity(identity, for: poolID)
                    }
                    credentials = set
                }
                rebuilt = setup
            } catch {
                logger.always(
                    .error, "reload.failed", ("error", .string(error.message)),
                    ("action", "kept every setting as it was"))
                return
            }
        }
        var renewed: [String] = []
        if let worker {
            renewed =
                credentials.map { new in
                    new.byName.values.filter { worker.credentials.byName[$0.name]?.poolID != $0.poolID }.map(\.name)
                        .sorted()
                } ?? []
            await worker.reload(retry: next.retryPolicy, logLevel: next.loggerLevel, credentials: credentials)
        }
        if let rebuilt { credentialsChanged?(rebuilt) }
        current.withLock { $0 = (next, digest) }
        // Without a worker the retry settings are unused (neither applied nor waiting for a restart); the log level
        // of serve's own loggers is read at start.
        let applies = worker == nil ? credentialSettings : reloadable
        let unused = worker == nil ? retrySettings : []
        let applied =
            changed.filter { applies.contains($0) } + (renewed.isEmpty ? [] : ["signing key (new provider token)"])
        let restart = changed.filter { !applies.contains($0) && !unused.contains($0) }
        logger.always(
            .info, "reload.done",
            ("applied", .string(applied.isEmpty ? "nothing changed" : applied.joined(separator: ","))),
            ("needs_restart", .string(restart.joined(separator: ","))))
    }

    /// The reload's logger: the worker's (its lines carry the worker's id), or serve's own without one.
    private static func reloadLogger(_ worker: Worker?, _ configuration: Configuration) -> Logger {
        var logger = worker?.logger.labeled("apnsd.reload") ?? Logger(label: "apnsd.reload")
        logger.minimumLevel = configuration.loggerLevel
        return logger
    }

    /// The settings that make up the credentials.
    static let credentialSettings: Set<String> = ["keyFile", "keyID", "teamID", "credentials"]

    /// The settings only a worker reads.
    static let retrySettings: Set<String> = ["retryBase", "retryCap", "maxAttempts", "retryMaxAge", "retryJitter"]

    /// Every credential file's SHA-256, so that a key or certificate replaced in place is noticed.
    private static func digests(_ configuration: Configuration) -> String? {
        var files = [configuration.keyFile].compactMap { $0 }
        for credential in configuration.credentials {
            switch credential.authentication {
            case .token(let keyFile, _, _): files.append(keyFile)
            case .certificate(let file, _): files.append(file)
            }
        }
        return files.isEmpty ? nil : files.map { WorkerSetup.fingerprint($0) }.joined(separator: ",")
    }

    /// The properties whose values differ (names only: a secret's value is never printed).
    static func changed(_ old: Configuration, _ new: Configuration) -> [String] {
        let before = Dictionary(
            Mirror(reflecting: old).children.compactMap { child in child.label.map { ($0, "\(child.value)") } },
            uniquingKeysWith: { first, _ in first })
        return Mirror(reflecting: new).children.compactMap { child in
            guard let label = child.label, before[label] != "\(child.value)" else { return nil }
            return label
        }
    }
}
