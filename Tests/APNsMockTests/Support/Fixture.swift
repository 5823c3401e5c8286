import Foundation
import ProviderAuth

/// The throwaway team key in Fixtures/keys and the ids the simulator checks tokens against.
enum Fixture {
    static let keysDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // APNsMockTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures/keys")

    static let keyPath = keysDirectory.appendingPathComponent("AuthKey_TESTKEY001.p8").path
    static let key: SigningKey = try! SigningKey(contentsOfFile: keyPath)
    static let credential = try! ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01")

    /// A fresh `authorization` header value: "bearer <JWT>" issued `age` seconds ago.
    static func authorization(age: TimeInterval = 0, key: SigningKey = key, credential: ProviderCredential = credential)
        throws -> String
    {
        try ProviderToken.mint(key: key, credential: credential, issuedAt: Date() - age).authorizationHeader
    }

    /// A 64-hex-character token made of `seed` repeated.
    static func token(_ seed: String) -> String {
        String(String(repeating: seed, count: 64 / seed.count + 1).prefix(64))
    }
}

/// A private scratch folder, removed by `remove()`.
struct TempDirectory {
    let url: URL

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "APNsMockTests-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = path(name)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw HarnessError("cannot write \(path)")
        }
        return path
    }

    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A JSON object `{"aps":{"alert":"xxx…"}}` of exactly `size` bytes.
func alertPayload(bytes size: Int) -> [UInt8] {
    let prefix = #"{"aps":{"alert":""#
    let suffix = #""}}"#
    let text = prefix + String(repeating: "x", count: size - prefix.utf8.count - suffix.utf8.count) + suffix
    precondition(text.utf8.count == size)
    return Array(text.utf8)
}
