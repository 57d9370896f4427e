import TouchSystem

/// A small JSON reader and writer (no Foundation): scene files, the socket protocol and `bind` maps.
///
/// The reader keeps object keys in order and remembers the line of every value, so that errors can
/// name both the line and the JSON path of the culprit.
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
    /// A whole number that fits an Int (|n| < 10^15); nil for any other value: converting a peer's
    /// 1e300 with Int(_:) would trap.
    public var intValue: Int? {
        guard case .number(let n) = self, n == n.rounded(), abs(n) < 1e15 else { return nil }
        return Int(n)
    }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [(String, JSON)]? { if case .object(let o) = self { o } else { nil } }

    /// A short name of the value's kind, for messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The compact JSON text of the value.
    public var text: String {
        var w = JSONWriter()
        w.value(self)
        return w.string
    }
}

/// A JSON syntax error with its line and column.
public struct JSONSyntaxError: Error, CustomStringConvertible, Equatable {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "line \(line), column \(column): \(message)" }
}
