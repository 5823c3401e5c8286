import APNs
import Foundation

/// apnsd's settings: the JSON config file, then APNSD_* environment variables, then flags — each overriding the last.
/// Values are checked as they are read: a bad one stops the command before anything is done.
public struct Configuration: Sendable {
    public var database = "./apnsd.sqlite"
    public var keyFile: String?
    public var keyID: String?
    public var teamID: String?
    /// `apns.credentials`: credentials beside (or instead of) the single key above.
    public var credentials: [CredentialSetting] = []
    public var topic: String?
    public var productionURL = Environment.production.defaultBaseURL
    public var developmentURL = Environment.development.defaultBaseURL
    /// Broadcast channel management (`apnsd channel`, `/v1/channels`): other hosts and ports than pushes.
    public var channelProductionURL = ChannelManagement.defaultBaseURL(.production)
    public var channelDevelopmentURL = ChannelManagement.defaultBaseURL(.development)
    public var caFile: String?
    public var proxy: ProxySetting = .none
    public var connections = 4
    public var rate = 1500
    public var retryBase: Double = 1
    public var retryCap: Double = 300
    public var maxAttempts = 8
    public var retryMaxAge: Double = 86_400
    /// `retry.jitter`: `full`, `equal` or `decorrelated` (checked when read; the Dispatcher's `Jitter` names them).
    public var retryJitter = "full"
    public var workerHeartbeat: Double = 5
    public var workerLease: Double = 30
    /// `worker.listen`: where `apnsd worker` serves `/metrics`, `/healthz` and `/readyz`; nil: nowhere.
    public var workerListen: String?
    public var requestTimeout: Double = 30
    public var logLevel = "info"
    /// `api.listen`: `host:port` or `[IPv6]:port`, its shape checked here (the host literal by the server).
    public var apiListen = "127.0.0.1:8080"
    public var apiTLSCert: String?
    public var apiTLSKey: String?
    /// `api.accessLog`: `apnsd serve` logs one `api.request` line per request.
    public var apiAccessLog = true
    /// `api.maxLongPolls`: `GET /v1/events` requests waiting at once; more are answered at once.
    public var apiMaxLongPolls = 256
    /// `api.maxLongPollsPerKey`: of those, how many one API key may hold.
    public var apiMaxLongPollsPerKey = 16
    /// `api.maxConnections`: connections served in full; a small reserve above it answers only the probes.
    public var apiMaxConnections = 512
    /// `api.maxConnectionsPerClient`: connections from one address (0: no cap, behind a reverse proxy).
    public var apiMaxConnectionsPerClient = 64
    /// `api.headerTimeout`: seconds for a request's whole head.
    public var apiHeaderTimeout: Double = 10
    /// `api.bodyTimeout`: seconds for a request's whole body.
    public var apiBodyTimeout: Double = 60
    /// `api.maxBodyBytesInFlight`: request body bytes held in memory at once.
    public var apiMaxBodyBytesInFlight = 268_435_456
    /// `webhook.url`: where events are POSTed; nil = no webhook.
    public var webhookURL: String?
    /// `webhook.secret`: the HMAC-SHA256 key of the `X-Apnsd-Signature` header. Never logged.
    public var webhookSecret: String?
    /// `webhook.secretFile`: a file holding the secret instead (read by the commands that sign, `webhookSecretValue`).
    public var webhookSecretFile: String?
    /// `webhook.previousSecret`: the secret being rotated out, signed with too while set. Never logged.
    public var webhookPreviousSecret: String?
    /// `webhook.legacySignature`: also send the old `X-Apnsd-Signature-Legacy: sha256=…` header.
    public var webhookLegacySignature = true
    /// `webhook.maxAttempts`: refusals after which a batch failing for an hour is parked.
    public var webhookMaxAttempts = 20
    /// `retention.deliveriesOlderThan`: `apnsd prune` deletes finished deliveries last changed longer ago than this.
    public var retentionDeliveries = TimeSpan(30, "d")
    /// `retention.devicesInactiveFor`: `apnsd prune` deletes devices deactivated, or not refreshed, for longer.
    public var retentionDevices = TimeSpan(90, "d")

