import Foundation
import ProviderAuth
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    @Test(
        "RFC 4648 vectors, unpadded",
        arguments: [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
            ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
        ])
    func vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(plain.utf8) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("the URL-safe alphabet replaces + and /")
    func urlSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test("every length round-trips and agrees with Foundation's base64", arguments: 0..<70)
    func agreesWithFoundation(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let foundation = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(Base64URL.encode(bytes) == foundation)
        #expect(Base64URL.decode(foundation) == bytes)
    }

    @Test(
        "padding, foreign characters, impossible lengths and non-zero spare bits are rejected",
        arguments: ["Zg==", "Zm9v+", "Zm9v/", "Zm9 v", "Z", "Zm9vY", "Zh", "Zm9"])
    func rejectsBadText(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
