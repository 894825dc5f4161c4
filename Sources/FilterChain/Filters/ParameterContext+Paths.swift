#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ParameterContext {
    /// `path` as it is opened: relative to `directory` (the chain file's folder) unless
    /// absolute.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") || directory.isEmpty || directory == "."
            ? path : (directory.hasSuffix("/") ? directory + path : directory + "/" + path)
    }

    /// For a file a chain names that cannot be opened (missing, a folder, no permission):
    /// where it was looked for, from the root, and that a relative path starts at the chain
    /// file's folder ("looked for /work/looks/luts/film.cube; paths in a chain file are
    /// relative to its folder"). nil for an absolute path, which says it all, and for a
    /// file that exists and can be opened (its problem is inside it).
    public func whereLookedFor(_ path: String) -> String? {
        guard !path.hasPrefix("/") else { return nil }
        let resolved = resolve(path)
        if access(resolved, R_OK) == 0 {
            var st = stat()
            if stat(resolved, &st) == 0 && (st.st_mode & S_IFMT) != S_IFDIR { return nil }
        }
        return "looked for \(Self.absolute(resolved)); paths in a chain file are relative to its folder"
    }

    /// `path` from the root, without `.` components: relative paths start at the working
    /// directory.
    static func absolute(_ path: String) -> String {
        var full = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                full = (cwd.hasSuffix("/") ? cwd : cwd + "/") + path
            }
        }
        var parts: [Substring] = []
        for part in full.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}
