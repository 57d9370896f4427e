import CLinux
import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// Where the gesture socket listens: the socket systemd passed (socket activation), or a socket file
/// made at a path (mode 0660, given to a group when asked), which is removed again at `close`.
package struct SocketListener {
    package let fd: FileDescriptor
    /// The socket file (nil: systemd's socket, whose file is systemd's).
    package let path: String?
    private let ownsPath: Bool

    /// systemd's socket when it passed one (LISTEN_FDS), else a new one at `path`.
    package init(path: String?, group: String?, log: Logger) throws {
        if let activated = SocketListener.activatedSocket() {
            fd = activated
            fd.setNonBlocking()
            self.path = path
            ownsPath = false
            log.info("listening on the socket systemd passed (\(activated))")
        } else {
            guard let path else { throw SocketError("no socket path: pass --socket PATH, set TOUCHBRIDGE_SOCKET, or set XDG_RUNTIME_DIR") }
            fd = try SocketListener.listen(path: path, group: group)
            self.path = path
            ownsPath = true
            log.info("listening on \(path)")
        }
    }

    /// A connection waiting to be taken, or nil.
    package func accept() throws -> FileDescriptor? { try UnixSocket.accept(fd) }

    /// Stops listening; removes the socket file unless systemd owns it. Only a socket is removed: if
    /// something else took the path meanwhile, it stays.
    package func close() {
        fd.close()
        var st = stat()
        if ownsPath, let path, lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
    }

    /// systemd socket activation: LISTEN_PID is us and LISTEN_FDS ≥ 1 → fd 3.
    package static func activatedSocket() -> FileDescriptor? {
        guard let pidText = getenv("LISTEN_PID"), let fdsText = getenv("LISTEN_FDS"),
              Int32(String(cString: pidText)) == getpid(), let n = Int(String(cString: fdsText)), n >= 1 else { return nil }
        unsetenv("LISTEN_PID"); unsetenv("LISTEN_FDS"); unsetenv("LISTEN_FDNAMES")
        return FileDescriptor(rawValue: 3)
    }

    /// A listening socket at `path`. Bound under a temporary name and renamed into place once it
    /// listens: a client that waits for the socket file to appear never finds it refusing connections.
    package static func listen(path: String, group: String?) throws -> FileDescriptor {
        let temporary = path + ".new"
        let address: UnixSocketAddress, temporaryAddress: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path)
            temporaryAddress = try UnixSocketAddress(temporary)
        } catch {
            throw SocketError("\(path): socket path too long (at most \(UnixSocketAddress.maximumPathLength - 4) bytes)")
        }
        // The directory: /run/touchbridge may not exist yet.
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let dir = String(path[..<slash])
            if access(dir, F_OK) != 0 && mkdir(dir, 0o755) != 0 {
                let e = Errno.current
                throw SocketError("\(dir): cannot create the socket's directory: \(e)"
                    + (e == .noSuchFile ? " (its parent does not exist either: create it with mkdir -p \(dir), or choose another place with --socket PATH)"
                       : " (create it, or choose another place with --socket PATH)"))
            }
        }
        // A socket file left by a daemon that died is removed; one a live daemon answers on is not, and
        // anything that is not a socket is never touched.
        for (p, a) in [(path, address), (temporary, temporaryAddress)] {
            var st = stat()
            guard lstat(p, &st) == 0 else { continue }
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw SocketError("\(p) exists and is not a socket: refusing to replace it (pass --socket with a path for the socket, e.g. $XDG_RUNTIME_DIR/touchbridge.sock)")
            }
            if p == path && UnixSocket.isListening(a) {
                throw SocketError("\(path): another touchbridged is already listening there (stop it, or pass --socket PATH)")
            }
            unlink(p)
        }
        let old = umask(0o117)
        let fd: FileDescriptor
        do {
            fd = try UnixSocket.listen(on: temporaryAddress)
        } catch {
            umask(old)
            throw SocketError("\(path): cannot \(error.operation) the socket: \(error.errno)"
                + (error.errno == .accessDenied ? " (choose a writable place with --socket PATH)" : ""))
        }
        umask(old)
        func fail(_ message: String) -> SocketError {
            fd.close()
            unlink(temporary)
            return SocketError(message)
        }
        chmod(temporary, 0o660)
        if let group {
            guard let gr = getgrnam(group) else {
                throw fail("socket group \"\(group)\" does not exist (create it, or choose another with --socket-group)")
            }
            if chown(temporary, uid_t.max, gr.pointee.gr_gid) != 0 {
                throw fail("\(path): cannot give the socket to group \"\(group)\": \(Errno.current)")
            }
        }
        guard rename(temporary, path) == 0 else {
            throw fail("\(path): cannot put the socket in place: \(Errno.current)")
        }
        return fd
    }
}
