/// How the worker paces itself.
public struct WorkerConfiguration: Sendable, Hashable {
    /// Which credential's connection pools to send on (one team for now).
    public var credentialID: String
    /// Deliveries claimed from the store at a time.
    public var claimBatch: Int
    /// Requests in flight at once across all connections.
    public var maxInFlight: Int
    /// How long a claimed delivery stays reserved; a killed worker's leases expire after it.
    public var lease: Duration
    /// Backoff and attempt limit for retryable failures.
    public var retry: RetryPolicy
    /// Devices expanded into deliveries per page.
    public var expansionPageSize: Int
    /// Outcomes written per transaction (at most; a partial batch is written when sends pause).
    public var recordBatch: Int
    /// The longest an outcome waits in memory before it is written: bounds what a crash makes us send again.
    public var recordInterval: Duration
    /// How often an idle worker looks for new work.
    public var pollInterval: Duration

    public init(credentialID: String = "default", claimBatch: Int = 1000, maxInFlight: Int = 2000,
                lease: Duration = .seconds(120), retry: RetryPolicy = RetryPolicy(), expansionPageSize: Int = 5000,
                recordBatch: Int = 1000, recordInterval: Duration = .milliseconds(100), pollInterval: Duration = .seconds(1)) {
        self.credentialID = credentialID
        self.claimBatch = claimBatch
        self.maxInFlight = maxInFlight
        self.lease = lease
        self.retry = retry
        self.expansionPageSize = expansionPageSize
        self.recordBatch = recordBatch
        self.recordInterval = recordInterval
        self.pollInterval = pollInterval
    }
}
