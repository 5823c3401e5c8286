import APNs
import Foundation
import Testing

/// docs/APNS.md: apns-id is an optional canonical lowercase UUID (8-4-4-4-12 hex digits).
@Suite("NotificationID")
struct NotificationIDTests {
    @Test(
        "canonical UUIDs are accepted; uppercase is lowercased",
        arguments: [
            "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
            "00000000-0000-0000-0000-000000000000",
            "FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF",
        ])
    func accepted(text: String) throws {
        let id = try NotificationID(text)
        #expect(id.uuidString == text.lowercased())
        #expect(id.description == text.lowercased())
    }

    @Test(
        "anything else is refused",
        arguments: [
            "", "123e4567e89b12d3a456426614174000", "{123e4567-e89b-12d3-a456-426614174000}",
            "123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-4266141740000",
            "123e4567-e89b-12d3-a456_426614174000", "123e456-7e89b-12d3-a456-426614174000",
            "g23e4567-e89b-12d3-a456-426614174000", " 123e4567-e89b-12d3-a456-42661417400",
            "123e4567-e89b-12d3-a456-42661417400é",
        ])
    func refused(text: String) {
        #expect(throws: APNsError.invalidNotificationID(text)) { try NotificationID(text) }
    }

    @Test("random() gives version-4 canonical lowercase UUIDs, unique over 1000")
    func random() throws {
        let pattern = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = NotificationID.random().uuidString
            #expect(id.wholeMatch(of: pattern) != nil, "\(id)")
            // Foundation's own parser agrees it is a UUID.
            #expect(UUID(uuidString: id)?.uuidString.lowercased() == id)
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }

    @Test("a random id round-trips through the validating initialiser")
    func roundTrip() throws {
        let id = NotificationID.random()
        #expect(try NotificationID(id.uuidString) == id)
    }
}
