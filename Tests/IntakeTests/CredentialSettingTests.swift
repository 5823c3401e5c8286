import APNs
import Foundation
import Testing

@testable import Intake

/// `apns.credentials`: each entry a key or a certificate with its topics; the single `apns.keyFile` form is the
/// credential `default`; one bundle id per credential, at most one credential without topics.
@Suite struct CredentialSettingTests {
    private func load(_ json: String, single: Bool = false) throws -> Configuration {
        var configuration = Configuration()
        try configuration.apply(fileBytes: Array(json.utf8))
        if single {
            configuration.keyFile = "/k/AuthKey.p8"
            configuration.keyID = "KEY0000001"
            configuration.teamID = "TEAM000001"
        }
        return configuration
    }

    private func refusal(_ json: String, single: Bool = false) -> String? {
        do {
            _ = try load(json, single: single).sendingCredentials()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func keysAndCertificatesWithTheirTopics() throws {
        let configuration = try load(
            #"""
            {"apns":{"credentials":[
              {"name":"ios","teamId":"TEAM000001","keyId":"KEY0000001","keyFile":"/k/a.p8","topics":["com.example.app","com.example.app.voip"]},
              {"name":"legacy","certificate":"/k/legacy.p12","passwordFile":"/k/pw","topics":["com.example.legacy"]},
              {"name":"watch","certificate":"/k/watch.pem"}
            ]}}
            """#)
        let credentials = try configuration.sendingCredentials()
        #expect(credentials.map(\.name) == ["ios", "legacy", "watch"])
        #expect(credentials[0].authentication == .token(keyFile: "/k/a.p8", keyID: "KEY0000001", teamID: "TEAM000001"))
        // A push type's suffix names the same app.
        #expect(credentials[0].topics == ["com.example.app", "com.example.app"])
        #expect(credentials[1].authentication == .certificate(file: "/k/legacy.p12", password: .file("/k/pw")))
        #expect(credentials[2].authentication == .certificate(file: "/k/watch.pem", password: .none))
        let routes = try configuration.topicRoutes()
        #expect(routes.credential(for: "com.example.app") == "ios")
        #expect(routes.credential(for: "com.example.app.push-type.liveactivity") == "ios")
        #expect(routes.credential(for: "com.example.legacy.voip") == "legacy")
        #expect(
            routes.credential(for: "com.example.unknown") == "watch", "the credential without topics sends the rest")
        // APNs takes Live Activity pushes over token connections only.
        #expect(routes.refusal(for: "com.example.app", pushType: .liveactivity) == nil)
        #expect(
            routes.refusal(for: "com.example.legacy", pushType: .liveactivity)?.contains(
                "credential 'legacy' for com.example.legacy is a certificate") == true)
        #expect(routes.refusal(for: "com.example.legacy", pushType: .alert) == nil)
    }

    @Test func theSingleKeyIsTheDefaultCredentialAndTheFallback() throws {
        let configuration = try load(
            #"{"apns":{"credentials":[{"name":"b","teamId":"TEAM000002","keyId":"KEY0000002","keyFile":"/k/b.p8","topics":["com.b"]}]}}"#,
            single: true)
        let credentials = try configuration.sendingCredentials()
        #expect(credentials.map(\.name) == ["default", "b"])
        let routes = try configuration.topicRoutes()
        #expect(routes.credential(for: "com.b") == "b" && routes.credential(for: "com.a") == "default")
        #expect(routes.refusal(for: "com.a") == nil)
        // Neither form: nothing configured, every topic to the default credential, nothing refused.
        let unconfigured = try Configuration().topicRoutes()
        #expect(unconfigured == .only("default") && unconfigured.refusal(for: "com.c", pushType: .liveactivity) == nil)
    }

    @Test func aTopicNoCredentialListsIsRefusedWhenEveryCredentialListsTopics() throws {
        let configuration = try load(
            #"{"apns":{"credentials":[{"name":"a","teamId":"TEAM000001","keyId":"KEY0000001","keyFile":"/k/a.p8","topics":["com.a"]}]}}"#
        )
        let routes = try configuration.topicRoutes()
        #expect(
            routes.refusal(for: "com.b") == "no credential sends for topic 'com.b' (apns.credentials topics: com.a)")
        #expect(routes.refusal(for: "com.a.voip") == nil)
    }

    @Test func wrongEntriesAreRefusedNamingThem() {
        let key = #""teamId":"TEAM000001","keyId":"KEY0000001","keyFile":"/k/a.p8""#
        let cases: [(String, String)] = [
            (#"[{\#(key)}]"#, "'apns.credentials[0].name' is required"),
            (#"[{"name":"a b",\#(key)}]"#, "must be 1–64 letters"),
            (#"[{"name":"a","keyFile":"/k/a.p8","keyId":"KEY0000001"}]"#, "'apns.credentials[0].teamId' is required"),
            (#"[{"name":"a",\#(key),"certificate":"/c.p12"}]"#, "mixes a key"),
            (#"[{"name":"a"}]"#, "needs a key"),
            (
                #"[{"name":"a","certificate":"/c.p12","password":"x","passwordFile":"/p"}]"#,
                "both password and passwordFile"
            ),
            (#"[{"name":"a",\#(key),"topics":"com.a"}]"#, "must be a list of strings"),
            (#"[{"name":"a",\#(key),"topics":[]}]"#, "'apns.credentials[0].topics' is empty"),
            (#"[{"name":"a",\#(key),"topics":["bad topic"]}]"#, "'apns.credentials[0].topics[0]': invalid topic"),
            (#"[{"name":"a",\#(key),"color":"red"}]"#, "unknown setting 'apns.credentials[0].color'"),
        ]
        for (list, expected) in cases {
            let message = refusal(#"{"apns":{"credentials":\#(list)}}"#)
            #expect(message?.contains(expected) == true, "\(list): \(message ?? "accepted")")
        }
        let combined: [(String, Bool, String)] = [
            (#"[{"name":"a",\#(key)},{"name":"a",\#(key),"topics":["com.b"]}]"#, false, "names 'a' twice"),
            (#"[{"name":"a",\#(key)},{"name":"b",\#(key)}]"#, false, "both list no topics"),
            (#"[{"name":"a",\#(key)}]"#, true, "both list no topics"),
            (#"[{"name":"default",\#(key),"topics":["com.b"]}]"#, true, "the name of apns.keyFile's credential"),
            (
                #"[{"name":"a",\#(key),"topics":["com.b"]},{"name":"b",\#(key),"topics":["com.b.voip"]}]"#, false,
                "topic com.b is listed by credentials 'a' and 'b'"
            ),
        ]
        for (list, single, expected) in combined {
            let message = refusal(#"{"apns":{"credentials":\#(list)}}"#, single: single)
            #expect(message?.contains(expected) == true, "\(list): \(message ?? "accepted")")
        }
    }

    @Test func aPasswordIsNeverPrinted() throws {
        let configuration = try load(
            #"{"apns":{"credentials":[{"name":"c","certificate":"/c.p12","password":"s3cret-pass"}]}}"#)
        #expect(!"\(configuration.credentials)".contains("s3cret"))
        #expect(!String(reflecting: configuration.credentials).contains("s3cret"))
    }

    /// Under systemd, a relative key, certificate or password file of the config file is the credential of that
    /// name in `$CREDENTIALS_DIRECTORY` (what `LoadCredential=` loaded); absolute paths, and a variable's or flag's
    /// path, are read where they are; without the variable a relative path is the working directory's.
    @Test func relativeFilesOfTheConfigFileAreReadInTheCredentialsDirectory() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try #"""
        {"apns":{"keyFile":"apns.p8","keyId":"KEY0000001","teamId":"TEAM000001","credentials":[
          {"name":"shop","teamId":"TEAM000001","keyId":"KEY0000002","keyFile":"shop.p8","topics":["com.example.shop"]},
          {"name":"legacy","certificate":"legacy.p12","passwordFile":"legacy.pass","topics":["com.example.legacy"]},
          {"name":"other","certificate":"/etc/apnsd/other.pem","password":"pw","topics":["com.example.other"]}
        ]}}
        """#.write(to: file, atomically: true, encoding: .utf8)
        func files(_ environment: [String: String]) throws -> [String] {
            try Configuration.load(configPath: file.path, flag: { _ in nil }, environment: environment)
                .sendingCredentials().flatMap { credential -> [String] in
                    switch credential.authentication {
                    case .token(let keyFile, _, _): return [keyFile]
                    case .certificate(let file, .file(let password)): return [file, password]
                    case .certificate(let file, _): return [file]
                    }
                }
        }
        let run = "/run/credentials/apnsd-worker.service"
        #expect(
            try files(["CREDENTIALS_DIRECTORY": run]) == [
                "\(run)/apns.p8", "\(run)/shop.p8", "\(run)/legacy.p12", "\(run)/legacy.pass", "/etc/apnsd/other.pem",
            ])
        #expect(try files([:]) == ["apns.p8", "shop.p8", "legacy.p12", "legacy.pass", "/etc/apnsd/other.pem"])
        #expect(
            try files(["CREDENTIALS_DIRECTORY": run, "APNSD_KEY_FILE": "keys/mine.p8"]).first == "keys/mine.p8",
            "a variable's path is the caller's")
    }

    /// A switch takes a JSON boolean in the file, or `true`/`false` in a variable or flag; nothing else.
    @Test func switchesTakeTrueOrFalse() throws {
        #expect(try load(#"{"api":{"accessLog":false}}"#).apiAccessLog == false)
        #expect(try load(#"{"api.accessLog":"true"}"#).apiAccessLog == true)
        #expect(Configuration().apiAccessLog == true)
        #expect(throws: IntakeError.self) { try load(#"{"api":{"accessLog":"yes"}}"#) }
        #expect(throws: IntakeError.self) { try load(#"{"api":{"accessLog":1}}"#) }
        #expect(throws: IntakeError.self) { try load(#"{"apns":{"topic":true}}"#) }
        let off = try Configuration.load(
            configPath: nil, flag: { _ in nil }, environment: ["APNSD_API_ACCESS_LOG": "false"])
        #expect(off.apiAccessLog == false)
        let on = try Configuration.load(
            configPath: nil, flag: { $0 == "api-access-log" ? "true" : nil },
            environment: ["APNSD_API_ACCESS_LOG": "false"])
        #expect(on.apiAccessLog == true)
        #expect(throws: Configuration.LoadError.self) {
            try Configuration.load(configPath: nil, flag: { _ in nil }, environment: ["APNSD_API_ACCESS_LOG": "off"])
        }
    }
}
