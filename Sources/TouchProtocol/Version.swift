import TouchSystem

/// The package's version, and the socket protocol's (docs/protocol.md): both say `--version`.
public enum Version {
    public static let string = "0.1.0"
    public static let protocolVersion = 2
}
