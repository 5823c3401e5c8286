import Foundation
import PackagePlugin

/// Compiles each file of a target's `Embedded` folder into the target as `EmbeddedText.<name>` (the file's name up to
/// its first dot), so documents are edited as data files rather than as Swift strings.
@main struct EmbedTextPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Embedded")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let tool = try context.tool(named: "EmbedText")
        return names.sorted().filter { !$0.hasPrefix(".") }.map { file in
            let name = String(file.prefix { $0 != "." })
            let input = folder.appending(path: file)
            let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedText+\(name).swift")
            return .buildCommand(
                displayName: "Embedding \(file)", executable: tool.url, arguments: [input.path, output.path, name],
                inputFiles: [input], outputFiles: [output])
        }
    }
}
