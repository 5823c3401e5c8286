import Foundation
import Logging

extension Worker {
    /// Applies settings read again while running (SIGHUP): the retry policy, the log level, and — when given — the
    /// credentials. A credential whose key or certificate changed has a new pool id, so its connections and its first
    /// token are new; one that did not change should be passed as it was (its token cache kept: APNs refuses a new
    /// token on a connection within 20 minutes). Every credential's pause ends. Requests in flight finish as they started.
    public func reload(retry: RetryPolicy, logLevel: Logger.Level, credentials: CredentialSet?) async {
        reloadable.withLock { current in
            current.configuration.retry = retry
            current.logger.minimumLevel = logLevel
            if let credentials {
                current.credentials = credentials
                current.generation += 1
            }
        }
    }
}
