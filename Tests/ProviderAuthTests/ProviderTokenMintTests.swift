import Foundation
import ProviderAuth
import TestSupport
import Testing

@Suite("Minting provider tokens", .offThePool)
struct ProviderTokenMintTests {
    let key: SigningKey
    let credential: ProviderCredential
    let token: ProviderToken
    let segments: [String]

    init() throws {
        key = try SigningKey(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.p8"))
        credential = try ProviderCredential(keyId: "TESTKEY001", teamId: "TEAMID0001")
        token = try ProviderToken.mint(
            key: key, credential: credential, issuedAt: Date(timeIntervalSince1970: 1_700_000_000.75))
        segments = token.value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("header and claims are exactly Apple's JSON, iat in whole seconds")
    func exactJSON() throws {
        try #require(segments.count == 3)
        #expect(
            Base64URL.decode(segments[0]).map { String(decoding: $0, as: UTF8.self) }
                == #"{"alg":"ES256","kid":"TESTKEY001"}"#)
        #expect(
            Base64URL.decode(segments[1]).map { String(decoding: $0, as: UTF8.self) }
                == #"{"iss":"TEAMID0001","iat":1700000000}"#)
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(token.keyId == "TESTKEY001")
        #expect(token.authorizationHeader == "bearer " + token.value)
    }

    @Test("every segment is unpadded base64url")
    func base64URLOnly() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        #expect(token.value.allSatisfy(alphabet.contains))
        #expect(segments.allSatisfy { !$0.isEmpty })
    }

    @Test("the signature is 64 raw bytes over header.claims")
    func signatureVerifies() throws {
        let signature = try #require(Base64URL.decode(segments[2]))
        #expect(signature.count == 64)
        let signingInput = Array((segments[0] + "." + segments[1]).utf8)
        #expect(key.verifyES256(message: signingInput, rawSignature: signature))
        #expect(!key.verifyES256(message: Array((segments[0] + "." + segments[0]).utf8), rawSignature: signature))
    }

    @Test("the openssl CLI verifies the token's signature with the public key")
    func opensslVerifiesToken() throws {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let publicKey = directory.appendingPathComponent("pub.pem")
        let input = directory.appendingPathComponent("input")
        let signature = directory.appendingPathComponent("sig.der")
        try key.publicKeyPEM.write(to: publicKey, atomically: true, encoding: .utf8)
        try Data((segments[0] + "." + segments[1]).utf8).write(to: input)
        try Data(HandDER.signature(fromRaw: #require(Base64URL.decode(segments[2])))).write(to: signature)
        let result = try OpenSSLCLI.run([
            "dgst", "-sha256", "-verify", publicKey.path, "-signature", signature.path, input.path,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Verified OK"))
    }

    @Test("the token prints and dumps without the JWT")
    func redacted() {
        #expect(token.description == "ProviderToken(kid: TES…, iat: 1700000000)")
        #expect("\(token)" == token.description)
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains(segments[2]))
        #expect(!dumped.contains(segments[1]))
    }

    @Test("two tokens minted in the same second differ (ECDSA is randomized) but carry the same iat")
    func sameSecondDiffers() throws {
        let again = try ProviderToken.mint(
            key: key, credential: credential, issuedAt: Date(timeIntervalSince1970: 1_700_000_000.2))
        #expect(again.value != token.value)
        #expect(again.issuedAt == token.issuedAt)
        #expect(again != token)
    }
}
