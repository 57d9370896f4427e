/// A line a client sends on the socket, parsed: the whole line is understood before anything is done
/// with it, so a line with an error changes nothing (it gets `{"event":"error",…}` and the connection
/// stays usable).
///
/// Commands: `{"subscribe": ["gestures", "touches", "devices"]}` (the set replaces the client's topics).
public enum ClientCommand: Equatable, Sendable {
    /// The topics, and their names in the order the client gave them.
    case subscribe(Topics, names: [String])

    public static let topicNames = ["gestures", "touches", "devices"]

    /// Why a line was refused: the message of the error line.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The command of one line (without its newline); nil for a blank line, which is ignored.
    public static func parse(_ line: [UInt8]) throws(Refusal) -> ClientCommand? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) { return nil }
        var parser = JSONParser(bytes: line)
        let json: JSON
        do { json = try parser.parse() } catch {
            throw Refusal(message: "not JSON (\(error)); send {\"subscribe\": [\"gestures\", \"touches\", \"devices\"]}")
        }
        guard let members = json.objectValue, !members.isEmpty else {
            throw Refusal(message: "expected a command such as {\"subscribe\": [\"gestures\"]}, got \(json.objectValue == nil ? json.kindName : "an empty object")")
        }
        guard members.count == 1, let (key, value) = members.first else {
            throw Refusal(message: "one command a line, found \(members.count): \(members.map { "\"\($0.0)\"" }.joined(separator: ", "))")
        }
        switch key {
        case "subscribe":
            guard let list = value.arrayValue else {
                throw Refusal(message: "\"subscribe\" takes an array of topics: \"gestures\", \"touches\", \"devices\"")
            }
            var topics: Topics = []
            var names: [String] = []
            for item in list {
                guard let n = item.stringValue else {
                    throw Refusal(message: "\"subscribe\" takes an array of topics: \"gestures\", \"touches\", \"devices\"")
                }
                switch n {
                case "gestures": topics.insert(.gestures)
                case "touches": topics.insert(.touches)
                case "devices": topics.insert(.devices)
                default: throw Refusal(message: "unknown topic \"\(n)\"; topics are \"gestures\", \"touches\", \"devices\"")
                }
                names.append(n)
            }
            return .subscribe(topics, names: names)
        default:
            throw Refusal(message: "unknown command \"\(key)\"; the only command is {\"subscribe\": [...]}")
        }
    }
}