    /// One setting, declared once: its dotted config key, its environment variable, its flag, its default and
    /// its help; the loader, `--help` and the README table (checked by a test) all come from this list.
    public struct Setting: Sendable {
        public let key: String
        public let environment: String
        public let flag: String
        /// The value's placeholder in help (`N`, `PATH`, …).
        public let value: String
        /// The default as the README and help show it ("none" when unset).
        public let defaultValue: String
        public let help: String
        let set: @Sendable (inout Configuration, String) throws -> Void

        init(
            _ key: String, _ environment: String, _ flag: String, _ value: String, default defaultValue: String,
            _ help: String,
            _ set: @escaping @Sendable (inout Configuration, String) throws -> Void
        ) {
            self.key = key
            self.environment = environment
            self.flag = flag
            self.value = value
            self.defaultValue = defaultValue
            self.help = help
            self.set = set
        }

        /// A switch: `true` or `false` (a JSON boolean in the config file).
        var isSwitch: Bool { value == "BOOL" }

        func apply(_ configuration: inout Configuration, _ value: String) throws(IntakeError) {
            do { try set(&configuration, value) } catch {
                throw (error as? IntakeError) ?? IntakeError("\(key): \(error)")
            }
        }
    }

    public static let settings: [Setting] = [
        Setting(
            "database", "APNSD_DATABASE", "database", "PATH|URL", default: "./apnsd.sqlite",
            "SQLite file, or a postgres:// URL (libpq: sslmode, PGPASSFILE, PG* apply)"
        ) { c, v in c.database = try nonEmpty(v, "database") },
        Setting(
            "apns.keyFile", "APNSD_KEY_FILE", "key-file", "P8", default: "none",
            ".p8 signing key (required to dispatch)"
        ) { c, v in c.keyFile = try nonEmpty(v, "apns.keyFile") },
        Setting(
            "apns.keyId", "APNSD_KEY_ID", "key-id", "ID", default: "none", "10-character key id (required to dispatch)"
        ) { c, v in c.keyID = try nonEmpty(v, "apns.keyId") },
        Setting(
            "apns.teamId", "APNSD_TEAM_ID", "team-id", "ID", default: "none",
            "10-character team id (required to dispatch)"
        ) { c, v in c.teamID = try nonEmpty(v, "apns.teamId") },
        Setting("apns.topic", "APNSD_TOPIC", "default-topic", "BUNDLE", default: "none", "default topic (bundle id)") {
            c, v in c.topic = try bundleID(v, "apns.topic")
        },
        Setting(
            "apns.productionURL", "APNSD_PRODUCTION_URL", "production-url", "URL",
            default: "https://api.push.apple.com",
            "base URL for production devices"
        ) { c, v in c.productionURL = try url(v, "apns.productionURL") },
        Setting(
            "apns.developmentURL", "APNSD_DEVELOPMENT_URL", "development-url", "URL",
            default: "https://api.sandbox.push.apple.com",
            "base URL for development devices"
        ) { c, v in c.developmentURL = try url(v, "apns.developmentURL") },
        Setting(
            "apns.channelProductionURL", "APNSD_CHANNEL_PRODUCTION_URL", "channel-production-url", "URL",
            default: "https://api-manage-broadcast.push.apple.com:2196",
            "base URL of broadcast channel management in production"
        ) { c, v in c.channelProductionURL = try url(v, "apns.channelProductionURL") },
        Setting(
            "apns.channelDevelopmentURL", "APNSD_CHANNEL_DEVELOPMENT_URL", "channel-development-url", "URL",
            default: "https://api-manage-broadcast.sandbox.push.apple.com:2195",
            "base URL of broadcast channel management in development"
        ) { c, v in c.channelDevelopmentURL = try url(v, "apns.channelDevelopmentURL") },
        Setting(
            "apns.caFile", "APNSD_CA_FILE", "ca-file", "PEM", default: "none",
            "extra PEM CA to trust (the local simulator's); system trust otherwise"
        ) { c, v in c.caFile = try nonEmpty(v, "apns.caFile") },
        Setting(
            "apns.proxy", "APNSD_PROXY", "proxy", "P", default: "none",
            "`none` (environment proxies ignored), `environment` (libcurl's `https_proxy`/`no_proxy`), or an `http://`/`https://` proxy URL (credentials allowed, never logged)"
        ) { c, v in c.proxy = try proxySetting(v) },
        Setting(
            "apns.connections", "APNSD_CONNECTIONS", "connections", "N", default: "4",
            "HTTP/2 connections per credential and environment"
        ) { c, v in c.connections = try integer(v, "apns.connections", 1...64) },
        Setting(
            "apns.rate", "APNSD_RATE", "rate", "N", default: "1500",
            "max requests per second per connection (0 = unthrottled)"
        ) { c, v in c.rate = try integer(v, "apns.rate", 0...1_000_000) },
        Setting(
            "apns.requestTimeout", "APNSD_REQUEST_TIMEOUT", "request-timeout", "S", default: "30", "seconds per request"
        ) { c, v in c.requestTimeout = try number(v, "apns.requestTimeout", 0.1...600) },
        Setting("retry.base", "APNSD_RETRY_BASE", "retry-base", "S", default: "1", "first backoff bound, seconds") {
            c, v in c.retryBase = try number(v, "retry.base", 0.001...3600)
        },
        Setting("retry.cap", "APNSD_RETRY_CAP", "retry-cap", "S", default: "300", "longest backoff, seconds") { c, v in
            c.retryCap = try number(v, "retry.cap", 0.001...86400)
        },
        Setting(
            "retry.maxAttempts", "APNSD_RETRY_MAX_ATTEMPTS", "max-attempts", "N", default: "8",
            "attempts before `failed`"
        ) { c, v in c.maxAttempts = try integer(v, "retry.maxAttempts", 1...100) },
        Setting(
            "retry.maxAge", "APNSD_RETRY_MAX_AGE", "max-age", "S", default: "86400",
            "seconds after which a delivery without apns-expiration is given up (`failed`, `Expired`)"
        ) { c, v in c.retryMaxAge = try number(v, "retry.maxAge", 1...2_592_000) },
        Setting(
            "retry.jitter", "APNSD_RETRY_JITTER", "retry-jitter", "J", default: "full",
            "how a retry's delay is drawn: `full` (0 to the backoff), `equal` (half to all of it) or `decorrelated` (retry.base to 3 × the last delay)"
        ) { c, v in c.retryJitter = try oneOf(v, "retry.jitter", ["full", "equal", "decorrelated"]) },
        Setting(
            "worker.heartbeat", "APNSD_WORKER_HEARTBEAT", "heartbeat", "S", default: "5",
            "seconds between a worker's heartbeats"
        ) { c, v in c.workerHeartbeat = try number(v, "worker.heartbeat", 0.05...3600) },
        Setting(
            "worker.lease", "APNSD_WORKER_LEASE", "lease", "S", default: "30",
            "seconds without heartbeat after which another worker takes a worker's claims over (≥ 2 × heartbeat; "
                + "a worker seen dead on this host is taken over at once)"
        ) { c, v in c.workerLease = try number(v, "worker.lease", 0.1...86_400) },
        Setting(
            "worker.listen", "APNSD_WORKER_LISTEN", "worker-listen", "HOST:PORT", default: "none",
            "where `apnsd worker` serves `/metrics`, `/healthz` and `/readyz` (port 0 picks a free port; its start line names it)"
        ) { c, v in c.workerListen = try listenAddress(v, "worker.listen") },
        Setting("log.level", "APNSD_LOG_LEVEL", "log-level", "L", default: "info", "debug, info, warning, error") {
            c, v in c.logLevel = try oneOf(v, "log.level", ["debug", "info", "warning", "error"])
        },
        Setting(
            "api.listen", "APNSD_API_LISTEN", "listen", "HOST:PORT", default: "127.0.0.1:8080",
            "where `apnsd serve` listens (`[::1]:8080` for IPv6; port 0 picks a free port)"
        ) { c, v in c.apiListen = try listenAddress(v, "api.listen") },
        Setting(
            "api.tlsCert", "APNSD_API_TLS_CERT", "tls-cert", "PEM", default: "none",
            "certificate chain for HTTPS (with api.tlsKey)"
        ) { c, v in c.apiTLSCert = try nonEmpty(v, "api.tlsCert") },
        Setting(
            "api.tlsKey", "APNSD_API_TLS_KEY", "tls-key", "PEM", default: "none",
            "private key for HTTPS (with api.tlsCert)"
        ) { c, v in c.apiTLSKey = try nonEmpty(v, "api.tlsKey") },
        Setting(
            "api.accessLog", "APNSD_API_ACCESS_LOG", "api-access-log", "BOOL", default: "true",
            "`apnsd serve` logs one `api.request` line per request (method, route template, status, duration, API key name, replay), whatever `log.level` says; `false` turns it off"
        ) { c, v in c.apiAccessLog = try boolean(v, "api.accessLog") },
        Setting(
            "api.maxLongPolls", "APNSD_API_MAX_LONG_POLLS", "api-max-long-polls", "N", default: "256",
            "`GET /v1/events` requests waiting at once (1-100000); more are answered at once, with `Retry-After`"
        ) { c, v in c.apiMaxLongPolls = try integer(v, "api.maxLongPolls", 1...100_000) },
        Setting(
            "api.maxLongPollsPerKey", "APNSD_API_MAX_LONG_POLLS_PER_KEY", "api-max-long-polls-per-key", "N",
            default: "16",
            "of those, how many one API key may hold (1-100000); more are answered at once, with `Retry-After`"
        ) { c, v in c.apiMaxLongPollsPerKey = try integer(v, "api.maxLongPollsPerKey", 1...100_000) },
        Setting(
            "api.maxConnections", "APNSD_API_MAX_CONNECTIONS", "api-max-connections", "N", default: "512",
            "connections `apnsd serve` serves at once; past it only `/healthz`, `/readyz` and `/metrics` are answered (16 more connections are kept for them), anything else gets 503"
        ) { c, v in c.apiMaxConnections = try integer(v, "api.maxConnections", 1...100_000) },
        Setting(
            "api.maxConnectionsPerClient", "APNSD_API_MAX_CONNECTIONS_PER_CLIENT", "api-max-connections-per-client",
            "N", default: "64",
            "connections from one client address; more are closed at accept (0 = no cap: set it behind a reverse proxy)"
        ) { c, v in c.apiMaxConnectionsPerClient = try integer(v, "api.maxConnectionsPerClient", 0...100_000) },
        Setting(
            "api.headerTimeout", "APNSD_API_HEADER_TIMEOUT", "api-header-timeout", "S", default: "10",
            "seconds for a request's whole head (from the connection's start, or its previous request's end); then the connection is closed"
        ) { c, v in c.apiHeaderTimeout = try number(v, "api.headerTimeout", 0.1...3600) },
        Setting(
            "api.bodyTimeout", "APNSD_API_BODY_TIMEOUT", "api-body-timeout", "S", default: "60",
            "seconds for a request's whole body; then the connection is closed"
        ) { c, v in c.apiBodyTimeout = try number(v, "api.bodyTimeout", 0.1...3600) },
        Setting(
            "api.maxBodyBytesInFlight", "APNSD_API_MAX_BODY_BYTES_IN_FLIGHT", "api-max-body-bytes-in-flight", "N",
            default: "268435456",
            "request body bytes held in memory at once (bodies received, requests not answered yet); a request that would go over gets 503 and Retry-After"
        ) { c, v in c.apiMaxBodyBytesInFlight = try integer(v, "api.maxBodyBytesInFlight", 1...(1 << 40)) },
        Setting(
            "webhook.url", "APNSD_WEBHOOK_URL", "webhook-url", "URL", default: "none",
            "`http://` or `https://` URL `apnsd serve` POSTs events to (with webhook.secret or webhook.secretFile)"
        ) { c, v in c.webhookURL = try ServiceURL.validateWebhook(v, setting: "webhook.url") },
        Setting(
            "webhook.secret", "APNSD_WEBHOOK_SECRET", "webhook-secret", "S", default: "none",
            "key of the webhook's HMAC-SHA256 signature (`X-Apnsd-Signature`), at least 16 characters"
        ) { c, v in c.webhookSecret = try secret(v, "webhook.secret") },
        Setting(
            "webhook.secretFile", "APNSD_WEBHOOK_SECRET_FILE", "webhook-secret-file", "PATH", default: "none",
            "file holding webhook.secret (trailing newline ignored; relative to `$CREDENTIALS_DIRECTORY` in the config file, for `LoadCredential=`); not with webhook.secret"
        ) { c, v in c.webhookSecretFile = try nonEmpty(v, "webhook.secretFile") },
        Setting(
            "webhook.previousSecret", "APNSD_WEBHOOK_PREVIOUS_SECRET", "webhook-previous-secret", "S", default: "none",
            "the secret being rotated out: while set, `X-Apnsd-Signature` carries a second `v1=` signed with it"
        ) { c, v in c.webhookPreviousSecret = try secret(v, "webhook.previousSecret") },
        Setting(
            "webhook.legacySignature", "APNSD_WEBHOOK_LEGACY_SIGNATURE", "webhook-legacy-signature", "BOOL",
            default: "true",
            "also send the old body-only signature, `X-Apnsd-Signature-Legacy: sha256=…` (replayable: move receivers to `X-Apnsd-Signature`, then set `false`)"
        ) { c, v in c.webhookLegacySignature = try boolean(v, "webhook.legacySignature") },
        Setting(
            "webhook.maxAttempts", "APNSD_WEBHOOK_MAX_ATTEMPTS", "webhook-max-attempts", "N", default: "20",
            "refusals after which a batch failing for at least an hour is parked, so later events go on (`apnsd webhook retry` sends it again)"
        ) { c, v in c.webhookMaxAttempts = try integer(v, "webhook.maxAttempts", 1...10_000) },
        Setting(
            "retention.deliveriesOlderThan", "APNSD_RETENTION_DELIVERIES_OLDER_THAN", "deliveries-older-than", "AGE",
            default: "30d",
            "`apnsd prune` deletes finished deliveries not changed for this long (`90m`, `24h`, `30d`)"
        ) { c, v in
            c.retentionDeliveries = try TimeSpan(parsing: v, name: "retention.deliveriesOlderThan")
        },
        Setting(
            "retention.devicesInactiveFor", "APNSD_RETENTION_DEVICES_INACTIVE_FOR", "devices-inactive-for", "AGE",
            default: "90d",
            "`apnsd prune` deletes devices deactivated, or active but not registered again, for this long"
        ) { c, v in
            c.retentionDevices = try TimeSpan(parsing: v, name: "retention.devicesInactiveFor")
        },
    ]

