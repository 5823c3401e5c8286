/// What `DeliveryStore.rescueStaleWorkers` did.
public struct RescueReport: Hashable, Sendable {
    /// Workers whose heartbeat had stopped; their rows are gone.
    public var workers: [WorkerID] = []
    /// Deliveries they held, now due again.
    public var deliveries = 0
    /// Cancels whose `campaign cancel` never finished, finished here.
    public var cancelsFinished = 0

    public init() {}
}
