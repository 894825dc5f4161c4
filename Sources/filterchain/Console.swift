import ArgumentParser
import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit statuses, as `filterchain --help` documents them.
enum Status {
    static let success: Int32 = 0
    /// An image could not be read, processed or written.
    static let failure: Int32 = 1
    /// The command line was wrong (EX_USAGE).
    static let usage: Int32 = 64
    /// A chain file is invalid (EX_DATAERR).
    static let invalidChain: Int32 = 65
    /// `report merge`: a report holds a line that is not a report line (EX_DATAERR too).
    static let invalidReport: Int32 = 65
    /// Interrupted by Ctrl-C or SIGTERM (128 + SIGINT).
    static let interrupted: Int32 = 130
}

/// A failure already phrased for people: printed as one line, ends the command with `status`.
struct Failure: Error {
    var message: String
    var status: Int32

    static func usage(_ message: String) -> Failure { Failure(message: message, status: Status.usage) }
    static func chain(_ error: ChainError) -> Failure { Failure(message: error.description, status: Status.invalidChain) }
    static func image(_ error: any Error) -> Failure {
        if error is RenderCancelled { return Failure(message: "interrupted", status: Status.interrupted) }
        // An option the image turned out not to take (TIFF's jpeg compression for a 16-bit
        // input), found before any work: the command line's mistake.
        if let e = error as? RenderError {
            switch e.reason {
            case .badOption, .options: return Failure(message: describe(error), status: Status.usage)
            // A chain value an expression gave for this image that its parameter does not
            // allow: an invalid chain (a batch counts it as that image failing).
            case .chainValue: return Failure(message: describe(error), status: Status.invalidChain)
            default: break
            }
        }
        return Failure(message: describe(error), status: Status.failure)
    }
}

/// An error as the command line says it: the library's words, except where the library
/// names its own API for what a flag sets (EncodeOptions.format, DecodeOptions.maxPixels,
/// settings["quality"]): there the flag.
func describe(_ error: any Error) -> String {
    if let e = error as? CodecError {
        switch e.reason {
        case .unsupportedOutputFormat, .tooManyPixels:
            return e.displayName + ": " + e.message
                .replacing(", or set EncodeOptions.format)", with: ", or use --format)")
                .replacing("(raise DecodeOptions.maxPixels; 0 for none)", with: "(raise it with --max-pixels, 0 for none)")
        case .unsupported:
            return e.description.replacing("(raise maxFrames; 0 for none)", with: "(raise it with --max-frames, 0 for none)")
        default: return e.description
        }
    }
    if let e = error as? RenderError, case .options(let problem) = e.reason {
        return (e.file.map { $0 + ": " } ?? "") + problem.commandLine { CodecOptions.spelled($0, $1) }
    }
    return "\(error)"
}

/// Everything the CLI says on stderr and stdout, serialised so that lines from parallel work
/// never interleave, and so that the progress line is cleared before other text.
enum Console {
    nonisolated(unsafe) private static var lock = pthread_mutex_t()
    nonisolated(unsafe) private static var progressShown = false
    static let stderrIsTerminal = isatty(2) == 1
    /// `-q`: warnings are not shown (errors always are). Set once, before any work starts.
    nonisolated(unsafe) static var quiet = false

    static func setUp() { pthread_mutex_init(&lock, nil) }

    private static func locked(_ body: () -> Void) {
        pthread_mutex_lock(&lock)
        body()
        pthread_mutex_unlock(&lock)
    }

    private static func clearProgress() {
        if progressShown {
            writeAll(2, "\r\u{1B}[K")
            progressShown = false
        }
    }

    static func error(_ message: String) {
        locked {
            clearProgress()
            writeAll(2, "filterchain: error: \(message)\n")
        }
    }

    static func warning(_ message: String) {
        if quiet { return }
        locked {
            clearProgress()
            writeAll(2, "filterchain: warning: \(message)\n")
        }
    }

    /// A warning about one input, named first (`img4.png: WebP has no place for comments; not
    /// written`), unless the message names it already.
    static func warning(about file: String, _ message: String) {
        warning(message.hasPrefix(file + ":") ? message : "\(file): \(message)")
    }

    static func note(_ message: String) {
        locked {
            clearProgress()
            writeAll(2, message + "\n")
        }
    }

    static func output(_ line: String, newline: Bool = true) {
        locked {
            writeAll(1, newline ? line + "\n" : line)
        }
    }

    /// Replaces the progress line (terminals only).
    static func progress(_ line: String) {
        locked {
            writeAll(2, "\r\u{1B}[K" + line)
            progressShown = true
        }
    }

    static func endProgress() { locked { clearProgress() } }
}

