import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

@Suite("JWTVerifier", .offThePool)
struct JWTVerifierTests {
    let key: SigningKey
    let credential: ProviderCredential
    let verifier: JWTVerifier
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    init() throws {
        key = try SigningKey.generate()
        credential = try ProviderCredential(keyId: "TESTKEY001", teamId: "TEAMID0001")
        verifier = JWTVerifier(key: key, credential: credential)
    }

    private func header(age: TimeInterval = 10, key: SigningKey? = nil, credential: ProviderCredential? = nil) throws
        -> String
    {
        try ProviderToken.mint(key: key ?? self.key, credential: credential ?? self.credential, issuedAt: now - age)
            .authorizationHeader
    }

    // A token assembled by hand, for headers and signatures that `mint` never produces.
    private func handmade(header: String, claims: String, signature: (String) throws -> String) rethrows -> String {
        let input = Base64URL.encode(header.utf8) + "." + Base64URL.encode(claims.utf8)
        return "bearer " + input + "." + (try signature(input))
    }

    @Test("a fresh token is valid and reports its iat")
    func valid() throws {
        #expect(
            verifier.verify(authorization: try header(), now: now)
                == .valid(issuedAt: 1_700_000_000 - 10, derSignature: false))
    }

    @Test("with several teams a token is checked against the key its kid names, and reports that team")
    func severalTeams() throws {
        let otherKey = try SigningKey.generate()
        let otherCredential = try ProviderCredential(keyId: "OTHERKEY01", teamId: "OTHERTEAM1")
        let teams = JWTVerifier(teams: [
            MockTeam(key: key, credential: credential), MockTeam(key: otherKey, credential: otherCredential),
        ])
        #expect(
            teams.verify(authorization: try header(), now: now)
                == .valid(issuedAt: 1_700_000_000 - 10, derSignature: false, team: 0))
        #expect(
            teams.verify(authorization: try header(key: otherKey, credential: otherCredential), now: now)
                == .valid(issuedAt: 1_700_000_000 - 10, derSignature: false, team: 1))
        // The other team's kid with this team's iss, or signed by this team's key: invalid.
        let crossed = try ProviderCredential(keyId: "OTHERKEY01", teamId: credential.teamId)
        #expect(
            teams.verify(authorization: try header(key: otherKey, credential: crossed), now: now)
                == .invalid("iss does not match the team"))
        #expect(
            teams.verify(authorization: try header(credential: otherCredential), now: now)
                == .invalid("signature does not verify"))
        let unknown = try ProviderCredential(keyId: "NOSUCHKEY1", teamId: credential.teamId)
        #expect(
            teams.verify(authorization: try header(credential: unknown), now: now)
                == .invalid("kid names no configured key"))
    }

    @Test("the bearer scheme is case-insensitive")
    func schemeCaseInsensitive() throws {
        let token = String(try header().dropFirst("bearer ".count))
        for scheme in ["Bearer", "BEARER", "bEaReR"] {
            #expect(
                verifier.verify(authorization: scheme + " " + token, now: now)
                    == .valid(issuedAt: 1_700_000_000 - 10, derSignature: false))
        }
    }

    @Test(
        "no header, an empty one, or a bare scheme is missing",
        arguments: [nil, "", "   ", "bearer", "bearer   "] as [String?])
    func missing(authorization: String?) {
        #expect(verifier.verify(authorization: authorization, now: now) == .missing)
    }

    @Test("another scheme, or a token without a scheme, is invalid")
    func notBearer() throws {
        let token = String(try header().dropFirst("bearer ".count))
        #expect(
            verifier.verify(authorization: "basic " + token, now: now) == .invalid("authorization scheme is not bearer")
        )
        #expect(verifier.verify(authorization: token, now: now) == .invalid("authorization scheme is not bearer"))
    }

    @Test("a changed signature byte or changed claims fail the signature")
    func tampered() throws {
        var segments = try header().split(separator: ".").map(String.init)
        let originalSignature = segments[2]
        segments[2] = (originalSignature.first == "A" ? "B" : "A") + originalSignature.dropFirst()
        #expect(
            verifier.verify(authorization: segments.joined(separator: "."), now: now)
                == .invalid("signature does not verify"))
        segments[2] = originalSignature
        segments[1] = Base64URL.encode(#"{"iss":"TEAMID0001","iat":1700000001}"#.utf8)
        #expect(
            verifier.verify(authorization: segments.joined(separator: "."), now: now)
                == .invalid("signature does not verify"))
    }

    @Test("a token signed by another key is invalid")
    func otherKey() throws {
        #expect(
            verifier.verify(authorization: try header(key: SigningKey.generate()), now: now)
                == .invalid("signature does not verify"))
    }

    @Test("a wrong kid or iss is invalid")
    func wrongIds() throws {
        let otherKeyId = try ProviderCredential(keyId: "OTHERKEY01", teamId: "TEAMID0001")
        let otherTeam = try ProviderCredential(keyId: "TESTKEY001", teamId: "OTHERTEAM1")
        #expect(
            verifier.verify(authorization: try header(credential: otherKeyId), now: now)
                == .invalid("kid names no configured key"))
        #expect(
            verifier.verify(authorization: try header(credential: otherTeam), now: now)
                == .invalid("iss does not match the team"))
    }

    @Test("iat more than an hour old is expired; exactly an hour is still valid")
    func expiry() throws {
        #expect(verifier.verify(authorization: try header(age: 3601), now: now) == .expired)
        #expect(
            verifier.verify(authorization: try header(age: 3600), now: now)
                == .valid(issuedAt: 1_700_000_000 - 3600, derSignature: false))
    }

    @Test("iat a little in the future is forgiven; more than a minute is invalid")
    func futureIat() throws {
        #expect(
            verifier.verify(authorization: try header(age: -30), now: now)
                == .valid(issuedAt: 1_700_000_030, derSignature: false))
        #expect(verifier.verify(authorization: try header(age: -61), now: now) == .invalid("iat is in the future"))
    }

    @Test("a DER signature is accepted and flagged")
    func derSignature() throws {
        let authorization = try handmade(
            header: #"{"alg":"ES256","kid":"TESTKEY001"}"#, claims: #"{"iss":"TEAMID0001","iat":1699999990}"#
        ) { input in
            Base64URL.encode(try key.signES256DER(Array(input.utf8)))
        }
        #expect(
            verifier.verify(authorization: authorization, now: now)
                == .valid(issuedAt: 1_699_999_990, derSignature: true))
    }

    @Test(
        "alg none, HS256, or no alg is invalid even with a correct ES256 signature",
        arguments: [
            #"{"alg":"none","kid":"TESTKEY001"}"#, #"{"alg":"HS256","kid":"TESTKEY001"}"#, #"{"kid":"TESTKEY001"}"#,
        ])
    func wrongAlgorithm(header: String) throws {
        let signed = try handmade(header: header, claims: #"{"iss":"TEAMID0001","iat":1699999990}"#) { input in
            Base64URL.encode(try key.signES256(Array(input.utf8)))
        }
        let unsigned = handmade(header: header, claims: #"{"iss":"TEAMID0001","iat":1699999990}"#) { _ in "" }
        #expect(verifier.verify(authorization: signed, now: now) == .invalid("alg is not ES256"))
        #expect(verifier.verify(authorization: unsigned, now: now) == .invalid("alg is not ES256"))
    }

    @Test(
        "structurally broken tokens are invalid with a reason",
        arguments: [
            ("bearer abc", "not three dot-separated segments"),
            ("bearer a.b.c.d", "not three dot-separated segments"),
            ("bearer bm90IGpzb24.e30.AA", "header is not base64url JSON"),
            ("bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IlRFU1RLRVkwMDEifQ.e30=.AA", "claims are not base64url JSON"),
        ])
    func malformed(authorization: String, reason: String) {
        #expect(verifier.verify(authorization: authorization, now: now) == .invalid(reason))
    }

    @Test("iat that is not an integer is invalid", arguments: [#""1699999990""#, "1699999990.5", "null"])
    func nonIntegerIat(iat: String) throws {
        let authorization = try handmade(
            header: #"{"alg":"ES256","kid":"TESTKEY001"}"#, claims: #"{"iss":"TEAMID0001","iat":\#(iat)}"#
        ) { input in
            Base64URL.encode(try key.signES256(Array(input.utf8)))
        }
        #expect(verifier.verify(authorization: authorization, now: now) == .invalid("iat is not an integer"))
    }

    @Test("a verdict's reason never quotes the token")
    func reasonsAreConstant() throws {
        let authorization = try header(credential: ProviderCredential(keyId: "OTHERKEY01", teamId: "TEAMID0001"))
        guard case .invalid(let reason) = verifier.verify(authorization: authorization, now: now) else {
            Issue.record("expected invalid")
            return
        }
        #expect(!reason.contains("OTHERKEY01"))
        #expect(!authorization.split(separator: ".").contains { reason.contains($0) })
    }
}
