import Foundation
import Logging
import ProviderAuth

extension Worker {
    /// Applies settings read again while running (SIGHUP): the retry policy, the log level, and — when `key` is
    /// given — a new signing key and credential, whose first token is minted for the next request (its pools are
    /// keyed by the new key id, so its connections are new too). Requests in flight finish as they started.
    public func reload(retry: RetryPolicy, logLevel: Logger.Level, key: (SigningKey, ProviderCredential)?) async {
        if let (key, credential) = key { await tokens.replace(key: key, credential: credential) }
        reloadable.withLock { current in
            current.configuration.retry = retry
            if let (_, credential) = key { current.configuration.credentialID = credential.keyId }
            current.logger.minimumLevel = logLevel
        }
    }
}
