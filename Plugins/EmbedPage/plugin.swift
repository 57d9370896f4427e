// The EmbedPage build plugin: VisualizerPage carries the visualizer's page (VisualizerPage/Page/page.html,
// .css, .js) as Swift strings, written by the embed-page tool into the build directory whenever one of
// those files changes.
import PackagePlugin

@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let page = module.directoryURL.appending(path: "Page")
        let output = context.pluginWorkDirectoryURL.appending(path: "VisualizerPageText.swift")
        return [.buildCommand(displayName: "Embedding the visualizer's page",
                              executable: try context.tool(named: "embed-page").url,
                              arguments: [page.path(), output.path()],
                              inputFiles: ["page.html", "page.css", "page.js", "editor.html", "editor.css", "editor.js"].map { page.appending(path: $0) },
                              outputFiles: [output])]
    }
}
