import Glibc

/// A failure of the operating system, with the errno's text.
public struct SystemError: Error, CustomStringConvertible, Equatable {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(_ operation: String, _ path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(path): \(operation) failed: \(String(cString: strerror(errno)))"
    }
}
