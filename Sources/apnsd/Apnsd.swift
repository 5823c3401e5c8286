import Foundation

/// The `apnsd` command line: `apnsd <command> [options]`.
@main
struct Apnsd {
    static func main() async {
        let words = Array(CommandLine.arguments.dropFirst())
        do {
            try await run(words)
            exit(0)
        } catch {
            Output.error("apnsd: error: \(error.message)")
            exit(error.exitCode)
        }
    }

    static func run(_ words: [String]) async throws(CLIError) {
        guard let command = words.first, command != "--help", command != "-h", command != "help" else {
            Output.line(Help.main)
            return
        }
        let rest = Array(words.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            guard let text = Help.commands[command] else { throw .usage("unknown command '\(command)' (see apnsd --help)") }
            Output.line(text + "\n\n" + Help.settings)
            return
        }
        switch command {
        case "init": try await InitCommand.run(rest)
        case "send": try await SendCommand.run(rest)
        case "worker": try await WorkerCommand.run(rest)
        case "serve": try await ServeCommand.run(rest)
        case "workers": try await WorkersCommand.run(rest)
        case "cancel": try await CancelCommand.run(rest)
        case "log": try await LogCommand.run(rest)
        case "prune": try await PruneCommand.run(rest)
        case "device":
            let (sub, args) = try subcommand(rest, of: "device", ["add", "import", "list"])
            switch sub {
            case "add": try await DeviceCommands.add(args)
            case "import": try await DeviceCommands.importFile(args)
            default: try await DeviceCommands.list(args)
            }
        case "campaign":
            let (sub, args) = try subcommand(rest, of: "campaign", ["create", "list", "show", "cancel", "retry"])
            switch sub {
            case "create": try await CampaignCommands.create(args)
            case "list": try await CampaignCommands.list(args)
            case "show": try await CampaignCommands.show(args)
            case "retry": try await CampaignCommands.retry(args)
            default: try await CampaignCommands.cancel(args)
            }
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

    private static func subcommand(_ words: [String], of command: String, _ known: [String]) throws(CLIError) -> (String, [String]) {
        guard let sub = words.first else { throw .usage("'\(command)' needs a subcommand: \(known.joined(separator: ", "))") }
        guard known.contains(sub) else { throw .usage("unknown subcommand '\(command) \(sub)' (expected \(known.joined(separator: ", ")))") }
        return (sub, Array(words.dropFirst()))
    }
}
