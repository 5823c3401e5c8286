import QueueModel

/// Why the worker ended before its work was done.
public enum DispatcherError: Error, Sendable, CustomStringConvertible {
    /// APNs, TLS or the signing key refused our configuration; nothing more is sent until it is fixed.
    case stopped(WorkerStop)
    /// The queue could not be read or written.
    case store(StoreError)
    /// Stopped by a second signal while the database refused writes: these outcomes were not written (the
    /// deliveries are sent again by a later worker).
    case outcomesUnwritten(count: Int, StoreError)
    /// `--until-idle` ended with work left because APNs could not be reached; it stays pending, attempts unspent.
    case unreachable(seconds: Int, because: String)
    /// Anything else that ended the loop (a bug: the message says what).
    case unexpected(String)

    public var description: String {
        switch self {
        case .stopped(let stop): return "stopped sending: \(stop)"
        case .store(let error): return "queue error: \(error)"
        case .outcomesUnwritten(let count, let error):
            return "stopped with \(count) outcomes unwritten (they will be sent again): \(error)"
        case .unreachable(let seconds, let because):
            return
                "APNs unreachable for \(seconds) s (\(because)): undelivered work left pending with its attempts unspent; run the worker again once APNs can be reached"
        case .unexpected(let why): return "worker failed: \(why)"
        }
    }
}
