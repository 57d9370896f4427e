import TouchSystem

/// A node of a YAML document, with the line it starts on (for error messages).
struct YAMLNode {
    enum Kind {
        case scalar(String)
        case sequence([YAMLNode])
        case mapping(YAMLMapping)
        /// `key:` with nothing after it or below it.
        case empty
    }

    var kind: Kind
    var line: Int

    var scalar: String? {
        if case .scalar(let s) = kind { return s }
        return nil
    }

    var sequence: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    var mapping: YAMLMapping? {
        if case .mapping(let m) = kind { return m }
        return nil
    }
}

/// A block mapping's entries, in the order written.
struct YAMLMapping {
    struct Entry {
        var key: String
        var value: YAMLNode
    }

    var entries: [Entry]

    /// The first entry with this key.
    func value(for key: String) -> YAMLNode? {
        entries.first { $0.key == key }?.value
    }
}

/// Reads the YAML that `libinput record` writes (LibinputRecording.swift): block mappings and block
/// sequences by indentation (a sequence may stand at its key's own indentation, as libinput writes
/// `events:` and each `- evdev:`), flow sequences `[a, b, c]` on one line or continued on the next,
/// plain and quoted scalars, and `#` comments. A flow mapping `{…}` or a flow sequence with lists inside
/// is kept whole as one scalar: libinput writes those only where this project reads nothing (the
/// `--with-libinput` events). Anchors, tags, block scalars and multi-line plain scalars are not in that
/// format; what cannot be read is an error naming the line.
struct YAMLReader {
    private struct Line {
        var number: Int
        var indent: Int
        var content: Substring
    }

    let file: String
    private var lines: [Line] = []
    private var next = 0
    /// A line the splitting could not take (a tab in the indentation), thrown by `document()`.
    private var badLine: RecordingError?

    init(text: String, file: String) {
        self.file = file
        var number = 0
        for line in text.lines() {
            number += 1
            let body = line.drop { $0 == " " }
            if body.first == "\t" && badLine == nil {
                badLine = RecordingError(file: file, line: number, reason: "a tab in the indentation (YAML indents with spaces)")
            }
            let content = YAMLReader.withoutComment(body)
            if content.isEmpty || content == "---" || content == "..." { continue }
            lines.append(Line(number: number, indent: line.utf8.count - body.utf8.count, content: content))
        }
    }

    /// The whole document; an empty one is an error.
    mutating func document() throws -> YAMLNode {
        if let badLine { throw badLine }
        guard let first = lines.first else { throw RecordingError(file: file, line: 1, reason: "the file is empty") }
        let root = try node(at: first.indent)
        if next < lines.count {
            throw fail(lines[next].number, "\"\(lines[next].content.prefix(60))\" is not where its indentation puts it")
        }
        return root
    }

    // MARK: Blocks

    private mutating func node(at indent: Int) throws -> YAMLNode {
        let line = lines[next]
        if YAMLReader.isSequenceEntry(line.content) { return try sequence(at: indent) }
        if YAMLReader.splitKey(line.content) != nil { return try mapping(at: indent) }
        next += 1
        return try inlineValue(line.content, line: line.number)
    }

    private mutating func sequence(at indent: Int) throws -> YAMLNode {
        let first = lines[next].number
        var items: [YAMLNode] = []
        while next < lines.count, lines[next].indent == indent, YAMLReader.isSequenceEntry(lines[next].content) {
            let line = lines[next]
            let rest = line.content.dropFirst().drop { $0 == " " }
            if rest.isEmpty {
                next += 1
                if next < lines.count, lines[next].indent > indent {
                    items.append(try node(at: lines[next].indent))
                } else {
                    items.append(YAMLNode(kind: .empty, line: line.number))
                }
            } else {
                // "- key: value": the entry's content is a block of its own, starting at its column.
                let column = indent + line.content.distance(from: line.content.startIndex, to: rest.startIndex)
                lines[next] = Line(number: line.number, indent: column, content: rest)
                items.append(try node(at: column))
            }
        }
        return YAMLNode(kind: .sequence(items), line: first)
    }

    private mutating func mapping(at indent: Int) throws -> YAMLNode {
        let first = lines[next].number
        var entries: [YAMLMapping.Entry] = []
        while next < lines.count, lines[next].indent == indent, !YAMLReader.isSequenceEntry(lines[next].content) {
            let line = lines[next]
            guard let (key, rest) = YAMLReader.splitKey(line.content) else {
                throw fail(line.number, "expected \"key: value\", found \"\(line.content.prefix(60))\"")
            }
            next += 1
            let value: YAMLNode
            if !rest.isEmpty {
                value = try inlineValue(rest, line: line.number)
            } else if next < lines.count, lines[next].indent > indent {
                value = try node(at: lines[next].indent)
            } else if next < lines.count, lines[next].indent == indent, YAMLReader.isSequenceEntry(lines[next].content) {
                value = try sequence(at: indent)            // a sequence at its key's indentation
            } else {
                value = YAMLNode(kind: .empty, line: line.number)
            }
            entries.append(YAMLMapping.Entry(key: key, value: value))
        }
        return YAMLNode(kind: .mapping(YAMLMapping(entries: entries)), line: first)
    }

    // MARK: Values on a line

