/// The ids that name a provider key to APNs: the key id (JWT "kid") and the team id (JWT "iss").
public struct ProviderCredential: Sendable, Hashable {
    /// The 10-character Key ID Apple shows next to the .p8 key.
    public let keyId: String
    /// The 10-character Team ID of the Apple Developer account that owns the key.
    public let teamId: String

    /// Validates both ids: each must be exactly 10 ASCII letters or digits.
    public init(keyId: String, teamId: String) throws(ProviderAuthError) {
        guard Self.isWellFormed(keyId) else { throw .invalidKeyId(keyId) }
        guard Self.isWellFormed(teamId) else { throw .invalidTeamId(teamId) }
        self.keyId = keyId
        self.teamId = teamId
    }

    private static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 10
            && id.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            }
    }
}
