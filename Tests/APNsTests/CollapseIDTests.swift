import APNs
import Testing

/// docs/APNS.md: apns-collapse-id is at most 64 bytes — bytes of UTF-8, not characters.
@Suite("CollapseID")
struct CollapseIDTests {
    @Test(
        "up to 64 UTF-8 bytes is accepted",
        arguments: [
            "a", String(repeating: "x", count: 64),
            String(repeating: "é", count: 32),  // 32 characters, 2 bytes each = 64 bytes
            String(repeating: "🔔", count: 16),  // 16 characters, 4 bytes each = 64 bytes
            String(repeating: "€", count: 21) + "a",  // 21 × 3 + 1 = 64 bytes
        ])
    func accepted(value: String) throws {
        #expect(try CollapseID(value).value == value)
    }

    @Test(
        "65 bytes or more is refused, counted in bytes",
        arguments: [
            (String(repeating: "x", count: 65), 65),
            (String(repeating: "é", count: 32) + "a", 65),  // only 33 characters
            (String(repeating: "🔔", count: 17), 68),  // only 17 characters
            (String(repeating: "x", count: 200), 200),
        ])
    func refused(value: String, bytes: Int) {
        #expect(throws: APNsError.collapseIDTooLong(bytes: bytes)) { try CollapseID(value) }
    }

    @Test("an empty collapse id is refused")
    func empty() {
        #expect(throws: APNsError.collapseIDEmpty) { try CollapseID("") }
    }
}
