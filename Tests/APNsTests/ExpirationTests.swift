import APNs
import Testing

/// docs/APNS.md: apns-expiration is UNIX seconds; 0 = try once, do not store. Never retry past it.
@Suite("Expiration")
struct ExpirationTests {
    @Test(
        "decimal UNIX seconds parse",
        arguments: [("0", Int64(0)), ("1", 1), ("1700000000", 1_700_000_000), ("4102444800", 4_102_444_800)])
    func parses(text: String, seconds: Int64) throws {
        #expect(try Expiration.parse(text).secondsSince1970 == seconds)
        #expect(try Expiration.parse(text).description == text)
    }

    @Test("0 is 'immediately'")
    func zero() throws {
        #expect(try Expiration.parse("0") == Expiration.immediately)
        #expect(Expiration.immediately.secondsSince1970 == 0)
    }

    @Test(
        "negative, fractional and non-numeric values are refused",
        arguments: ["-1", "-1700000000", "", "soon", "1.5", "1e9", " 10", "99999999999999999999"])
    func refused(text: String) {
        #expect(throws: APNsError.invalidExpiration(text)) { try Expiration.parse(text) }
    }

    @Test("a negative number is refused by the initialiser too")
    func negativeInit() {
        #expect(throws: APNsError.self) { try Expiration(secondsSince1970: -5) }
    }

    @Test("an expiration forbids attempts after it, never at or before; 0 never forbids the single attempt")
    func forbids() throws {
        let expiration = try Expiration(secondsSince1970: 1_700_000_000)
        #expect(!expiration.forbidsAttempt(atUnixSeconds: 1_699_999_999))
        #expect(!expiration.forbidsAttempt(atUnixSeconds: 1_700_000_000))
        #expect(expiration.forbidsAttempt(atUnixSeconds: 1_700_000_001))
        #expect(!Expiration.immediately.forbidsAttempt(atUnixSeconds: 1_700_000_000))
    }

    @Test("expirations order by time")
    func ordering() throws {
        #expect(try Expiration(secondsSince1970: 5) < Expiration(secondsSince1970: 6))
    }
}
