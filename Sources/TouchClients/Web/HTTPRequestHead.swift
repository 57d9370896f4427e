import TouchSystem

/// The head of an HTTP/1.x request, as far as the visualizer reads it: the request line, the headers,
/// the query and the cookies.
package struct HTTPRequestHead {
    package let method: String
    package let target: String
    package let version: String
    /// Header names in lower case, in the order sent.
    package let headers: [(name: String, value: String)]

    package init?(_ head: [UInt8]) {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return nil }
        let parts = lines.removeFirst().split(separator: " ")
        guard parts.count == 3 else { return nil }
        method = String(parts[0])
        target = String(parts[1])
        version = String(parts[2])
        var hs: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            hs.append((line[..<colon].lowercased(), value))
        }
        headers = hs
    }

    package var path: String { target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/" }

    /// The header of that name (lower case); nil when it is absent or sent twice (two Hosts: which one
    /// would a proxy have checked?).
    package func header(_ name: String) -> String? {
        let all = headers.filter { $0.name == name }
        return all.count == 1 ? all[0].value : nil
    }

    /// A query parameter's value (no percent-decoding: a token is hex).
    package func query(_ name: String) -> String? {
        guard let q = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in q.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.first.map(String.init) == name { return kv.count > 1 ? String(kv[1]) : "" }
        }
        return nil
    }

    /// A cookie's value from the Cookie headers.
    package func cookie(_ name: String) -> String? {
        for h in headers where h.name == "cookie" {
            for c in h.value.split(separator: ";") {
                let kv = c.trimmingCharacters(in: " ").split(separator: "=", maxSplits: 1)
                if kv.count == 2 && kv[0] == name { return String(kv[1]) }
            }
        }
        return nil
    }
}
