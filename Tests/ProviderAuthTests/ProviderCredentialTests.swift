import ProviderAuth
import Testing

@Suite("ProviderCredential")
struct ProviderCredentialTests {
    @Test("10 ASCII letters or digits are accepted", arguments: ["TESTKEY001", "abcDEF1234", "0000000000"])
    func accepts(id: String) throws {
        let credential = try ProviderCredential(keyId: id, teamId: id)
        #expect(credential.keyId == id)
        #expect(credential.teamId == id)
    }

    @Test(
        "anything else is rejected, naming which id is wrong",
        arguments: ["", "TESTKEY01", "TESTKEY0001", "TESTKEY-01", "TESTKEY 01", "TESTKEY0É", "ＴＥＳＴＫＥＹ００1"])
    func rejects(id: String) {
        #expect(throws: ProviderAuthError.invalidKeyId(id)) {
            try ProviderCredential(keyId: id, teamId: "TEAMID0001")
        }
        #expect(throws: ProviderAuthError.invalidTeamId(id)) {
            try ProviderCredential(keyId: "TESTKEY001", teamId: id)
        }
    }
}