    /// A scalar, or a flow collection (continued on the following lines until its brackets close).
    private mutating func inlineValue(_ text: Substring, line: Int) throws -> YAMLNode {
        guard let open = text.first, open == "[" || open == "{" else {
            return YAMLNode(kind: .scalar(YAMLReader.unquoted(text)), line: line)
        }
        var whole = String(text)
        while YAMLReader.depth(whole) > 0 {
            guard next < lines.count else { throw fail(line, "a \(open)…\(open == "[" ? "]" : "}") that never closes") }
            whole += " " + lines[next].content
            next += 1
        }
        guard YAMLReader.depth(whole) == 0, whole.last == (open == "[" ? "]" : "}") else {
            throw fail(line, "\"\(whole.prefix(60))\": brackets that do not match")
        }
        // Between the brackets, by bytes (the brackets and commas are ASCII).
        let bytes = whole.utf8
        let inner = whole[bytes.index(after: bytes.startIndex)..<bytes.index(before: bytes.endIndex)]
        if open == "{" || inner.utf8.contains(UInt8(ascii: "[")) || inner.utf8.contains(UInt8(ascii: "{")) {
            return YAMLNode(kind: .scalar(whole), line: line)      // kept whole: nothing here reads inside
        }
        var items: [Substring] = []
        var start = inner.utf8.startIndex
        while true {
            let end = inner.utf8[start...].firstIndex(of: UInt8(ascii: ",")) ?? inner.utf8.endIndex
            items.append(inner[start..<end].trimmedSpaces())
            if end == inner.utf8.endIndex { break }
            start = inner.utf8.index(after: end)
        }
        if items.last?.isEmpty == true { items.removeLast() }         // [a, b,] and []
        if items.contains(where: { $0.isEmpty }) { throw fail(line, "\"\(whole.prefix(60))\": an empty item in a list") }
        return YAMLNode(kind: .sequence(items.map { YAMLNode(kind: .scalar(YAMLReader.unquoted($0)), line: line) }), line: line)
    }

    // MARK: Lexical pieces

    private static func isSequenceEntry(_ s: Substring) -> Bool {
        s == "-" || s.hasPrefix("- ")
    }

    /// "key: value" or "key:" (the key may be quoted): the key and what follows the colon.
    private static func splitKey(_ s: Substring) -> (String, Substring)? {
        guard let first = s.first, first != "[", first != "{" else { return nil }
        var i = s.startIndex
        if first == "\"" || first == "'" {
            guard let close = s[s.index(after: i)...].firstIndex(of: first) else { return nil }
            i = s.index(after: close)
        }
        while i < s.endIndex {
            if s[i] == ":" {
                let after = s.index(after: i)
                if after == s.endIndex || s[after] == " " {
                    return (unquoted(s[..<i].trimmedSpaces()), s[after...].drop { $0 == " " })
                }
            }
            i = s.index(after: i)
        }
        return nil
    }

    /// The line without its `#` comment (a `#` at the start or after a space, outside quotes) and
    /// without trailing spaces. A quote opens a quoted scalar only where a scalar can start. Read as
    /// UTF-8 bytes: every character that matters here is ASCII, and a byte loop is several times faster
    /// than one over Characters (a recording has a line per event).
    private static func withoutComment(_ s: Substring) -> Substring {
        let bytes = s.utf8
        var quote: UInt8?
        var previous = UInt8(ascii: " ")
        var i = bytes.startIndex
        var end = bytes.endIndex
        while i < bytes.endIndex {
            let c = bytes[i]
            if let q = quote {
                if q == UInt8(ascii: "\"") && c == UInt8(ascii: "\\") {
                    i = bytes.index(after: i)
                    if i == bytes.endIndex { break }
                } else if c == q {
                    quote = nil
                }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                if scalarStarts.contains(previous) { quote = c }
            } else if c == UInt8(ascii: "#") && (previous == UInt8(ascii: " ") || previous == UInt8(ascii: "\t")) {
                end = i
                break
            }
            previous = bytes[i]
            i = bytes.index(after: i)
        }
        return s[..<end].trimmedSpaces()
    }

    /// The bytes after which a quote opens a quoted scalar.
    private static let scalarStarts: [UInt8] = Array(" \t[{,:-".utf8)

    /// How many brackets are open at the end of `s` (outside quotes).
    private static func depth(_ s: String) -> Int {
        var depth = 0
        var quote: UInt8?
        for c in s.utf8 {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                depth += 1
            } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                depth -= 1
            }
        }
        return depth
    }

    /// A scalar's text: double quotes with their escapes, single quotes with '' for ', or plain.
    private static func unquoted(_ s: Substring) -> String {
        if s.count >= 2, s.first == "'", s.last == "'" {
            return String(s.dropFirst().dropLast()).replacingAll("''", with: "'")
        }
        guard s.count >= 2, s.first == "\"", s.last == "\"" else { return String(s) }
        var result = ""
        var escaped = false
        for c in s.dropFirst().dropLast() {
            if escaped {
                switch c {
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: result.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                result.append(c)
            }
        }
        return result
    }

    private func fail(_ line: Int, _ reason: String) -> RecordingError {
        RecordingError(file: file, line: line, reason: reason)
    }
}
