// embed-page: run by the EmbedPage build plugin (Plugins/EmbedPage) as TouchBridge builds. It reads the
// visualizer's page, Sources/TouchBridge/Visualizer/Page/page.{html,css,js}, inlines the CSS and the
// script where the HTML says (/*TB:CSS*/, //TB:JS), splits it at <!--TB:HEAD--> (where a page's title,
// mode and data go), and writes a Swift file with the two parts: the binaries carry the page (a report
// is one self-contained file; `visualize` serves it without reading files).
//
//     embed-page PAGE_DIRECTORY OUTPUT.swift
import Glibc

func fail(_ message: String) -> Never {
    let text = Array("embed-page: \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func read(_ path: String) -> String {
    guard let f = fopen(path, "r") else { fail("cannot open \(path)") }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n == 0 { break }
        bytes += buffer[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// `text` as a Swift raw multi-line string literal, with enough #s that nothing inside ends it.
func literal(_ text: String) -> String {
    var hashes = "#"
    while Array(text.utf8).firstRange(of: Array(("\"" + hashes).utf8)) != nil { hashes += "#" }
    return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
}

/// `text` before and after the one `marker` in it.
func split(_ text: String, at marker: String) -> (String, String) {
    let t = Array(text.utf8), m = Array(marker.utf8)
    guard let i = t.indices.first(where: { t[$0...].starts(with: m) }) else { fail("no \(marker) in the page") }
    return (String(decoding: t[..<i], as: UTF8.self), String(decoding: t[(i + m.count)...], as: UTF8.self))
}

let args = CommandLine.arguments
guard args.count == 3 else { fail("usage: embed-page PAGE_DIRECTORY OUTPUT.swift") }
let dir = args[1]
let html = read(dir + "/page.html")
let (beforeCSS, afterCSS) = split(html, at: "/*TB:CSS*/\n")
let (head, rest) = split(beforeCSS + read(dir + "/page.css") + afterCSS, at: "<!--TB:HEAD-->\n")
let (markup, end) = split(rest, at: "//TB:JS\n")
// The editor's page: its CSS and script inlined where it says, served whole by `touchbridgectl edit`.
let editorHTML = read(dir + "/editor.html")
let (beforeEditorCSS, afterEditorCSS) = split(editorHTML, at: "/*TB:CSS*/\n")
let (beforeEditorJS, afterEditorJS) = split(beforeEditorCSS + read(dir + "/editor.css") + afterEditorCSS, at: "//TB:JS\n")
let editor = beforeEditorJS + read(dir + "/editor.js") + afterEditorJS
var headText = head
while headText.hasSuffix("\n") { headText.removeLast() }
let source = """
    // Written by embed-page (the EmbedPage build plugin) from Visualizer/Page/page.{html,css,js}.

    extension VisualizerPage {
        /// The page up to where its title, mode and data go.
        static let head = \(literal(headText))

        /// The rest of the page.
        static let body = \(literal(markup + read(dir + "/page.js") + end))

        /// The scene editor's page (editor.html with editor.css and editor.js inlined), whole.
        package static let editorPage = \(literal(editor))
    }

    """
guard let out = fopen(args[2], "w") else { fail("cannot write \(args[2])") }
fputs(source, out)
fclose(out)
