/// One producer request to enqueue: a notification (one spec), a batch of notifications (one spec each, all or
/// none), or a campaign; optionally under an idempotency key.
public struct EnqueueRequest: Sendable {
    public var specs: CampaignSpecs
    public var idempotency: IdempotencyKey?

    public init(specs: [CampaignSpec], idempotency: IdempotencyKey? = nil) {
        self.init(specs: CampaignSpecs(specs), idempotency: idempotency)
    }

    public init(specs: CampaignSpecs, idempotency: IdempotencyKey? = nil) {
        self.specs = specs
        self.idempotency = idempotency
    }
}

/// What an `EnqueueRequest` created (or, replayed, what the first request with its key created).
public struct Enqueued: Hashable, Sendable {
    /// The campaign id of each spec, in order.
    public var ids: [CampaignID]
    /// The deliveries each spec created when it was enqueued (a bulk campaign's are created later: 0).
    public var deliveries: [Int]
    /// True when the key had been used with the same request: nothing was enqueued now.
    public var isReplay: Bool

    public init(ids: [CampaignID], deliveries: [Int], isReplay: Bool) {
        self.ids = ids
        self.deliveries = deliveries
        self.isReplay = isReplay
    }
}