/// Ctrl-C and SIGTERM: stop starting work, let images in flight stop at their next strip,
/// remove temporary files, exit 130. A second signal exits at once (still cleaning up).
///
/// The signals are taken by a thread of their own (`sigwait`), not by a handler: removing the
/// temporary files takes a lock and frees memory, which a handler may not do (one that
/// interrupted the thread holding the lock waited on it for ever, so the second Ctrl-C hung).
/// They are blocked in every other thread: `install` runs before any thread starts, and
/// threads inherit the mask.
enum Signals {
    static let cancel = CancellationFlag()
    private static func handled() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    static func install() {
        // Over a file-size limit (ulimit -f) a write then fails with EFBIG and is reported
        // like a full disk, instead of the signal killing the process mid-file.
        signal(SIGXFSZ, SIG_IGN)
        var set = handled()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { _ in
            var set = Signals.handled()
            var taken: Int32 = 0
            var count = 0
            while sigwait(&set, &taken) == 0 {
                count += 1
                Signals.cancel.cancel()
                if count > 1 {
                    TemporaryFiles.shared.removeAll()
                    _exit(Status.interrupted)
                }
            }
            return nil
        }, nil)
        // Without the thread, the signals keep their default action (the process ends).
        if started != 0 { pthread_sigmask(SIG_UNBLOCK, &set, nil) }
    }

    /// Before `exec`: the program run in this process gets the signals unblocked, as a
    /// program expects them (a blocked mask survives exec; a parent may also have started us
    /// with them blocked, as Foundation's Process does).
    static func unblockForExec() {
        var set = handled()
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}

/// A JSON object on one line, for --json.
struct JSONLine {
    private var parts: [String] = []

    mutating func add(_ key: String, _ value: String?) {
        parts.append(JSONWriter.quote(key) + ":" + (value.map(JSONWriter.quote) ?? "null"))
    }

    mutating func add(_ key: String, _ value: Int?) {
        parts.append(JSONWriter.quote(key) + ":" + (value.map(String.init) ?? "null"))
    }

    mutating func add(_ key: String, _ value: Bool) {
        parts.append(JSONWriter.quote(key) + ":" + (value ? "true" : "false"))
    }

    mutating func addRaw(_ key: String, _ json: String) {
        parts.append(JSONWriter.quote(key) + ":" + json)
    }

    var text: String { "{" + parts.joined(separator: ",") + "}" }
}

/// Monotonic seconds.
func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// `name` inside `folder`.
func joinPath(_ folder: String, _ name: String) -> String {
    folder.hasSuffix("/") ? folder + name : folder + "/" + name
}

func fileExists(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0
}

func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}

/// A folder given where an image goes (INPUT): a usage error that says it is a folder and
/// how to give its images.
/// `outputOption`: how the command names its output folder (`thumbnail` says -o).
func refuseFolder(_ input: String, outputOption: String = "--output-dir") throws {
    guard input != "-", isDirectory(input) else { return }
    let folder = input.hasSuffix("/") ? String(input.dropLast()) : input
    throw Failure.usage("\(input): is a folder, not an image; give its images with a glob and \(outputOption) "
                        + "(\(folder)/*.jpg \(outputOption) out) or list them with --files-from "
                        + "(find \(folder) -name '*.jpg' > list.txt; --files-from list.txt \(outputOption) out)")
}

/// Creates a folder and its parents when missing.
func makeDirectory(_ path: String) throws {
    if isDirectory(path) { return }
    var partial = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
        partial += "/" + component
        if !isDirectory(partial), mkdir(partial, 0o777) != 0, errno != EEXIST {
            throw Failure(message: "\(path): cannot create the folder: \(String(cString: strerror(errno)))", status: Status.failure)
        }
    }
}

func loadChain(_ path: String) throws -> Chain {
    do { return try Chain.load(path) } catch { throw Failure.chain(error) }
}

func resolveStep(_ text: String, in chain: Chain, file: String) throws -> Int {
    do { return try StepReference(text).resolve(in: chain) } catch {
        throw Failure.usage("\(file): \(error)")
    }
}

/// The first `count` bytes of a file (fewer when it is shorter); nil when it cannot be read.
func readPrefix(_ path: String, count: Int) -> [UInt8]? {
    guard !isDirectory(path), let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes = [UInt8](repeating: 0, count: count)
    let n = fread(&bytes, 1, count, f)
    return Array(bytes.prefix(n))
}

/// Writes all of `text` to a file descriptor (unbuffered, so lines appear at once).
func writeAll(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    let count = bytes.count
    var offset = 0
    while offset < count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, count - offset) }
        if n <= 0 { if errno == EINTR { continue }; return }
        offset += n
    }
}

/// A mutex (pthread), for the batch's bookkeeping. (@unchecked Sendable: a pthread mutex; the
/// type exists to be shared.)
final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// Runs `body` on `count` threads of their own and returns when all have finished.
func runThreads(_ count: Int, stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var threads: [pthread_t] = []
    for _ in 0..<count {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, stackSize)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let created = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        pthread_attr_destroy(&attributes)
        precondition(created == 0, "cannot start a thread")
        #if canImport(Glibc)
        threads.append(thread)
        #else
        threads.append(thread!)
        #endif
    }
    for t in threads { pthread_join(t, nil) }
}

/// Everything readable from `fd` (standard input, say).
func readAll(_ fd: Int32) -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        result.append(contentsOf: chunk[0..<n])
    }
    return result
}

/// "PNG, JPEG and WebP" ("or" with `and: "or"`).
func listText(_ names: [String], and: String = "and") -> String {
    names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " \(and) " + names.last!
}
