import Glibc

/// An open file descriptor, in the spirit of swift-system's `FileDescriptor`: a type of its own, so that
/// a descriptor is never confused with a count or an index, with the operations the process does on
/// one. Every read and write here retries a call a signal interrupted (EINTR), so no caller writes that
/// loop; a non-blocking descriptor's "not now" (EAGAIN) is an answer (nil), not an error. Whoever opened
/// a descriptor closes it. `rawValue` is for a C library that takes the descriptor itself (libevdev,
/// libudev, mosquitto, sd-bus, an ioctl), never for I/O of our own.
public struct FileDescriptor: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// open(2) with O_CLOEXEC always (the programs the daemon starts inherit nothing).
    public static func open(_ path: String, _ flags: Int32, permissions: mode_t = 0) throws(SystemError) -> FileDescriptor {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, permissions)
            if fd >= 0 { return FileDescriptor(rawValue: fd) }
            let e = Errno.current
            if e != .interrupted { throw SystemError("open", path, e) }
        }
    }

    public func close() { _ = Glibc.close(rawValue) }

    /// One read(2) into `buffer`: the count (0 at the end of the file), nil when a non-blocking
    /// descriptor has nothing now.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int?, Errno> {
        while true {
            let n = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if n >= 0 { return .success(n) }
            let e = Errno.current
            if e == .interrupted { continue }
            return e.isWouldBlock ? .success(nil) : .failure(e)
        }
    }

    /// One write(2) of `bytes`: how many went (perhaps fewer), nil when a non-blocking descriptor takes
    /// nothing now.
    public func write(_ bytes: UnsafeRawBufferPointer) -> Result<Int?, Errno> {
        while true {
            let n = Glibc.write(rawValue, bytes.baseAddress, bytes.count)
            if n >= 0 { return .success(n) }
            let e = Errno.current
            if e == .interrupted { continue }
            return e.isWouldBlock ? .success(nil) : .failure(e)
        }
    }

    /// Writes all of `bytes` to a blocking descriptor (a file, a terminal, a pipe), however many calls
    /// that takes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            switch write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .success(let n?) where n > 0: offset += n
            case .success: throw Errno(EAGAIN)
            case .failure(let e): throw e
            }
        }
    }

    public func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var failure: Errno?
        bytes.withUnsafeBytes { b in
            do throws(Errno) { try writeAll(b) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// O_NONBLOCK on (reads and writes return EAGAIN instead of waiting).
    public func setNonBlocking() {
        _ = fcntl(rawValue, F_SETFL, fcntl(rawValue, F_GETFL) | O_NONBLOCK)
    }

    /// FD_CLOEXEC on (not inherited by the programs the daemon starts).
    public func setCloseOnExec() {
        _ = fcntl(rawValue, F_SETFD, FD_CLOEXEC)
    }

    public var description: String { "fd \(rawValue)" }
}
