import CLITestSupport
import Foundation
import Intake
import TestSupport
import Testing

/// The CLI's self-description: `--version`, usage on no command, and a help of its own for every command and
/// subcommand — each found from `apnsd --help`'s command list, so a command added there is checked here too.
@Suite struct HelpTests {
    /// `device add|import|list` → device, device add, device import, device list; `cancel ID` → cancel.
    static func commandPaths(inMainHelp help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "COMMANDS:") else { return [] }
        var paths: [String] = []
        for line in lines[(start + 1)...] {
            if line.isEmpty { break }
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }  // a wrapped description
            let words = line.split(separator: " ")
            let command = String(words[0])
            paths.append(command)
            if words.count > 1, words[1].allSatisfy({ $0.isLowercase || $0 == "|" || $0 == "-" }) {
                paths += words[1].split(separator: "|").map { "\(command) \($0)" }
            }
        }
        return paths
    }

    @Test func plainApnsdPrintsTheUsageOnStderrAndExits64() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let result = try await cli.run([])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty && result.stderr.contains("USAGE: apnsd <command> [options]"), "\(result.stderr)")
        let help = try await cli.run("--help")
        #expect(help.status == 0 && help.stdout.contains("USAGE: apnsd <command> [options]") && help.stderr.isEmpty)
    }

    @Test func versionIsOneLineWithTheBuild() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let result = try await cli.run("--version")
        #expect(result.status == 0 && result.stderr.isEmpty)
        #expect(result.lines.count == 1 && result.stdout.hasSuffix("\n"), "\(result.stdout)")
        // apnsd 0.1.0-dev (debug, Swift 6.3, x86_64 Linux, Swift runtime shared)
        #expect(
            result.stdout.wholeMatch(
                of:
                    /apnsd [0-9]+\.[0-9]+\.[0-9]+\S* \((debug|release), Swift [^,]+, \S+ Linux, Swift runtime (static|shared)\)\n/
            ) != nil,
            "\(result.stdout)")
    }

    @Test func everyCommandAndSubcommandHasItsOwnHelp() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let paths = Self.commandPaths(inMainHelp: try await cli.run("--help").stdout)
        #expect(
            paths.contains("device add") && paths.contains("campaign create") && paths.contains("api-key revoke")
                && paths.contains("worker") && paths.contains("log"), "\(paths)")
        for path in paths {
            let words = path.split(separator: " ").map(String.init)
            let help = try await cli.run(words + ["--help"])
            #expect(help.status == 0 && help.stderr.isEmpty, "\(path): \(help.stderr)")
            #expect(
                help.stdout.contains("apnsd \(path)"),
                "apnsd \(path) --help does not show its usage: \(help.stdout.prefix(300))")
            // Every option the command's parser accepts is described (Help.text lists any that is not).
            #expect(!help.stdout.contains("OPTIONS NOT DESCRIBED ABOVE"), "\(path): \(help.stdout.prefix(2000))")
            #expect(help.stdout.contains("SETTINGS"), "\(path): its help ends with the settings")
            // -h, and `apnsd help PATH`, say the same; --help after other words too.
            #expect(try await cli.run(words + ["-h"]).stdout == help.stdout, "\(path) -h")
            #expect(try await cli.run(["help"] + words).stdout == help.stdout, "help \(path)")
            #expect(
                try await cli.run(words + ["--json", "--help"]).stdout == help.stdout, "\(path) --json --help")
        }
    }

    @Test func aSubcommandsHelpIsItsOwn() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let add = try await cli.run("device", "add", "--help").stdout
        #expect(add.contains("USAGE: apnsd device add TOKEN") && add.contains("--user ID"))
        #expect(!add.contains("apnsd device import") && !add.contains("apnsd device list"), "\(add)")
        let group = try await cli.run("device", "--help")
        #expect(
            group.status == 0 && group.stdout.contains("apnsd device add") && group.stdout.contains("apnsd device list")
        )
        #expect(!FileManager.default.fileExists(atPath: cli.database), "--help does nothing else")
    }

    @Test(arguments: [["nonsense", "--help"], ["device", "remove-all", "--help"], ["help", "nonsense"]])
    func helpForAnUnknownCommandIsAUsageError(words: [String]) async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let result = try await cli.run(words)
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(
            result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("apnsd: error: "),
            "\(result.stderr)")
    }

    @Test func everyVariableIsSpelledInFull() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        for help in [try await cli.run("--help").stdout, try await cli.run("worker", "--help").stdout] {
            for name in Configuration.environmentNames {
                #expect(help.contains(name), "\(name) is not spelled out in the help")
            }
            // No shorthand such as APNSD_RETRY_BASE/CAP/MAX_ATTEMPTS or APNSD_RETRY_* ("APNSD_* environment" is fine).
            #expect(help.firstMatch(of: /APNSD_[A-Z][A-Z_]*(\/[A-Z]|\*)/) == nil, "\(help.prefix(400))")
        }
    }
}
