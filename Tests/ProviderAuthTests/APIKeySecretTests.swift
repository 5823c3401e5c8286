import Foundation
import ProviderAuth
import Testing

@Suite("APIKeySecret")
struct APIKeySecretTests {
    @Test("a secret is the prefix and 32 random bytes in unpadded base64url")
    func shape() throws {
        let secret = try APIKeySecret.generate()
        #expect(secret.hasPrefix("apnsd_") && secret.count == 6 + 43)
        #expect(Base64URL.decode(secret.dropFirst(6))?.count == 32)
        #expect(APIKeySecret.isWellFormed(secret))
        #expect(!secret.contains("=") && !secret.contains("+") && !secret.contains("/"))
    }

    @Test("secrets differ")
    func unique() throws {
        let secrets = try (0..<1000).map { _ in try APIKeySecret.generate() }
        #expect(Set(secrets).count == secrets.count)
    }

    @Test("the hash is SHA-256 in lowercase hex")
    func sha256Vectors() {
        #expect(APIKeySecret.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(APIKeySecret.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let secret = "apnsd_" + String(repeating: "A", count: 43)
        #expect(APIKeySecret.hash(secret) == APIKeySecret.hash(secret))
        #expect(APIKeySecret.hash(secret) != APIKeySecret.hash(secret + "x"))
        #expect(APIKeySecret.hash(secret).count == 64 && !APIKeySecret.hash(secret).contains(secret))
    }

    @Test("only the generated shape is well formed")
    func wellFormed() throws {
        let secret = try APIKeySecret.generate()
        for bad in [
            "", "apnsd_", secret + "A", String(secret.dropLast()), "x" + secret.dropFirst(), "Bearer " + secret,
            secret.replacingOccurrences(of: secret.suffix(1), with: "="),
        ] {
            #expect(!APIKeySecret.isWellFormed(bad), "\(bad)")
        }
    }
}
