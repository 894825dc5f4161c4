/// A source that one decode serves twice: the grey decision's first pass reads through it,
/// and it keeps the rows read (as the decoder gives them: for a grey input, one or two
/// samples a pixel) up to `limit` bytes. `replay()` then hands those rows out again and reads
/// on from the decoder where the first pass stopped, which it did at the first pixel out of
/// grey, or at the end. Past `limit` it keeps nothing, and the image is opened again.
/// (Used from one thread at a time, as any source is.)
final class RecordingSource: PixelSource {
    private let source: PixelSource
    private let limit: Int
    private var recorded: [UInt8] = []
    /// Rows read from the decoder.
    private var rowsRead = 0
    private var overflowed = false
    private var replaying = false
    /// Rows handed out by the replay.
    private var rowsReplayed = 0
    private var finished = false

    init(_ source: PixelSource, limit: Int) {
        self.source = source
        self.limit = limit
    }

    var name: String { source.name }
    var info: ImageInfo { source.info }
    var warnings: [String] { source.warnings }
    var notices: [String] { source.notices }

    /// For the second pass: the recorded rows, then the decoder's; nil when the first pass
    /// read more than the limit.
    func replay() -> RecordingSource? {
        guard !overflowed else { return nil }
        replaying = true
        return self
    }

    func read(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        let rowBytes = info.rowBytes
        var done = 0
        if replaying {
            done = min(rows, rowsRead - rowsReplayed)
            recorded.withUnsafeBytes { p in
                for r in 0..<done {
                    (destination + r * stride).copyMemory(from: p.baseAddress! + (rowsReplayed + r) * rowBytes,
                                                          byteCount: rowBytes)
                }
            }
            rowsReplayed += done
            if done == rows { return }
        }
        let count = rows - done
        try source.read(into: destination + done * stride, stride: stride, rows: count)
        rowsRead += count
        if replaying {
            rowsReplayed += count
            return
        }
        guard !overflowed else { return }
        guard rowsRead * rowBytes <= limit else {
            overflowed = true
            recorded = []
            return
        }
        if recorded.isEmpty { recorded.reserveCapacity(min(limit, info.height * rowBytes)) }
        for r in 0..<count {
            recorded.append(contentsOf: UnsafeRawBufferPointer(start: destination + r * stride, count: rowBytes))
        }
    }

    /// The decoder's own end (its checks of what follows the pixels), once.
    func finish() throws {
        guard !finished else { return }
        finished = true
        try source.finish()
    }
}
