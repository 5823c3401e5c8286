/// How the worker paces itself.
public struct WorkerConfiguration: Sendable, Hashable {
    /// Deliveries claimed from the store at a time: what the worker holds unsent. `paced` keeps it to about
    /// two seconds of the pool's rate, so claims never wait long in memory.
    public var claimBatch: Int
    /// Requests handed to the transport at once across all connections: what waits on the connections
    /// beyond their open streams. `paced` keeps it to about one second of the pool's rate, so a cancel or a
    /// SIGTERM has little to take back.
    public var maxInFlight: Int
    /// How long after its last heartbeat a worker's leases may be taken over by another worker (`worker.lease`).
    public var lease: Duration
    /// How often the worker records that it is alive (`worker.heartbeat`); well under `lease`.
    public var heartbeat: Duration
    /// How often the worker looks for cancel requests (a `campaign cancel` waits for it).
    public var cancelPollInterval: Duration
    /// Backoff and attempt limit for retryable failures, and the pause schedule when APNs is unreachable.
    public var retry: RetryPolicy
    /// Devices expanded into deliveries per page.
    public var expansionPageSize: Int
    /// Outcomes written per transaction (at most; a partial batch is written when sends pause).
    public var recordBatch: Int
    /// The longest an outcome waits in memory before it is written: bounds what a crash makes us send again.
    public var recordInterval: Duration
    /// How often an idle worker looks for new work.
    public var pollInterval: Duration
    /// With `--until-idle`: how long APNs may stay unreachable before the run ends with the work left pending.
    /// nil: `retry.cap`.
    public var unreachableLimit: Duration?
    /// How often the worker writes its throughput line while it sends.
    public var throughputLogInterval: Duration = .seconds(10)

    public init(
        claimBatch: Int = 1000, maxInFlight: Int = 2000,
        lease: Duration = .seconds(30), heartbeat: Duration = .seconds(5),
        cancelPollInterval: Duration = .milliseconds(100),
        retry: RetryPolicy = RetryPolicy(), expansionPageSize: Int = 5000,
        recordBatch: Int = 1000, recordInterval: Duration = .milliseconds(100), pollInterval: Duration = .seconds(1),
        unreachableLimit: Duration? = nil
    ) {
        self.unreachableLimit = unreachableLimit
        self.claimBatch = claimBatch
        self.maxInFlight = maxInFlight
        self.lease = lease
        self.heartbeat = heartbeat
        self.cancelPollInterval = cancelPollInterval
        self.retry = retry
        self.expansionPageSize = expansionPageSize
        self.recordBatch = recordBatch
        self.recordInterval = recordInterval
        self.pollInterval = pollInterval
    }

    /// Sizes `claimBatch` and `maxInFlight` for a pool of `connections` at `ratePerConnection` (0 =
    /// unthrottled): about two seconds and one second of the pool's rate, within the defaults.
    public mutating func pace(ratePerConnection rate: Int, connections: Int) {
        guard rate > 0 else { return }
        let perSecond = rate * max(1, connections)
        maxInFlight = max(1, min(maxInFlight, perSecond))
        claimBatch = max(1, min(claimBatch, 2 * perSecond))
    }
}
