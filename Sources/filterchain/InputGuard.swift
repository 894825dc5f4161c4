import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's identity: its device and inode, after resolving links. Two paths name the same
/// file exactly when their identities are equal, whatever their text ("a.png", "./a.png",
/// an absolute path, a symlink, a hard link).
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path`, or nil when there is none (yet).
    init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

/// Refuses any output that would replace one of the inputs, by file identity.
struct InputGuard {
    private var inputs: [FileIdentity: String] = [:]

    init(inputs: [String]) {
        for input in inputs where input != "-" {
            if let id = FileIdentity(input), self.inputs[id] == nil { self.inputs[id] = input }
        }
    }

    /// Throws a usage error when `output` is one of the inputs.
    func check(_ output: String) throws {
        guard output != "-", let id = FileIdentity(output), let input = inputs[id] else { return }
        let same = input == output ? "" : " (\(input))"
        throw Failure.usage("\(output): the output would replace the input\(same); write to another path, or use --in-place to replace inputs on purpose")
    }
}

/// The path a symlink finally names (the path itself when it is no link), so that an
/// in-place output replaces the file and not the link.
func resolvedPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// The format of the image file at `path` from its first bytes; nil when unreadable or
/// no format filterchain reads (the render then says why).
func sniffedFormat(_ path: String) -> ImageFormat? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var prefix = [UInt8](repeating: 0, count: 32)
    let n = fread(&prefix, 1, 32, f)
    return try? ImageFormat.sniff(Array(prefix.prefix(n))).get()
}
