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

    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The last path component.
    /// The directory of `path` ("." for a name alone, "/" for a file at the root).
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

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
