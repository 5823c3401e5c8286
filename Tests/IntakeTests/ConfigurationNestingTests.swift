import Foundation
import Testing

@testable import Intake

/// The config file's shapes: nested objects as dotted keys, lists for list settings, paths in every refusal.
@Suite struct ConfigurationNestingTests {
    /// Settings of the test's own that the file may give as lists: objects of three fields, and plain strings.
    static let lists: [Configuration.ListSetting] = [
        Configuration.ListSetting("credentials", fields: ["teamId", "keyId", "keyFile"], "signing credentials") {
            c, elements in
            c.connections = elements.count
            c.keyID = elements.last?.members?["keyId"]?.text
            c.teamID = elements.first?.members?["teamId"]?.text
        },
        Configuration.ListSetting("apns.labels", fields: nil, "labels") { c, elements in
            c.topic = elements.compactMap(\.text).joined(separator: ".")
        },
    ]

    private func load(_ json: String) throws(IntakeError) -> Configuration {
        var configuration = Configuration()
        try configuration.apply(fileBytes: Array(json.utf8), settings: Configuration.settings, lists: Self.lists)
        return configuration
    }

    private func refusal(_ json: String) -> String? {
        do {
            _ = try load(json)
            return nil
        } catch { return error.description }
    }

    @Test func aNestedObjectIsItsDottedKeys() throws {
        let dotted = try load(
            #"{"apns.keyId":"KEY0000001","apns.rate":"500","retry.base":2,"database":"/tmp/d.sqlite"}"#)
        let nested = try load(
            #"{"apns":{"keyId":"KEY0000001","rate":"500"},"retry":{"base":2},"database":"/tmp/d.sqlite"}"#)
        let mixed = try load(
            #"{"apns.keyId":"KEY0000001","apns":{"rate":"500"},"retry":{"base":2},"database":"/tmp/d.sqlite"}"#)
        for configuration in [dotted, nested, mixed] {
            #expect(
                configuration.keyID == "KEY0000001" && configuration.rate == 500 && configuration.retryBase == 2
                    && configuration.database == "/tmp/d.sqlite")
        }
        // The public entry point reads nested objects the same way.
        var viaPublic = Configuration()
        try viaPublic.apply(fileBytes: Array(#"{"apns":{"keyId":"KEY0000001","rate":"500"}}"#.utf8))
        #expect(viaPublic.keyID == "KEY0000001" && viaPublic.rate == 500)
        #expect(refusal(#"{"apns.rate":1,"apns":{"rate":2}}"#)?.contains("'apns.rate' is given twice") == true)
    }

    @Test func listsReachTheirSetting() throws {
        let configuration = try load(
            #"""
            {"credentials":[{"teamId":"TEAM000001","keyId":"KEY0000001","keyFile":"/a.p8"},
                            {"teamId":"TEAM000002","keyId":"KEY0000002","keyFile":"/b.p8"}],
             "apns":{"labels":["com","example",7]}}
            """#)
        #expect(configuration.connections == 2)
        #expect(configuration.teamID == "TEAM000001" && configuration.keyID == "KEY0000002")
        #expect(configuration.topic == "com.example.7")
        #expect(try load(#"{"credentials":[]}"#).connections == 0)
    }

    @Test func anUnknownOrMisshapenKeyIsRefusedByItsPath() {
        let cases: [(String, String)] = [
            (
                #"{"credentials":[{"teamId":"T","keyId":"K"},{"teamId":"T","keyID":"K"}]}"#,
                "unknown setting 'credentials[1].keyID' (known in each credentials entry: teamId, keyId, keyFile)"
            ),
            (#"{"apns":{"nested":{"rate":1}}}"#, "unknown setting 'apns.nested'"),
            (#"{"credential":[]}"#, "unknown setting 'credential'"),
            (#"{"credentials":{"teamId":"T"}}"#, "'credentials' must be a list"),
            (#"{"credentials":["T"]}"#, "'credentials[0]' must be an object of teamId, keyId, keyFile"),
            (#"{"credentials":[{"keyId":{"id":"K"}}]}"#, "'credentials[0].keyId' must be a string or a number"),
            (#"{"credentials":[{"keyId":true}]}"#, "'credentials[0].keyId' must be a string or a number"),
            (#"{"apns":{"labels":[["a"]]}}"#, "'apns.labels[0]' must be a string or a number"),
            (#"{"apns":{"rate":[1]}}"#, "'apns.rate' must be a string or a number"),
            (#"{"apns":{"rate":{"value":1}}}"#, "'apns.rate' must be a string or a number"),
        ]
        for (json, message) in cases {
            let refused = refusal(json)
            #expect(refused?.hasPrefix(message) == true, "\(json): \(refused ?? "accepted")")
        }
    }

    @Test func depthIsBounded() {
        // Eight levels below the top object are read (the element is then refused for its shape, not its depth) …
        let atBound =
            #"{"apns":{"labels":"# + String(repeating: "[", count: 6) + "1" + String(repeating: "]", count: 6) + "}}"
        #expect(refusal(atBound) == "'apns.labels[0]' must be a string or a number")
        // … nine are not, whatever the setting.
        let beyond =
            #"{"apns":{"labels":"# + String(repeating: "[", count: 7) + "1" + String(repeating: "]", count: 7) + "}}"
        #expect(refusal(beyond) == "'apns.labels[0][0][0][0][0][0][0]' is nested deeper than 8 levels")
        // Far deeper JSON is refused before it is parsed.
        let huge = #"{"credentials":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(refusal(huge)?.hasPrefix("not a valid JSON object") == true)
    }
}
