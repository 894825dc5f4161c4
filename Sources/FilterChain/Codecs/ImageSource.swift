#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an image comes from.
public enum ImageSource: Sendable, Hashable {
    case file(String)
    case standardInput
    case bytes([UInt8], name: String)

    /// The name errors use: the path, "-" for standard input.
    public var name: String {
        switch self {
        case .file(let path): path
        case .standardInput: "-"
        case .bytes(_, let name): name
        }
    }
}

/// An input opened for a decoder: a seekable FILE* at offset 0, or all its bytes in memory
/// (standard input, pipes, bytes). Its format has been sniffed from the first bytes.
final class OpenedInput {
    let name: String
    private(set) var format: ImageFormat
    /// The first bytes (up to 32), for format sniffing and header peeks.
    let prefix: [UInt8]
    private(set) var file: UnsafeMutablePointer<FILE>?
    private(set) var memory: UnsafeMutableRawBufferPointer?

    private init(name: String, format: ImageFormat, prefix: [UInt8], file: UnsafeMutablePointer<FILE>?,
                 memory: UnsafeMutableRawBufferPointer?) {
        self.name = name
        self.format = format
        self.prefix = prefix
        self.file = file
        self.memory = memory
    }

    /// The allocation behind `memory` when it was read from a file here.
    private var memoryOwner: UnsafeMutableRawBufferPointer?

    deinit {
        if let file { fclose(file) }
        if let memoryOwner { memoryOwner.deallocate() } else { memory?.deallocate() }
    }

