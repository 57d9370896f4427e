import Glibc

/// An errno value, in the spirit of swift-system's `Errno`: the one place such a value becomes text.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's errno, as the last failed call left it.
    public static var current: Errno { Errno(errno) }

    public static let interrupted = Errno(EINTR)
    public static let wouldBlock = Errno(EAGAIN)
    public static let accessDenied = Errno(EACCES)
    public static let notPermitted = Errno(EPERM)
    public static let noSuchFile = Errno(ENOENT)
    public static let connectionRefused = Errno(ECONNREFUSED)
    public static let busy = Errno(EBUSY)

    /// EAGAIN or EWOULDBLOCK: nothing to read, or no room to write, on a non-blocking descriptor.
    public var isWouldBlock: Bool { rawValue == EAGAIN || rawValue == EWOULDBLOCK }

    public var description: String { String(cString: strerror(rawValue)) }
}

/// A failed system call: which call, on what, and why ("/dev/uinput: open failed: Permission denied").
public struct SystemError: Error, CustomStringConvertible, Equatable {
    /// The call (`open`, `bind`, `EVIOCGRAB`).
    public var operation: String
    /// What it was called on: a path, or a few words ("the event loop").
    public var path: String
    public var errno: Errno

    public init(_ operation: String, _ path: String, errno: Int32) {
        self.init(operation, path, Errno(errno))
    }

    public init(_ operation: String, _ path: String, _ errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// The call failed just now: errno says why.
    public static func last(_ operation: String, _ path: String) -> SystemError {
        SystemError(operation, path, Errno.current)
    }

    public var description: String { "\(path): \(operation) failed: \(errno)" }
}
