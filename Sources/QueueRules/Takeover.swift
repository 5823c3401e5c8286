/// When a worker's leases may be taken over: only once its heartbeat is older than `staleAfter` (a worker that
/// heartbeats keeps what it holds, however long it takes to send).
package struct Takeover: Hashable, Sendable {
    /// How long a heartbeat stays fresh, in milliseconds.
    package var staleAfter: Int64

    package init(staleAfter: Duration) {
        self.staleAfter = Milliseconds.from(staleAfter)
    }

    /// Heartbeats before this (milliseconds) are stale at `now`: their worker is taken over.
    package func staleBefore(now: Int64) -> Int64 { now - staleAfter }

    /// Whether a worker last seen at `heartbeat` is stale at `now`.
    package func isStale(heartbeat: Int64, now: Int64) -> Bool { heartbeat < staleBefore(now: now) }

    /// The first time at which a worker last seen at `heartbeat` is stale.
    package func date(heartbeat: Int64) -> Int64 { heartbeat + staleAfter + 1 }
}
