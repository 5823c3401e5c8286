import Foundation
import Threads

/// Hands out one provider token per key, re-minting it about every 50 minutes and at once when APNs says it expired.
public actor ProviderTokenCache {
    private var key: SigningKey
    private var credential: ProviderCredential
    private let clock: @Sendable () -> Date
    private let refreshAfter: TimeInterval
    /// The token handed out now: behind a lock rather than the actor alone, so that `currentToken` reads it.
    private let current = Locked<ProviderToken?>(nil)
    private let minted: @Sendable () -> Void

    /// How many tokens this cache has signed, for tests and metrics.
    public private(set) var mintCount = 0

    /// `refreshAfter` must be at least `minimumAge` (APNs answers 429 TooManyProviderTokenUpdates to faster
    /// rotation) and under an hour (APNs answers 403 ExpiredProviderToken to older tokens). `minted` is called
    /// after each token signed (metrics); it must return at once.
    public init(
        key: SigningKey,
        credential: ProviderCredential,
        clock: @escaping @Sendable () -> Date = Date.init,
        refreshAfter: TimeInterval = 50 * 60,
        minimumAge: TimeInterval = 20 * 60,
        minted: @escaping @Sendable () -> Void = {}
    ) {
        precondition(
            refreshAfter >= minimumAge,
            "ProviderTokenCache: refreshAfter (\(refreshAfter) s) must not be below minimumAge (\(minimumAge) s)")
        precondition(
            refreshAfter < 60 * 60,
            "ProviderTokenCache: refreshAfter (\(refreshAfter) s) must stay under 3600 s, or APNs rejects the token as expired"
        )
        self.key = key
        self.credential = credential
        self.clock = clock
        self.refreshAfter = refreshAfter
        self.minted = minted
    }

    /// The current token, minting a new one when there is none yet or it is `refreshAfter` old.
    public func token() throws(ProviderAuthError) -> ProviderToken {
        if let fresh = currentToken() { return fresh }
        return try mint()
    }

    /// `token()` when it needs no minting, without waiting for the actor (nil: call `token()`). The worker asks this
    /// for every request; a hop to the actor and back costs more than the request's own work.
    public nonisolated func currentToken() -> ProviderToken? {
        guard let token = current.withLock({ $0 }), clock().timeIntervalSince(token.issuedAt) < refreshAfter else {
            return nil
        }
        return token
    }

    /// The token to retry with after APNs answered 403 ExpiredProviderToken to `rejected`: a new one if `rejected`
    /// is still current (whatever its age), otherwise the current one, so concurrent rejections mint only once.
    public func tokenAfterExpired(_ rejected: ProviderToken) throws(ProviderAuthError) -> ProviderToken {
        if current.withLock({ $0 }) == rejected {
            return try mint()
        }
        return try token()
    }

    /// Signs with `key` from now on (a key rotated while running); the next request gets a token minted with it.
    public func replace(key: SigningKey, credential: ProviderCredential) {
        self.key = key
        self.credential = credential
        current.withLock { $0 = nil }
    }

    // Synchronous on purpose: with no suspension point inside, actor isolation alone makes minting single-flight.
    private func mint() throws(ProviderAuthError) -> ProviderToken {
        let token = try ProviderToken.mint(key: key, credential: credential, issuedAt: clock())
        current.withLock { $0 = token }
        mintCount += 1
        minted()
        return token
    }
}
