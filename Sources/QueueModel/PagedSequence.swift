/// An async sequence that fetches a listing page by page (keyset paging on an increasing id), so that a
/// million rows are never in memory at once: `for try await device in store.allDevices() { … }`.
public struct PagedSequence<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Fetch = @Sendable (_ after: Int64?, _ limit: Int) async throws -> [Element]

    let pageSize: Int
    let cursor: @Sendable (Element) -> Int64
    let fetch: Fetch

    /// Pages of `pageSize` (at least 1); `cursor` gives an element's increasing id, passed to `fetch` as `after`.
    public init(pageSize: Int, cursor: @escaping @Sendable (Element) -> Int64, fetch: @escaping Fetch) {
        self.pageSize = Swift.max(1, pageSize)
        self.cursor = cursor
        self.fetch = fetch
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: PagedSequence
        var page: [Element] = []
        var index = 0
        var after: Int64?
        var exhausted = false

        init(sequence: PagedSequence) {
            self.sequence = sequence
        }

        /// Runs on the caller's isolation (no executor hop per element; one hop to the store per page).
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Element? {
            if index == page.count {
                guard !exhausted else { return nil }
                page = try await sequence.fetch(after, sequence.pageSize)
                index = 0
                exhausted = page.count < sequence.pageSize
                guard let last = page.last else { return nil }
                after = sequence.cursor(last)
            }
            defer { index += 1 }
            return page[index]
        }

        public mutating func next() async throws -> Element? {
            try await next(isolation: nil)
        }
    }
}
