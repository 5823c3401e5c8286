import APNsMock
import CLITestSupport
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// The README's HTTP API examples run as written: the curl block of "The HTTP API: `apnsd serve`", then the Python
/// and Node snippets of "From your backend", against one `apnsd serve` and one apns-mock (for the channel routes).
/// Each curl answer must have the status and the members its `# → STATUS {…}` comment names.
@Suite(.offThePool) struct ReadmeTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    @Test func theAPIExamplesRunAsWritten() async throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let curls = try Self.block(text, after: "### The HTTP API: `apnsd serve`", fence: "```sh", containing: "curl ")
        let python = try Self.block(text, after: "### From your backend", fence: "```python")
        let node = try Self.block(text, after: "### From your backend", fence: "```js")
        let expected = try Self.expectations(curls)

        // The mock serves push and channel management for any bundle id of the fixture team.
        var cli = try CLI()
        defer { cli.cleanUp() }
        let identity = try TLSIdentity.throwaway()
        let server = try MockServer(
            configuration: MockConfiguration(
                identity: identity,
                verifier: JWTVerifier(
                    key: try SigningKey(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8")),
                    credential: try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01"))))
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)"
        let ca = try cli.write("ca.pem", identity.caCertificatePEM!)
        cli.environment.merge([
            "APNSD_KEY_FILE": CLI.fixture("keys/AuthKey_TESTKEY001.p8"), "APNSD_KEY_ID": "TESTKEY001",
            "APNSD_TEAM_ID": "TESTTEAM01", "APNSD_TOPIC": "com.example.app",
            "APNSD_CA_FILE": ca,
            "APNSD_PRODUCTION_URL": url, "APNSD_DEVELOPMENT_URL": url,
            "APNSD_CHANNEL_PRODUCTION_URL": url, "APNSD_CHANNEL_DEVELOPMENT_URL": url,
        ]) { $1 }
        try #require(await cli.run("init").status == 0)
        let created = try await cli.run(
            "api-key", "create", "backend", "--scope", "send", "--scope", "read", "--scope", "admin")
        try #require(created.status == 0 && created.lines.count == 1, "\(created.stderr)")
        let key = created.lines[0]
        // Without the worker, nothing the examples enqueue is sent meanwhile: each answer is the same on every run.
        let (serve, base) = try ServeTests.start(cli, ["--no-worker"])
        defer { serve.killIfRunning() }

        let answers = cli.directory.appendingPathComponent("answers")
        try FileManager.default.createDirectory(at: answers, withIntermediateDirectories: true)
        // The block as written, with `curl` recording each answer (status, then body) in a numbered file.
        let prelude = #"""
            set -euo pipefail
            curl() {
              local answer status n
              answer=$(command curl -w '\n%{http_code}' "$@") || return
              status=${answer##*$'\n'}
              answer=${answer%$'\n'*}
              n=$(( $(find "$ANSWERS" -type f | wc -l) + 1 ))
              printf '%s\n%s' "$status" "$answer" > "$ANSWERS/$n"
              printf '%s\n' "$answer"
            }

            """#
        let script = try cli.write("readme.sh", prelude + curls)
        let environment = [
            "PATH=/usr/bin:/bin", "HOME=\(cli.directory.path)", "API=\(base)", "APNSD_KEY=\(key)",
            "ANSWERS=\(answers.path)",
        ]
        let run = try await ToolRun.run("/usr/bin/env", ["-i"] + environment + ["bash", script])
        #expect(run.status == 0, "the block stopped: \(run.stderr)\nlog: \(serve.log.suffix(1500))")
        let recorded = try FileManager.default.contentsOfDirectory(atPath: answers.path).compactMap(Int.init).sorted()
        #expect(recorded.count == expected.count, "\(recorded.count) answers for \(expected.count) requests")
        for (number, expectation) in zip(recorded, expected) {
            let file = try String(contentsOf: answers.appendingPathComponent(String(number)), encoding: .utf8)
            let status = Int(file.prefix { $0 != "\n" })
            let body = String(file.drop { $0 != "\n" }.dropFirst())
            #expect(status == expectation.status, "\(expectation.request): \(status ?? 0) \(body)")
            guard let members = expectation.members else { continue }
            let answer = try? JSONSerialization.jsonObject(with: Data(body.utf8))
            #expect(
                Self.missing(members, in: answer).isEmpty,
                "\(expectation.request): \(Self.missing(members, in: answer)) missing from \(body)")
        }

        // The backend snippets, each with its own key: they print what they enqueued.
        let snippets = [("notify.py", python, "python3"), ("notify.mjs", node, "node")]
        for (name, code, interpreter) in snippets {
            let file = try cli.write(name, code)
            let ran = try await ToolRun.run(
                "/usr/bin/env",
                ["-i", "PATH=/usr/bin:/bin", "APNSD_URL=\(base)", "APNSD_KEY=\(key)", interpreter, file])
            #expect(ran.status == 0, "\(name): \(ran.stdout)\(ran.stderr)")
            #expect(ran.stdout.contains("id") && ran.stdout.contains("deliveries"), "\(name): \(ran.stdout)")
        }
    }

    /// The receiver of "The webhook", run as written against the POSTs of `apnsd serve`: it handles a real event
    /// (checking `t=…,v1=…`), refuses the same body signed 10 minutes ago and one signed with another secret, and
    /// handles an id it has seen only once.
    @Test func theWebhookReceiverTakesServesPostsAndRefusesReplays() async throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let python = try Self.block(text, after: "### The webhook", fence: "```python")
        var cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let secret = "a-readme-webhook-secret"
        let port = Ports.free()
        let handled = cli.path("handled.txt")
        let receiver = try ChildProcess(
            "/usr/bin/env",
            [
                "-i", "PATH=/usr/bin:/bin", "WEBHOOK_SECRET=\(secret)", "PORT=\(port)", "python3",
                try cli.write(
                    "receiver.py", python),
            ],
            stdout: .file(handled), stderr: .file(cli.path("receiver.log")))
        defer { receiver.stop(signal: SIGKILL) }
        try #require(await Poll.until(20) { Ports.isListening(port) }, "the receiver did not start")
        cli.environment["APNSD_WEBHOOK_URL"] = "http://127.0.0.1:\(port)/hook"
        cli.environment["APNSD_WEBHOOK_SECRET_FILE"] = try cli.write("webhook.secret", secret + "\n")
        let (serve, _) = try ServeTests.start(cli, ["--no-worker"])
        defer { serve.killIfRunning() }

        let token = Tokens.hex(7)
        try #require(await cli.run("device", "add", token, "--topic", "com.example.app").status == 0)
        try #require(await cli.run("device", "remove", token, "--topic", "com.example.app").status == 0)
        let lines = { ((try? String(contentsOfFile: handled, encoding: .utf8)) ?? "").split(separator: "\n") }
        #expect(
            await Poll.until(30) { lines() == ["handled 1 device.deactivated \(token)"] },
            "\(lines()); serve: \(serve.log.suffix(1500))")
        #expect(serve.log.contains("webhook.delivered"), "\(serve.log.suffix(1500))")

        let body = #"{"events":[{"id":"1","type":"device.deactivated","token":"\#(token)"}]}"#
        func post(_ body: String, secret: String, age: Int) async -> Int? {
            let t = Int(Date().timeIntervalSince1970) - age
            let v1 = HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(t).\(body)".utf8))
            return await LoopbackHTTP.request(
                port: port, "POST", "/hook",
                headers: ["Content-Type: application/json", "X-Apnsd-Signature: t=\(t),v1=\(v1)"],
                body: Data(body.utf8))?.status
        }
        #expect(await post(body, secret: secret, age: 600) == 401, "a replay signed 10 minutes ago")
        #expect(await post(body, secret: "another-secret-altogether", age: 0) == 401, "a wrong signature")
        #expect(await post(body, secret: secret, age: 0) == 204, "a duplicate: accepted")
        let next = body.replacingOccurrences(of: #""id":"1""#, with: #""id":"2""#)
        #expect(await post(next, secret: secret, age: 0) == 204)
        #expect(
            await Poll.until(10) { lines().count == 2 },
            "the duplicate is dropped, the new id handled: \(lines())")
        #expect(lines().last == "handled 2 device.deactivated \(token)")
    }

    /// One request of the block and what its comment says of the answer.
    struct Expectation {
        var request: String
        var status: Int
        /// The members named, each with the members named inside it (an object's); nil: not a JSON answer.
        var members: Members?
    }

    /// Member names, each with those named in its value when that is an object.
    struct Members {
        var names: [(String, Members?)]
    }

    /// The first fenced block opening with `fence` after the line `heading` (with `containing` in it, if given).
    static func block(_ text: String, after heading: String, fence: String, containing: String? = nil) throws
        -> String
    {
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: heading), "no \(heading) in README.md")
        var index = start + 1
        while index < lines.count {
            if lines[index] == fence {
                let end = try #require(lines[(index + 1)...].firstIndex(of: "```"), "\(fence) not closed")
                let body = lines[(index + 1)..<end].joined(separator: "\n") + "\n"
                if containing.map(body.contains) ?? true { return body }
                index = end
            }
            index += 1
        }
        throw ReadmeError("no \(fence) block after \(heading)")
    }

    /// Each `curl` of the block, in order, with the `# → STATUS {…}` comment on its line or on the first comment
    /// line after it. Every request must have one.
    static func expectations(_ block: String) throws -> [Expectation] {
        var found: [Expectation] = []
        var open = false
        for line in block.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let isComment = trimmed.hasPrefix("#")
            if !isComment, line.contains("curl ") {
                if open { throw ReadmeError("no '# →' answer for \(found.last!.request)") }
                found.append(Expectation(request: String(trimmed.prefix(100)), status: 0, members: nil))
                open = true
            }
            guard let arrow = line.range(of: "# → ") else { continue }
            guard open else { throw ReadmeError("an answer with no request before it: \(line)") }
            let (status, members) = try parse(String(line[arrow.upperBound...]))
            found[found.count - 1].status = status
            found[found.count - 1].members = members
            open = false
        }
        if open { throw ReadmeError("no '# →' answer for \(found.last!.request)") }
        return found
    }

    /// `201 {"id":…,"counts":{"pending":…,…}}; prose`: the status and the members the JSON template names.
    static func parse(_ comment: String) throws -> (Int, Members?) {
        let characters = Array(comment)
        guard characters.count >= 3, let status = Int(String(characters[0..<3])) else {
            throw ReadmeError("an answer must start with its status: \(comment)")
        }
        var index = 3
        while index < characters.count, characters[index] == " " { index += 1 }
        guard index < characters.count, characters[index] == "{" else { return (status, nil) }
        return (status, try object(characters, &index))
    }

    /// The object template at `index` (its `{`), up to its `}`: member names, values skipped (or read, for objects).
    private static func object(_ c: [Character], _ index: inout Int) throws -> Members {
        var members: [(String, Members?)] = []
        index += 1
        while index < c.count {
            switch c[index] {
            case "}":
                index += 1
                return Members(names: members)
            case " ", ",", "…":
                index += 1
            case "\"":
                let name = string(c, &index)
                guard index < c.count, c[index] == ":" else { throw ReadmeError("no ':' after \"\(name)\"") }
                index += 1
                if index < c.count, c[index] == "{" {
                    members.append((name, try object(c, &index)))
                } else {
                    skipValue(c, &index)
                    members.append((name, nil))
                }
            default:
                throw ReadmeError("unexpected '\(c[index])' in \(String(c))")
            }
        }
        throw ReadmeError("unclosed object in \(String(c))")
    }

    private static func string(_ c: [Character], _ index: inout Int) -> String {
        var text = ""
        index += 1
        while index < c.count, c[index] != "\"" {
            if c[index] == "\\" { index += 1 }
            if index < c.count { text.append(c[index]) }
            index += 1
        }
        index += 1
        return text
    }

    /// Skips a value that is not an object template: a string, an array (nested), a number, a literal or `…`.
    private static func skipValue(_ c: [Character], _ index: inout Int) {
        var depth = 0
        while index < c.count {
            switch c[index] {
            case "\"": _ = string(c, &index)
            case "[", "{":
                depth += 1
                index += 1
            case "]", "}":
                if depth == 0 { return }
                depth -= 1
                index += 1
            case ",":
                if depth == 0 { return }
                index += 1
            default: index += 1
            }
        }
    }

    /// The members `expected` names that `answer` (a parsed JSON value) lacks, as dotted paths.
    static func missing(_ expected: Members, in answer: Any?, path: String = "") -> [String] {
        guard let object = answer as? [String: Any] else { return [path.isEmpty ? "(an object)" : path] }
        return expected.names.flatMap { name, inner -> [String] in
            let here = path.isEmpty ? name : path + "." + name
            guard let value = object[name] else { return [here] }
            return inner.map { missing($0, in: value, path: here) } ?? []
        }
    }

    struct ReadmeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
