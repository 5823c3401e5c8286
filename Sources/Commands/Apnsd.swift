import Foundation
import Logging

/// The `apnsd` command line: `apnsd <command> [options]`.
public enum Apnsd {
    /// Runs one command line (the words after `apnsd`) and returns its exit status. It writes to
    /// `StandardStreams.current` and reads `Invocation.current`: the process's own unless the caller binds others.
    public static func main(_ words: [String]) async -> Int32 {
        do {
            try await run(words)
            return 0
        } catch {
            // `--help` stops a command once it has declared its options (Arguments), which its help lists.
            if let options = error.helpOptions {
                let path = Help.path(of: words)
                guard let text = Help.text(for: path, accepting: options) else {
                    Output.error("apnsd: error: no help written for 'apnsd \(path)' (see apnsd --help)")
                    return 1
                }
                Output.line(text)
                return 0
            }
            // No command at all: the usage alone, no error line.
            guard !words.isEmpty else {
                Output.error(Help.main)
                return error.exitCode
            }
            Output.error("apnsd: error: \(error.message)")
            return error.exitCode
        }
    }

    private static func run(_ words: [String]) async throws(CLIError) {
        guard let command = words.first else {
            // No command is a usage error: the usage on stderr, exit 64 (a script that lost its arguments fails).
            throw .usage("no command")
        }
        let rest = Array(words.dropFirst())
        switch command {
        case "--help", "-h", "help":
            // `apnsd help device add` is `apnsd device add --help`.
            guard !rest.isEmpty else { return Output.line(Help.main) }
            guard let text = Help.text(for: Help.path(of: rest), accepting: []) else {
                throw .usage("no help for '\(rest.joined(separator: " "))' (see apnsd --help)")
            }
            return Output.line(text)
        case "--version", "-V":
            return Output.line(Help.version)
        default: break
        }
        switch command {
        case "init": try await InitCommand.run(rest)
        case "send": try await SendCommand.run(rest)
        case "worker": try await WorkerCommand.run(rest)
        case "serve": try await ServeCommand.run(rest)
        case "workers": try await WorkersCommand.run(rest)
        case "status": try await StatusCommand.run(rest)
        case "cancel": try await CancelCommand.run(rest)
        case "log": try await LogCommand.run(rest)
        case "backup": try await BackupCommand.run(rest)
        case "migrate": try await MigrateCommand.run(rest)
        case "stats": try await StatsCommand.run(rest)
        case "config":
            let (_, args) = try subcommand(rest, of: "config", ["check"])
            try await ConfigCheckCommand.run(args)
        case "prune": try await PruneCommand.run(rest)
        case "device":
            let (sub, args) = try subcommand(rest, of: "device", ["add", "remove", "import", "list", "verify"])
            switch sub {
            case "verify": try await VerifyCommand.run(args)
            case "add": try await DeviceCommands.add(args)
            case "remove": try await DeviceCommands.remove(args)
            case "import": try await DeviceCommands.importFile(args)
            default: try await DeviceCommands.list(args)
            }
        case "campaign":
            let (sub, args) = try subcommand(
                rest, of: "campaign", ["create", "list", "show", "watch", "pause", "resume", "cancel", "retry"])
            switch sub {
            case "pause": try await CampaignCommands.pause(args, resume: false)
            case "resume": try await CampaignCommands.pause(args, resume: true)
            case "watch": try await CampaignWatchCommand.run(args)
            case "create": try await CampaignCommands.create(args)
            case "list": try await CampaignCommands.list(args)
            case "show": try await CampaignCommands.show(args)
            case "retry": try await CampaignCommands.retry(args)
            default: try await CampaignCommands.cancel(args)
            }
        case "channel":
            let (sub, args) = try subcommand(rest, of: "channel", ["create", "list", "show", "delete"])
            switch sub {
            case "create": try await ChannelCommands.create(args)
            case "list": try await ChannelCommands.list(args)
            case "show": try await ChannelCommands.show(args)
            default: try await ChannelCommands.delete(args)
            }
        case "webhook":
            let (sub, args) = try subcommand(rest, of: "webhook", ["status", "retry"])
            if sub == "retry" { try await WebhookCommands.retry(args) } else { try await WebhookCommands.status(args) }
        case "api-key":
            let (sub, args) = try subcommand(rest, of: "api-key", ["create", "list", "revoke"])
            switch sub {
            case "create": try await APIKeyCommands.create(args)
            case "list": try await APIKeyCommands.list(args)
            default: try await APIKeyCommands.revoke(args)
            }
        default:
            throw .usage("unknown command '\(command)' (see apnsd --help)")
        }
    }

    private static func subcommand(_ words: [String], of command: String, _ known: [String]) throws(CLIError) -> (
        String, [String]
    ) {
        // `apnsd device --help` (or `device --json --help`): the group's help.
        if let first = words.first, first.hasPrefix("-"), words.contains("--help") || words.contains("-h") {
            throw .help(options: [])
        }
        guard let sub = words.first else {
            throw .usage("'\(command)' needs a subcommand: \(known.joined(separator: ", "))")
        }
        guard known.contains(sub) else {
            throw .usage("unknown subcommand '\(command) \(sub)' (expected \(known.joined(separator: ", ")))")
        }
        return (sub, Array(words.dropFirst()))
    }
}
