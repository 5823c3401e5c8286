import Foundation
import ProviderAuth
import Testing

@Suite("ProviderTokenCache")
struct ProviderTokenCacheTests {
    let clock = ManualClock()
    let cache: ProviderTokenCache

    init() throws {
        let key = try SigningKey(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.p8"))
        let credential = try ProviderCredential(keyId: "TESTKEY001", teamId: "TEAMID0001")
        cache = ProviderTokenCache(key: key, credential: credential, clock: { [clock] in clock.now })
    }

    @Test("one token is reused for just under 50 minutes, then replaced")
    func reuseThenRefresh() async throws {
        let first = try await cache.token()
        #expect(first.issuedAt == clock.now)
        clock.advance(by: 50 * 60 - 1)
        #expect(try await cache.token() == first)
        #expect(await cache.mintCount == 1)
        clock.advance(by: 1)
        let second = try await cache.token()
        #expect(second != first)
        #expect(second.issuedAt == clock.now)
        #expect(await cache.mintCount == 2)
    }

    @Test("the current token is read without the actor while it needs no minting, and never stale or of an old key")
    func currentTokenWithoutTheActor() async throws {
        #expect(cache.currentToken() == nil, "nothing minted yet")
        let first = try await cache.token()
        #expect(cache.currentToken() == first)
        clock.advance(by: 50 * 60 - 1)
        #expect(cache.currentToken() == first)
        clock.advance(by: 1)
        #expect(cache.currentToken() == nil, "due for refresh: token() mints")
        let second = try await cache.token()
        #expect(cache.currentToken() == second && second != first)
        let expired = try await cache.tokenAfterExpired(second)
        #expect(cache.currentToken() == expired && expired != second)
        await cache.replace(
            key: try SigningKey.generate(),
            credential: try ProviderCredential(keyId: "ROTATED002", teamId: "TEAMID0001"))
        #expect(cache.currentToken() == nil, "a replaced key's token is never handed out")
        #expect(await cache.mintCount == 3)
    }

    @Test("a replaced key signs the next token, under its own key id, at once")
    func replacedKeySignsTheNextToken() async throws {
        let first = try await cache.token()
        clock.advance(by: 60)
        let rotated = try SigningKey.generate()
        await cache.replace(key: rotated, credential: try ProviderCredential(keyId: "ROTATED002", teamId: "TEAMID0001"))
        let next = try await cache.token()
        #expect(next != first && next.keyId == "ROTATED002" && next.issuedAt == clock.now)
        // Signed by the new key: its signature verifies with it over the JWT's header and claims.
        let parts = next.value.split(separator: ".")
        let signature = try #require(Base64URL.decode(String(parts[2])))
        #expect(rotated.verifyES256(message: Array("\(parts[0]).\(parts[1])".utf8), rawSignature: signature))
        #expect(await cache.mintCount == 2)
    }

    @Test("ExpiredProviderToken for the current token mints a new one even when it is young")
    func expiredCurrentTokenIsReplaced() async throws {
        let first = try await cache.token()
        clock.advance(by: 60)
        let replacement = try await cache.tokenAfterExpired(first)
        #expect(replacement != first)
        #expect(replacement.issuedAt == clock.now)
        #expect(try await cache.token() == replacement)
        #expect(await cache.mintCount == 2)
    }

    @Test("50 concurrent ExpiredProviderToken reports for one token mint exactly once")
    func singleFlight() async throws {
        let rejected = try await cache.token()
        let before = await cache.mintCount
        let replacements = try await withThrowingTaskGroup(of: ProviderToken.self) { group in
            for _ in 0..<50 {
                group.addTask { [cache] in try await cache.tokenAfterExpired(rejected) }
            }
            return try await group.reduce(into: Set<ProviderToken>()) { $0.insert($1) }
        }
        #expect(await cache.mintCount == before + 1)
        #expect(replacements.count == 1)
        #expect(!replacements.contains(rejected))
    }

    @Test("a stale rejected token, already replaced, mints nothing and gets the current token")
    func staleRejectionDoesNotMint() async throws {
        let old = try await cache.token()
        clock.advance(by: 50 * 60)
        let current = try await cache.token()
        #expect(await cache.mintCount == 2)
        #expect(try await cache.tokenAfterExpired(old) == current)
        #expect(await cache.mintCount == 2)
    }

    @Test("a stale rejection while the current token is due still refreshes it")
    func staleRejectionRefreshesDueToken() async throws {
        let old = try await cache.token()
        clock.advance(by: 50 * 60)
        let current = try await cache.token()
        clock.advance(by: 50 * 60)
        let next = try await cache.tokenAfterExpired(old)
        #expect(next != current)
        #expect(await cache.mintCount == 3)
    }
}
