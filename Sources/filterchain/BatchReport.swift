import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--report FILE`: one JSON line per input as it finishes, appended to a file that survives
/// the process, so the shares of a batch can be checked together afterwards
/// (`filterchain report merge`).
///
/// Each line is one `write(2)` of the whole line on a descriptor opened with `O_APPEND`: the
/// kernel puts it at the end of the file in one piece, so a re-run of the task appends after
/// its predecessor's lines, several processes may share one file, and a process killed
/// between lines leaves only whole lines.
///
///     {"input":"in/a.jpg","output":"out/a.jpg","status":"done","error":null,"seconds":0.412,"shard":"2/4","time":"2025-01-31T12:00:00.123Z"}
///
/// `status` is `done`, `skipped` (the output existed, with --skip-existing) or `failed`
/// (`error` says why); an input a cancelled run never finished gets no line. `shard` is the
/// share as `--shard I/N` writes it (`1/1` without --shard); `time` is when it finished (UTC).
/// (@unchecked Sendable: its writes and `failure` are guarded by `lock`; the rest is `let`.)
final class BatchReport: @unchecked Sendable {
    enum Outcome: String { case done, skipped, failed }

    let path: String
    private let fd: Int32
    private let shard: String
    private let lock = Lock()
    private var failure: String?

    /// `{shard}` in `template` becomes the share's number.
    static func path(_ template: String, shard: Shard?) -> String {
        template.replacing("{shard}", with: String(shard?.index ?? 1))
    }

    /// Opens (creating it and its folder when missing) the report for appending.
    init(path: String, shard: Shard?) throws {
        self.path = path
        self.shard = shard?.text ?? "1/1"
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try makeDirectory(String(path[..<slash])) }
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw Failure(message: "\(path): cannot open the report: \(String(cString: strerror(errno)))", status: Status.failure)
        }
        self.fd = fd
        // A line cut short (a full disk, a killed writer) is ended, so the next line stands alone.
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(st.st_size - 1)) == 1, last != UInt8(ascii: "\n") {
                _ = write(fd, "\n", 1)
            }
        }
    }

    deinit { close(fd) }

    /// Appends the line for one finished input.
    func record(input: String, output: String, outcome: Outcome, error: String?, seconds: Double) {
        lock.lock()
        defer { lock.unlock() }
        var line = JSONLine()
        line.add("input", input)
        line.add("output", output)
        line.add("status", outcome.rawValue)
        line.add("error", error)
        line.addRaw("seconds", JSONWriter.number((seconds * 1000).rounded() / 1000))
        line.add("shard", shard)
        line.add("time", Self.utcNow())
        let bytes = Array((line.text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if failure == nil { failure = String(cString: strerror(errno)) }
                return
            }
            // A short write (a full disk) finishes the line as well as it can.
            offset += n
        }
    }

    /// Why a line could not be written, if one could not.
    var writeFailure: String? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    /// "2025-01-31T12:00:00.123Z".
    static func utcNow() -> String {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        var seconds = t.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let millis = Int(t.tv_nsec / 1_000_000)
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }
}
