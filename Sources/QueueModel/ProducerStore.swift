import APNs
import Foundation

/// What producers (the CLI's commands, later the HTTP API) need from the queue: the device registry, campaigns
/// and single sends, cancels, requeues, the delivery log and the workers listing. The producer side of a store
/// (`DeliveryStore` is the worker side); `Store` (module Store) implements both on SQLite.
///
/// Times given as `now:` are injected so tests control the clock; callers pass the current time.
public protocol ProducerStore: Actor {
    /// Pauses a running or scheduled bulk campaign: nothing more of it is sent until resumed; returns it and the
    /// deliveries parked.
    func pauseCampaign(_ id: CampaignID, now: Date) async throws(StoreError) -> (campaign: Campaign, parked: Int)
    /// Resumes a paused campaign where it stopped; returns it and the deliveries due again.
    func resumeCampaign(_ id: CampaignID, now: Date) async throws(StoreError) -> (campaign: Campaign, resumed: Int)
    /// Outcomes, requests and deactivations since `since` (of one campaign when given), and the queue now.
    func stats(since: Date, campaign: CampaignID?, now: Date) async throws(StoreError) -> OutcomeStats
    /// Outcomes and requests per `step` seconds (whole minutes) since `since`, of everything or of one bulk
    /// campaign (`StoreError` not found when there is no such campaign; a single send has no series: all zeros).
    func outcomeSeries(since: Date, step: Int, campaign: CampaignID?, now: Date) async throws(StoreError)
        -> OutcomeSeries
    /// Registers (or re-registers: refreshes, reactivates) a device; says whether the device is new and which
    /// device `replaces` deactivated.
    func registerDevice(_ registration: DeviceRegistration, now: Date) async throws(StoreError) -> RegistrationResult
    /// Every registration of `token` (one per topic), by topic.
    func devices(token: DeviceToken) async throws(StoreError) -> [Device]
    /// Deactivates the device of `token` for `topic` (for its only topic when nil; `StoreError.ambiguousDevice`
    /// when it has several) with `reason`. Returns the device as stored after, nil when unknown; a device
    /// already inactive is returned unchanged.
    func deactivateDevice(token: DeviceToken, topic: String?, reason: Reason, now: Date) async throws(StoreError)
        -> Device?
    /// Deactivates every active device of `user` with `reason`; returns how many.
    func deactivateDevices(user: String, reason: Reason, now: Date) async throws(StoreError) -> Int
    /// Registers many devices, `commitEvery` per transaction; returns how many registrations were written. With
    /// `linkUsersLater`, an engine may leave the devices' user links for `linkImportedUsers()` (a file imported in
    /// many calls links its users once, at its end).
    func importDevices(
        _ registrations: [DeviceRegistration], now: Date, commitEvery: Int, linkUsersLater: Bool
    ) async throws(StoreError) -> Int
    /// Links the users of devices imported with `linkUsersLater` (and of an import stopped before its end); returns
    /// how many links were waiting.
    func linkImportedUsers() async throws(StoreError) -> Int
    /// The device registered with `token` for `topic`, if any.
    func device(token: DeviceToken, topic: String) async throws(StoreError) -> Device?
    /// One page of the registry in id order: devices with an id greater than `after`; `active`, `user` and `kind`
    /// filter.
    func devices(active: Bool?, user: String?, kind: DeviceKind?, after: Int64?, limit: Int) async throws(StoreError)
        -> [Device]
    /// How many devices are registered (optionally only active or inactive ones).
    func deviceCount(active: Bool?) async throws(StoreError) -> Int
    /// How many deliveries `spec`'s audience would make now, by environment (a dry run; writes nothing).
    func audienceCount(_ spec: CampaignSpec) async throws(StoreError) -> AudienceCount

