/// Why the worker stopped before its work was done.
public enum DispatcherError: Error, Sendable, CustomStringConvertible {
    /// APNs or TLS refused our configuration; nothing more is sent until it is fixed. The queue is intact.
    case configuration(String)
    /// The queue could not be read or written.
    case store(String)
    /// The provider token could not be made.
    case providerToken(String)
    /// `--until-idle` ended with work left because APNs could not be reached; it stays pending, attempts unspent.
    case unreachable(String)

    public var description: String {
        switch self {
        case .configuration(let why): return "stopped sending: \(why)"
        case .store(let why): return "queue error: \(why)"
        case .providerToken(let why): return "cannot make a provider token: \(why)"
        case .unreachable(let why): return why
        }
    }
}
