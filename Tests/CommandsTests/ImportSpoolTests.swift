import APNs
import Intake
import TestSupport
import Testing

@testable import Commands

/// `device import`'s external sort: spooled runs merged back in token order, each device once, its lines merged as
/// if registered one after the other, whatever the run size.
@Suite struct ImportSpoolTests {
    /// Lines with repeated tokens (some repeated in other runs), users given or not, environments given or not.
    static func lines(_ count: Int) -> [ImportLine] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in
            let token = Tokens.hex(Int.random(in: 1...(count / 3 + 1), using: &generator))
            let user = Bool.random(using: &generator) ? "user\(Int.random(in: 0..<50, using: &generator))" : nil
            let environment: Environment? = [nil, .production, .development].randomElement(using: &generator)!
            let text = "\(token),\(user ?? ""),\(environment?.rawValue ?? "")"
            return try! ImportLine.parse(Array(text.utf8)[...])!
        }
    }

    /// The same devices merged in memory, the plain way: in file order, the last environment and user given win.
    static func expected(_ lines: [ImportLine]) -> [String] {
        var devices: [DeviceToken: (user: String?, environment: Environment?)] = [:]
        for line in lines {
            var device = devices[line.token] ?? (nil, nil)
            if let user = line.user { device.user = user }
            if let environment = line.environment { device.environment = environment }
            devices[line.token] = device
        }
        return devices.keys.sorted().map { describe($0, devices[$0]!.user, devices[$0]!.environment) }
    }

    static func describe(_ token: DeviceToken, _ user: String?, _ environment: Environment?) -> String {
        "\(token.hex) \(user ?? "-") \(environment?.rawValue ?? "-")"
    }

    @Test(arguments: [1, 7, 100, 10_000])
    func theDevicesComeInTokenOrderEachOnceMergedAsRegisteredInOrder(runLines: Int) async throws {
        let lines = Self.lines(3_000)
        var spool = ImportSpool(runLines: runLines)
        defer { spool.close() }
        for (number, line) in lines.enumerated() { try await spool.add(line, number: number + 1) }
        var chunks: [Int] = []
        var devices: [String] = []
        try await spool.devices(chunk: 64) { chunk in
            chunks.append(chunk.count)
            devices += chunk.map { Self.describe($0.token, $0.user, $0.environment) }
        }
        #expect(devices == Self.expected(lines))
        #expect(chunks.dropLast().allSatisfy { $0 == 64 } && (chunks.last ?? 0) > 0)
    }

    @Test func anEmptyFileHasNoDevices() async throws {
        var spool = ImportSpool(runLines: 5)
        var calls = 0
        try await spool.devices(chunk: 10) { _ in calls += 1 }
        #expect(calls == 0)
    }
}