    /// `APNSD_*` variables that are not settings but are read (the config file's path).
    public static let otherEnvironment: Set<String> = ["APNSD_CONFIG"]

    /// Every `APNSD_*` name apnsd reads: the settings' (so a setting added to `settings` is known at once) and
    /// `otherEnvironment`.
    public static var environmentNames: [String] { settings.map(\.environment) + otherEnvironment.sorted() }

    /// One warning per `APNSD_*` variable in `environment` that apnsd does not read, naming the closest known
    /// name: a misspelt setting (`APNSD_MAX_ATTEMPTS`) would otherwise be silently ignored. A warning, not a
    /// refusal: a stray or newer variable in a unit's environment must not stop a running service.
    public static func unknownEnvironmentWarnings(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> [String]
    {
        let known = environmentNames
        return environment.keys.filter { $0.hasPrefix("APNSD_") && !known.contains($0) }.sorted().map { unknown in
            let near = known.min { distance($0, unknown) < distance($1, unknown) } ?? ""
            return "unknown environment variable \(Printable.escaped(unknown)) is ignored (did you mean \(near)?)"
        }
    }

    public init() {}

    /// Flags every command accepts (the settings above, plus --config).
    public static var flagNames: Set<String> { Set(settings.map(\.flag) + ["config"]) }

    /// Why loading stopped: a usage error (a bad flag or variable: exit 64) or a bad config file (exit 1).
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var description: String
        public var isUsage: Bool
    }

