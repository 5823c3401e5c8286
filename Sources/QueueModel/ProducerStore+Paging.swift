/// Listings as async sequences, built on the paged requirements, for every producer-side store.
extension ProducerStore {
    /// One page of the registry of every user and kind (`devices(active:user:kind:after:limit:)` without filters).
    public func devices(active: Bool?, after: Int64?, limit: Int) async throws(StoreError) -> [Device] {
        try await devices(active: active, user: nil, kind: nil, after: after, limit: limit)
    }

    /// One page of the registry, of every kind.
    public func devices(active: Bool?, user: String?, after: Int64?, limit: Int) async throws(StoreError) -> [Device] {
        try await devices(active: active, user: user, kind: nil, after: after, limit: limit)
    }

    /// Every device (optionally only active or inactive ones), fetched page by page as the sequence is iterated.
    public nonisolated func allDevices(active: Bool? = nil, pageSize: Int = 1000) -> PagedSequence<Device> {
        PagedSequence(
            pageSize: pageSize, cursor: { $0.id },
            fetch: { after, limit in try await self.devices(active: active, after: after, limit: limit) })
    }

    /// The whole log matching `filter`, fetched page by page as the sequence is iterated.
    public nonisolated func logEntries(
        _ filter: LogFilter = LogFilter(), pageSize: Int = 1000
    ) -> PagedSequence<LogEntry> {
        PagedSequence(
            pageSize: pageSize, cursor: { $0.id.rawValue },
            fetch: { after, limit in try await self.log(filter, after: after.map { DeliveryID($0) }, limit: limit) })
    }
}