    /// Enqueues several producers' requests in one transaction, each all or nothing on its own; a request whose
    /// idempotency key was used with the same request replays its result, with another request fails with
    /// `StoreError.idempotencyConflict`.
    func enqueue(_ requests: [EnqueueRequest], now: Date) async throws(StoreError) -> [Result<Enqueued, StoreError>]
    /// What the key's first request created, if remembered with the same request hash (else the conflict error).
    func idempotentResult(_ key: IdempotencyKey, now: Date) async throws(StoreError) -> Enqueued?
    /// Seals a draft and remembers `key` for it in one transaction; a key remembered meanwhile wins (the draft is dropped).
    func sealCampaign(_ id: CampaignID, remembering key: IdempotencyKey, now: Date) async throws(StoreError) -> Enqueued
    /// Starts a bulk campaign to tokens that arrive in chunks: a `draft` until `sealCampaign`.
    func beginCampaign(_ spec: CampaignSpec, now: Date) async throws(StoreError) -> CampaignID
    /// Appends a chunk of tokens to a draft campaign.
    func appendTokens(_ tokens: [DeviceToken], to id: CampaignID) async throws(StoreError)
    /// Ends a draft: the campaign is scheduled and sent from its `scheduledAt` on.
    func sealCampaign(_ id: CampaignID) async throws(StoreError) -> Campaign
    /// The campaign with this id; `StoreError.unknownCampaign` when there is none.
    func campaign(_ id: CampaignID) async throws(StoreError) -> Campaign
    /// Campaigns newest first, with an id below `before` (for paging), optionally of one kind or status.
    func campaigns(kind: CampaignKind?, status: CampaignStatus?, before: CampaignID?, limit: Int)
        async throws(StoreError) -> [Campaign]
    /// Makes the campaign's `failed` or `rejected` deliveries pending again (attempts reset); returns how many.
    func requeue(_ id: CampaignID, status: DeliveryStatus, now: Date) async throws(StoreError) -> Int

    /// Cancel, step 1: records a request every live worker acknowledges; nil when the campaign already finished.
    func requestCancel(_ id: CampaignID, now: Date) async throws(StoreError) -> CancelRequest?
    /// Live workers (heartbeat within `staleAfter` of `now`) that have not acknowledged `request` yet.
    func workersYetToAcknowledge(_ request: CancelRequest, now: Date, staleAfter: Duration) async throws(StoreError)
        -> [WorkerID]
    /// Cancel, step 2: the campaign's pending deliveries become `cancelled`, and so does the campaign.
    func finishCancel(_ id: CampaignID, request: CancelRequest?, unacknowledged: Int, now: Date)
        async throws(StoreError) -> CancelReport

    /// One page of the delivery log in id order: rows with an id greater than `after` that match `filter`.
    func log(_ filter: LogFilter, after: DeliveryID?, limit: Int) async throws(StoreError) -> [LogEntry]
    /// One page of the delivery log newest first: rows with an id below `before` that match `filter`.
    func recentLog(_ filter: LogFilter, before: DeliveryID?, limit: Int) async throws(StoreError) -> [LogEntry]
    /// The log rows changed at or after `from` that match `filter`, in (`updatedAt`, id) order, at most `limit`,
    /// skipping those of exactly `from` with an id up to `after` (`apnsd log --follow` pages with the last row).
    func changedLog(_ filter: LogFilter, from: Date, after: DeliveryID?, limit: Int) async throws(StoreError)
        -> [LogEntry]
    /// The rows changed last at or before `through` that match `filter`, newest change first, at most `limit`,
    /// skipping those of exactly `through` with an id from `before` up (paging with the last row).
    func lastChanged(_ filter: LogFilter, through: Date, before: DeliveryID?, limit: Int) async throws(StoreError)
        -> [LogEntry]
    /// Every answer each delivery got, oldest first (`apnsd log --attempts`); a delivery without any is left out.
    func attempts(of deliveries: [DeliveryID]) async throws(StoreError) -> [DeliveryID: [DeliveryAttempt]]
    /// Moves whenever another connection commits (`PRAGMA data_version` for SQLite): a cheap "anything new?".
    func changeCount() async throws(StoreError) -> Int64
    /// The registered workers, oldest first, with the leases each holds.
    func workers() async throws(StoreError) -> [WorkerRecord]
    /// Closes the store; later calls fail with `StoreError.closed`.
    func close() async
}

extension ProducerStore {
    /// Registers many devices, `commitEvery` per transaction, each linked to its user before this returns.
    public func importDevices(_ registrations: [DeviceRegistration], now: Date, commitEvery: Int)
        async throws(StoreError) -> Int
    {
        try await importDevices(registrations, now: now, commitEvery: commitEvery, linkUsersLater: false)
    }
}