    /// Config files are read only this far (they are a few hundred bytes).
    public static let maximumFileBytes = 1 << 20

    /// The config file read: `--config`, else `APNSD_CONFIG`, else `./apnsd.json` when it exists; nil: none.
    public static func configFile(
        configPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        configPath ?? environment["APNSD_CONFIG"]
            ?? (FileManager.default.fileExists(atPath: "./apnsd.json") ? "./apnsd.json" : nil)
    }

    /// Loads file, environment and flags in that order. `flag(name)` gives a flag's value (nil when absent);
    /// `configPath` is `--config` when given.
    public static func load(
        configPath: String?, flag: (String) throws -> String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LoadError) -> Configuration {
        var configuration = Configuration()
        if let path = configFile(configPath: configPath, environment: environment) {
            guard let bytes = try? BoundedRead.file(path, limit: maximumFileBytes) else {
                throw LoadError(
                    description: "cannot read config file \(path) (missing, unreadable, or over 1 MiB)", isUsage: false)
            }
            do { try configuration.apply(fileBytes: bytes) } catch {
                throw LoadError(description: "config file \(path): \(error)", isUsage: false)
            }
            if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
                configuration.resolveCredentialFiles(in: directory)
            }
        }
        for setting in settings {
            if let value = environment[setting.environment] {
                do { try setting.apply(&configuration, value) } catch {
                    throw LoadError(description: "\(setting.environment): \(error)", isUsage: true)
                }
            }
        }
        for setting in settings {
            let value: String?
            do { value = try flag(setting.flag) } catch { throw LoadError(description: "\(error)", isUsage: true) }
            if let value {
                do { try setting.apply(&configuration, value) } catch {
                    throw LoadError(description: "\(error)", isUsage: true)
                }
            }
        }
        if configuration.retryCap < configuration.retryBase {
            throw LoadError(
                description:
                    "retry.cap (\(configuration.retryCap)) must not be below retry.base (\(configuration.retryBase))",
                isUsage: true)
        }
        if configuration.workerLease < 2 * configuration.workerHeartbeat {
            throw LoadError(
                description:
                    "worker.lease (\(configuration.workerLease) s) must be at least twice worker.heartbeat (\(configuration.workerHeartbeat) s), or live workers lose their leases",
                isUsage: true)
        }
        if !configuration.credentials.isEmpty {
            do { _ = try configuration.sendingCredentials() } catch {
                throw LoadError(description: error.description, isUsage: true)
            }
        }
        if (configuration.apiTLSCert == nil) != (configuration.apiTLSKey == nil) {
            throw LoadError(
                description: "api.tlsCert and api.tlsKey go together: set both (HTTPS) or neither (HTTP)", isUsage: true
            )
        }
        if configuration.webhookSecret != nil && configuration.webhookSecretFile != nil {
            throw LoadError(
                description: "webhook.secret and webhook.secretFile both give the webhook's secret: set one",
                isUsage: true)
        }
        if (configuration.webhookURL == nil)
            != (configuration.webhookSecret == nil && configuration.webhookSecretFile == nil)
        {
            throw LoadError(
                description:
                    "webhook.url and webhook.secret (or webhook.secretFile) go together: set both (signed webhooks) or neither",
                isUsage: true)
        }
        return configuration
    }

    /// Whether a webhook is configured (`webhook.url`, with its secret given one way or the other).
    public var webhookConfigured: Bool { webhookURL != nil && (webhookSecret != nil || webhookSecretFile != nil) }

    /// The webhook's secret: `webhook.secret`, or the contents of `webhook.secretFile` (its trailing newline
    /// ignored), checked as `webhook.secret` is; nil when neither is set. Read only by the commands that sign.
    public func webhookSecretValue() throws(IntakeError) -> String? {
        guard let path = webhookSecretFile else { return webhookSecret }
        guard let bytes = try? BoundedRead.file(path, limit: 4096), var text = String(bytes: bytes, encoding: .utf8)
        else {
            throw IntakeError("cannot read webhook.secretFile \(path) (missing, unreadable, or over 4 KiB)")
        }
        while let last = text.unicodeScalars.last, last == "\n" || last == "\r" { text.unicodeScalars.removeLast() }
        do { return try secret(text, "webhook.secretFile's secret") } catch {
            throw IntakeError("webhook.secretFile \(path): the secret must be at least 16 printable characters")
        }
    }

    /// How long after its last heartbeat a worker's leases may be taken over.
    public var lease: Duration { .milliseconds(Int64(workerLease * 1000)) }
}

