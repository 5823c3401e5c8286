import APNs

/// Settings for every pool of a `TransportRegistry` (the `apns.*` configuration).
public struct TransportConfiguration: Sendable, Hashable {
    /// Base URL per environment; Apple's hosts unless overridden (the simulator, a staging proxy).
    public var baseURLs: [Environment: String]
    /// A PEM CA bundle to verify the server with instead of the system store. Verification is always on.
    public var caFile: String?
    /// Connections per pool, i.e. per (credential, environment) (`apns.connections`).
    public var connectionsPerPool: Int
    /// Requests per second per connection (`apns.rate`); 0 = unthrottled.
    public var ratePerConnection: Int
    public var connectTimeout: Duration
    public var requestTimeout: Duration
    /// Streams handed to libcurl at once per connection.
    public var maxInFlightPerConnection: Int
    /// Re-sends by the transport of requests whose stream the connection cut.
    public var transportRetries: Int
    /// Direct, or through a proxy (`apns.proxy`).
    public var proxy: Proxy
    /// The client certificate of each certificate-based credential, by `PoolKey.credentialID`; pools of
    /// credentials not listed (token-based ones) present none.
    public var clientIdentities: [String: ClientIdentity]
    /// The shortest and longest pause of a connection that could not connect, before it tries again (the
    /// worker's outage schedule: `retry.base` and `retry.cap`).
    public var reconnectBase: Duration
    public var reconnectCap: Duration

    public init(
        baseURLs: [Environment: String] = [:], caFile: String? = nil, connectionsPerPool: Int = 2,
        ratePerConnection: Int = 1500, connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
        maxInFlightPerConnection: Int = 1000, transportRetries: Int = 1, proxy: Proxy = .none,
        clientIdentities: [String: ClientIdentity] = [:], reconnectBase: Duration = .seconds(1),
        reconnectCap: Duration = .seconds(300)
    ) {
        self.reconnectBase = reconnectBase
        self.reconnectCap = reconnectCap
        self.proxy = proxy
        self.clientIdentities = clientIdentities
        self.baseURLs = baseURLs
        self.caFile = caFile
        self.connectionsPerPool = connectionsPerPool
        self.ratePerConnection = ratePerConnection
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxInFlightPerConnection = maxInFlightPerConnection
        self.transportRetries = transportRetries
    }

    /// The base URL for `environment`: the configured one, else Apple's.
    public func baseURL(for environment: Environment) -> String {
        baseURLs[environment] ?? environment.defaultBaseURL
    }

    /// The settings of each connection of the pool for `key`.
    public func connectionConfiguration(for key: PoolKey) -> ConnectionConfiguration {
        ConnectionConfiguration(
            baseURL: baseURL(for: key.environment), caFile: caFile, ratePerSecond: ratePerConnection,
            connectTimeout: connectTimeout, requestTimeout: requestTimeout,
            maxInFlight: maxInFlightPerConnection, transportRetries: transportRetries, label: key.credentialID,
            proxy: proxy,
            clientIdentity: clientIdentities[key.credentialID])
    }
}
