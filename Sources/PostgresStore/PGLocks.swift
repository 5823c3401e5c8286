/// The advisory lock keys of apnsd's PostgreSQL store, in one place so that no two rules share a key by accident.
/// A single-key lock and a two-key lock live in separate key spaces.
enum PGLocks {
    /// Session lock while migrations run: two processes starting at once do not both apply one.
    static let migration: Int64 = 7_085_477
    /// Taken by every transaction that inserts events, before it touches a device row: event ids follow commit order.
    static let eventOrder: Int64 = 7_085_478
    /// Taken by cancel requests: their sequence numbers follow commit order (workers poll after the last one seen).
    static let cancelOrder: Int64 = 7_085_479
    /// First key of the two-key locks on idempotency keys (the second is the key's hash).
    static let idempotency: Int32 = 7_085_479
}
