/// The one did-you-mean: the word a user most likely meant, among the words allowed where they wrote
/// one (a key of a scene or a configuration, a command, a recognizer type, a topic).
public enum DidYouMean {
    /// " (did you mean \"word\"?)" for the allowed word nearest to `word`, or "" when none is near.
    public static func hint(_ word: String, in allowed: [String]) -> String {
        closest(word, in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// Levenshtein distance between two words, ignoring case.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var prev = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                cur[j] = Swift.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }

    /// The allowed key nearest to a misspelt one, by edit distance.
    public static func closest(_ key: String, in allowed: [String]) -> String? {
        if let prefixed = allowed.first(where: { $0.lowercased().hasPrefix(key.lowercased()) && key.count >= 4 }) {
            return prefixed
        }
        let best = allowed.map { ($0, editDistance(key, $0)) }.min { $0.1 < $1.1 }
        if let best, best.1 <= max(2, key.count / 3) { return best.0 }
        // A word begun the same way, for most of its letters ("rotate" for "rotation").
        func shared(_ a: String, _ b: String) -> Int { zip(a.lowercased(), b.lowercased()).prefix { $0 == $1 }.count }
        let begun = allowed.map { ($0, shared(key, $0)) }.max { $0.1 < $1.1 }
        if let begun, begun.1 >= 4, begun.1 * 3 >= key.count * 2 { return begun.0 }
        return nil
    }
}
