import Foundation
import PackagePlugin

/// Compiles each entry of a target's `Embedded` folder into the target as `EmbeddedText.<name>` (the entry's name up
/// to its first dot): a file as its text, a folder as its files' names to their texts. Documents and pages are edited
/// as data files rather than as Swift strings.
@main struct EmbedTextPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Embedded")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let tool = try context.tool(named: "EmbedText")
        return names.sorted().filter { !$0.hasPrefix(".") }.map { entry in
            let name = String(entry.prefix { $0 != "." })
            let input = folder.appending(path: entry)
            let inside = (try? FileManager.default.contentsOfDirectory(atPath: input.path)) ?? []
            let inputs = inside.isEmpty ? [input] : inside.sorted().map { input.appending(path: $0) }
            let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedText+\(name).swift")
            return .buildCommand(
                displayName: "Embedding \(entry)", executable: tool.url, arguments: [input.path, output.path, name],
                inputFiles: inputs, outputFiles: [output])
        }
    }
}
