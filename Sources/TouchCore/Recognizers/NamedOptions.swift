/// An option set whose single members have names (`RectEdge`: top, left, bottom, right). The table is
/// the one place the names are written: `names` lists a set's members in the table's order, and
/// `init?(name:)` reads one back (or an alias, such as `RectEdge`'s "all").
public protocol NamedOptions: OptionSet, Sendable where Element == Self {
    /// Each single member with its name, in the order names are listed.
    static var named: [(name: String, value: Self)] { get }
    /// Further names accepted when reading, for several members at once.
    static var aliases: [(name: String, value: Self)] { get }
}

extension NamedOptions {
    public static var aliases: [(name: String, value: Self)] { [] }

    /// The names of the members in the set, in the table's order.
    public var names: [String] { Self.named.filter { contains($0.value) }.map(\.name) }

    /// The member (or alias) of this name.
    public init?(name: String) {
        guard let found = (Self.named + Self.aliases).first(where: { $0.name == name }) else { return nil }
        self = found.value
    }

    /// Every name `init?(name:)` reads.
    public static var readableNames: [String] { (named + aliases).map(\.name) }
}
