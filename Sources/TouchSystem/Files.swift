import Glibc

/// Whole-file reads and writes without Foundation.
public enum Files {
    /// The file's bytes as UTF-8 text (invalid sequences are repaired).
    public static func readText(_ path: String) throws -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// The file's bytes.
    public static func readBytes(_ path: String) throws -> [UInt8] {
        let fd = try FileDescriptor.open(path, O_RDONLY)
        defer { fd.close() }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            switch buffer.withUnsafeMutableBytes({ fd.read(into: $0) }) {
            case .failure(let e): throw SystemError("read", path, e)
            case .success(0?), .success(nil): return data
            case .success(let n?): data.append(contentsOf: buffer[0..<n])
            }
        }
    }

    /// Writes `text` as the whole file (created mode 0644, or truncated).
    public static func writeText(_ path: String, _ text: String) throws {
        let fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, permissions: 0o644)
        defer { fd.close() }
        do { try fd.writeAll(Array(text.utf8)) } catch { throw SystemError("write", path, error) }
    }

    /// Writes `text` to `path` whole or not at all: into a temporary file beside it, flushed to disk,
    /// then renamed over it (a crash or a full disk leaves the old file). With `keepPrevious`, the old
    /// file is kept as `path~`. The new file keeps the old one's permissions (0644 for a new one).
    public static func replaceAtomically(_ path: String, _ text: String, keepPrevious: Bool = false) throws {
        var st = stat()
        let mode = stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0o644
        let temporary = "\(directoryName(path))/.\(baseName(path)).tmp-\(getpid())"
        let fd = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions: mode)
        do {
            do { try fd.writeAll(Array(text.utf8)) } catch { throw SystemError("write", temporary, error) }
            guard fsync(fd.rawValue) == 0 else { throw SystemError.last("fsync", temporary) }
            fd.close()
        } catch {
            fd.close()
            unlink(temporary)
            throw error
        }
        if keepPrevious && exists(path) {
            _ = unlink(path + "~")
            guard link(path, path + "~") == 0 else {
                let e = SystemError.last("link", path + "~")
                unlink(temporary)
                throw e
            }
        }
        guard rename(temporary, path) == 0 else {
            let e = SystemError.last("rename", path)
            unlink(temporary)
            throw e
        }
    }

    /// The names in a directory, sorted, without "." and "..".
    public static func list(_ directory: String) throws -> [String] {
        guard let dir = opendir(directory) else { throw SystemError.last("opendir", directory) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The directory of `path` ("." for a name alone, "/" for a file at the root).
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last path component.
    public static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// The name of the group that owns `path`, when the file and the group exist.
    public static func groupName(of path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return getgrgid(st.st_gid).flatMap { $0.pointee.gr_name.map { String(cString: $0) } }
    }
}
