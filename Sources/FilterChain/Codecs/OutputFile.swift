import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an encoded image goes.
public enum ImageDestination: Sendable, Hashable {
    case file(String)
    case standardOutput
    /// Bytes in memory: the encoded file is put in the buffer when the render succeeds.
    case memory(OutputBuffer)
    /// A frame of an animation being written: a render of an animation
    /// (`Renderer.render(_:animation:...)`) lays each frame out as the animation's format
    /// holds it, and hands it to the animation's writer.
    case frame(AnimationFrameSlot)

    public var name: String {
        switch self {
        case .file(let path): path
        case .standardOutput: "-"
        case .memory(let buffer): buffer.name
        case .frame(let slot): slot.name
        }
    }
}

/// Receives an encoded image in memory (`ImageDestination.memory`).
public final class OutputBuffer: Sendable, Hashable {
    /// What errors call this output.
    public let name: String
    private let stored = Mutex<[UInt8]>([])

    public init(name: String = "<memory>") { self.name = name }

    /// The encoded file; empty until a render that writes it succeeds.
    public var bytes: [UInt8] { stored.withLock { $0 } }

    func set(_ bytes: [UInt8]) { stored.withLock { $0 = bytes } }

    public static func == (a: OutputBuffer, b: OutputBuffer) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// An output that appears whole or not at all. Encoders write to a temporary file in the
/// destination's folder, renamed over the destination only by `commit()`; `abort()` (or
/// dropping the object uncommitted) removes it, so a failure never leaves a partial file and
/// never touches an existing one. Standard output gets the bytes only after success.
final class OutputFile {
    let name: String
    private(set) var file: UnsafeMutablePointer<FILE>?
    private let finalPath: String?
    private let temporaryPath: String?
    private var done = false
    private var buffer: OutputBuffer?

    init(_ destination: ImageDestination) throws {
        name = destination.name
        if case .memory(let buffer) = destination { self.buffer = buffer }
        switch destination {
        case .frame:
            preconditionFailure("a frame goes to its animation's writer, not to a file of its own")
        case .standardOutput, .memory:
            guard let f = tmpfile() else {
                throw CodecError(name, .writeFailed("cannot create a temporary file: \(String(cString: strerror(errno)))"))
            }
            file = f
            finalPath = nil
            temporaryPath = nil
        case .file(let path):
            var st = stat()
            var mode: mode_t = 0o666 & ~OutputFile.processUmask
            if stat(path, &st) == 0 {
                if (st.st_mode & S_IFMT) == S_IFDIR { throw CodecError(path, .isDirectory) }
                mode = st.st_mode & 0o7777  // replacing a file keeps its permissions
            }
            let (folder, base) = OutputFile.split(path)
            var template = Array("\(folder)/.\(base).filterchain-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if fd < 0 {
                let code = errno
                var folderStat = stat()
                if code == ENOENT || (stat(folder, &folderStat) == 0 && (folderStat.st_mode & S_IFMT) != S_IFDIR) {
                    throw CodecError(path, .writeFailed("no such folder '\(folder)'"))
                }
                throw CodecError(path, .writeFailed(String(cString: strerror(code))))
            }
            let temp = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            fchmod(fd, mode)
            guard let f = fdopen(fd, "wb") else {
                close(fd)
                unlink(temp)
                throw CodecError(path, .writeFailed(String(cString: strerror(errno))))
            }
            file = f
            finalPath = path
            temporaryPath = temp
            TemporaryFiles.shared.insert(temp)
        }
    }

    deinit { if !done { abort() } }

    /// Makes the output appear: flushes, checks every write succeeded, renames into place.
    /// With `sync` the data reaches the disk (fsync) before the rename.
    func commit(sync: Bool = false) throws {
        precondition(!done, "output committed twice")
        guard let f = file else { return }
        errno = 0
        let flushed = fflush(f) == 0 && ferror(f) == 0 && (!sync || fsync(fileno(f)) == 0)
        let code = errno
        if !flushed {
            abort()
            throw CodecError(name, .writeFailed(code != 0 ? String(cString: strerror(code)) : "write error"))
        }
        if let finalPath, let temporaryPath {
            let closed = fclose(f) == 0
            let closeCode = errno
            file = nil
            if !closed {
                abort()
                throw CodecError(name, .writeFailed(String(cString: strerror(closeCode))))
            }
            if rename(temporaryPath, finalPath) != 0 {
                let renameCode = errno
                abort()
                throw CodecError(name, .writeFailed(String(cString: strerror(renameCode))))
            }
            TemporaryFiles.shared.remove(temporaryPath)
        } else if let buffer {
            // Memory: read the finished bytes back.
            rewind(f)
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = fread(&chunk, 1, chunk.count, f)
                if n == 0 { break }
                bytes.append(contentsOf: chunk[0..<n])
            }
            let failed = ferror(f) != 0
            let code = errno
            fclose(f)
            file = nil
            done = true
            if failed { throw CodecError(name, .writeFailed(String(cString: strerror(code)))) }
            buffer.set(bytes)
        } else {
            // Standard output: copy the finished bytes.
            rewind(f)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var failed = false
            while true {
                let n = fread(&buffer, 1, buffer.count, f)
                if n == 0 { break }
                var offset = 0
                while offset < n {
                    let w = buffer.withUnsafeBytes { write(1, $0.baseAddress! + offset, n - offset) }
                    if w < 0 {
                        if errno == EINTR { continue }
                        failed = true
                        break
                    }
                    offset += w
                }
                if failed { break }
            }
            let code = errno
            fclose(f)
            file = nil
            done = true
            if failed { throw CodecError(name, .writeFailed(String(cString: strerror(code)))) }
        }
        done = true
    }

    /// Throws the output away.
    func abort() {
        if let f = file { fclose(f) }
        file = nil
        if let temporaryPath {
            unlink(temporaryPath)
            TemporaryFiles.shared.remove(temporaryPath)
        }
        done = true
    }

    /// The error of a failed write, from errno.
    func writeError(_ fallback: String) -> CodecError {
        let code = errno
        return CodecError(name, .writeFailed(code != 0 ? String(cString: strerror(code)) : fallback))
    }

    static func split(_ path: String) -> (folder: String, base: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    static let processUmask: mode_t = {
        let current = umask(0o022)
        umask(current)
        return current
    }()
}

/// Temporary files not yet committed, so that an interrupted process can remove them.
/// (@unchecked Sendable: `paths` is guarded by `monitor`.)
package final class TemporaryFiles: @unchecked Sendable {
    public static let shared = TemporaryFiles()
    private var paths: Set<String> = []
    private let monitor = Monitor()

    /// Registers a file to remove if the process is interrupted.
    public func insert(_ path: String) {
        monitor.locked { _ = paths.insert(path) }
    }

    public func remove(_ path: String) {
        monitor.locked { _ = paths.remove(path) }
    }

    /// Removes every temporary file still present (used when the process is interrupted).
    public func removeAll() {
        monitor.locked {
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }
}