    var memoryBase: UnsafePointer<UInt8>? {
        memory.map { UnsafePointer($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }
    var memoryCount: Int { memory?.count ?? 0 }

    /// All the bytes, as a copy, without moving a file's position (a decoder may be reading
    /// it): for a look past the image (a JPEG's gain map). Nil when they cannot be read.
    func allBytesAside() -> [UInt8]? {
        if let memory { return Array(UnsafeRawBufferPointer(memory)) }
        guard let file else { return nil }
        let fd = fileno(file)
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size > 0, st.st_size < Int64(Int32.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let done = bytes.withUnsafeMutableBytes { OpenedInput.readFully(fd, into: $0, at: 0) }
        return done == bytes.count ? bytes : nil
    }

    /// Fills `buffer` from `fd` at `offset` with pread, through short reads and interrupted
    /// calls; how many bytes it got (fewer at the end of the file or on an error). The file's
    /// position does not move, so a decoder may be reading it meanwhile.
    static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        return done
    }

    /// A regular file's descriptor and size, for a decoder that reads it with pread as its
    /// library asks (libtiff: the directory, then strip by strip), so the file is never held
    /// whole; nil for standard input, pipes and bytes, or a file already read into memory.
    /// The descriptor stays open as long as this input.
    func regularFile() -> (fd: Int32, size: Int)? {
        guard let file, memory == nil else { return nil }
        let fd = fileno(file)
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return nil }
        return (fd, Int(st.st_size))
    }

    /// All the bytes, in memory: a file's are read now (decoders whose library needs the
    /// whole file, as libwebp's container parser does).
    func bytesInMemory() throws -> UnsafeRawBufferPointer {
        if let file {
            // A regular file is read in one allocation of its size (its bytes are not held
            // twice); a read that finds it changed falls back to reading in pieces.
            var st = stat()
            if fstat(fileno(file), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0, ftello(file) == 0 {
                let size = Int(st.st_size)
                let m = UnsafeMutableRawBufferPointer.allocate(byteCount: size + 1, alignment: 16)
                let n = fread(m.baseAddress, 1, size + 1, file)
                if n == size {
                    fclose(file)
                    self.file = nil
                    memory = UnsafeMutableRawBufferPointer(rebasing: m[0..<size])
                    memoryOwner = m
                    return UnsafeRawBufferPointer(memory!)
                }
                m.deallocate()
                if ferror(file) != 0 { throw CodecError(name, .readFailed(String(cString: strerror(errno)))) }
                rewind(file)
            }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
                if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
                if n < chunk.count {
                    if ferror(file) != 0 { throw CodecError(name, .readFailed(String(cString: strerror(errno)))) }
                    break
                }
            }
            fclose(file)
            self.file = nil
            let m = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
            m.copyBytes(from: bytes)
            memory = UnsafeMutableRawBufferPointer(rebasing: m[0..<bytes.count])
            memoryOwner = m
        }
        return UnsafeRawBufferPointer(memory ?? UnsafeMutableRawBufferPointer(start: nil, count: 0))
    }

    static func open(_ source: ImageSource) throws -> OpenedInput {
        let input: OpenedInput
        switch source {
        case .file(let path): input = try openFile(path)
        case .standardInput:
            let bytes = try readAll(0, name: "-")
            input = try fromBytes(bytes, name: "-")
        case .bytes(let bytes, let name): input = try fromBytes(bytes, name: name)
        }
        input.claim()
        return input
    }

    /// A format that claims files of the sniffed one takes this one when its test says so
    /// (`FormatDeclaration.claim`: a DNG sniffed as TIFF is a camera RAW).
    private func claim() {
        for d in CodecRegistry.declarations {
            if let claim = d.claim, claim.refines == format, claim.test(self) {
                format = d.format
                return
            }
        }
    }

    /// All of standard input.
    static func readStandardInput() throws -> [UInt8] { try readAll(0, name: "-") }

    private static func fromBytes(_ bytes: [UInt8], name: String) throws -> OpenedInput {
        guard !bytes.isEmpty else { throw CodecError(name, .empty) }
        let prefix = Array(bytes.prefix(32))
        let format = try sniff(prefix, name: name)
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        memory.copyBytes(from: bytes)
        return OpenedInput(name: name, format: format, prefix: prefix, file: nil, memory: memory)
    }

    private static func sniff(_ prefix: [UInt8], name: String) throws -> ImageFormat {
        switch ImageFormat.sniff(prefix) {
        case .success(let format): return format
        case .failure(let failure): throw CodecError(name, .unsupportedFormat(looksLike: failure.looksLike))
        }
    }

    private static func openFile(_ path: String) throws -> OpenedInput {
        var st = stat()
        if stat(path, &st) != 0 {
            throw CodecError(path, reasonForOpen(errno))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw CodecError(path, .isDirectory) }
        guard let file = fopen(path, "rb") else { throw CodecError(path, reasonForOpen(errno)) }
        var prefix = [UInt8](repeating: 0, count: 32)
        let got = fread(&prefix, 1, 32, file)
        if got == 0 {
            let failed = ferror(file) != 0
            let why = String(cString: strerror(errno))
            fclose(file)
            throw CodecError(path, failed ? .readFailed(why) : .empty)
        }
        prefix.removeLast(32 - got)
        let format: ImageFormat
        do { format = try sniff(prefix, name: path) } catch {
            fclose(file)
            throw error
        }
        if fseek(file, 0, SEEK_SET) == 0 {
            return OpenedInput(name: path, format: format, prefix: prefix, file: file, memory: nil)
        }
        // Not seekable (a pipe given by name): take the rest into memory.
        let rest: [UInt8]
        do { rest = try readAll(fileno(file), name: path) } catch {
            fclose(file)
            throw error
        }
        fclose(file)
        return try fromBytes(prefix + rest, name: path)
    }

    static func reasonForOpen(_ code: Int32) -> CodecError.Reason {
        switch code {
        case ENOENT, ENOTDIR: .notFound
        case EACCES, EPERM: .permissionDenied
        case EISDIR: .isDirectory
        default: .readFailed(String(cString: strerror(code)))
        }
    }

    private static func readAll(_ fd: Int32, name: String) throws -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CodecError(name, .readFailed(String(cString: strerror(errno))))
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }
}