private func nonEmpty(_ value: String, _ name: String) throws(IntakeError) -> String {
    guard !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw IntakeError("\(name) must not be empty") }
    return value
}

/// `host:port` or `[host]:port` with a port from 0 to 65535. Only the shape: whether the host is an IP literal is
/// the HTTP server's `ListenAddress` to say (Intake does not depend on the server and its C library).
private func listenAddress(_ value: String, _ name: String) throws(IntakeError) -> String {
    let shape =
        "\(name) must be host:port or [IPv6]:port with a port from 0 to 65535, got '\(Printable.escaped(value))'"
    let host: Substring
    let port: Substring
    if value.hasPrefix("[") {
        guard let close = value.firstIndex(of: "]"), value[value.index(after: close)...].hasPrefix(":") else {
            throw IntakeError(shape)
        }
        host = value[value.index(after: value.startIndex)..<close]
        port = value[value.index(close, offsetBy: 2)...]
    } else {
        guard let colon = value.lastIndex(of: ":"), !value[..<colon].contains(":") else { throw IntakeError(shape) }
        host = value[..<colon]
        port = value[value.index(after: colon)...]
    }
    guard !host.isEmpty, !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
        let number = Int(port), (0...65535).contains(number)
    else { throw IntakeError(shape) }
    return value
}

/// A webhook secret: printable, at least 16 characters (a shorter one is guessable from signed bodies offline).
private func secret(_ value: String, _ name: String) throws(IntakeError) -> String {
    guard value.count >= 16, Printable.isPrintable(value) else {
        throw IntakeError("\(name) must be at least 16 printable characters")
    }
    return value
}

private func url(_ value: String, _ name: String) throws(IntakeError) -> String {
    try ServiceURL.validateBase(value, setting: name)
}

/// `none` (the default), `environment` (libcurl's https_proxy/no_proxy variables), or a proxy URL.
private func proxySetting(_ value: String) throws(IntakeError) -> ProxySetting {
    switch value {
    case "none", "": return .none
    case "environment": return .environment
    default:
        return .url(try ServiceURL.validateProxy(value, setting: "apns.proxy"))
    }
}

private func bundleID(_ value: String, _ name: String) throws(IntakeError) -> String {
    do { try Topic.validate(value) } catch { throw IntakeError("\(name): \(error)") }
    return value
}

private func integer(_ value: String, _ name: String, _ range: ClosedRange<Int>) throws(IntakeError) -> Int {
    guard let number = Int(value), range.contains(number) else {
        throw IntakeError(
            "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(value)'")
    }
    return number
}

private func number(_ value: String, _ name: String, _ range: ClosedRange<Double>) throws(IntakeError) -> Double {
    guard let number = Double(value), range.contains(number) else {
        throw IntakeError("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), got '\(value)'")
    }
    return number
}

private func boolean(_ value: String, _ name: String) throws(IntakeError) -> Bool {
    switch value {
    case "true": return true
    case "false": return false
    default: throw IntakeError("\(name) must be true or false, got '\(Printable.escaped(value))'")
    }
}

private func oneOf(_ value: String, _ name: String, _ allowed: [String]) throws(IntakeError) -> String {
    guard allowed.contains(value) else {
        throw IntakeError("\(name) must be one of \(allowed.joined(separator: ", ")), got '\(value)'")
    }
    return value
}

/// Edit distance, for "did you mean".
private func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in 1...max(b.count, 1) where !b.isEmpty {
            let current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = current
        }
    }
    return row[b.count]
}
