import FilterChain
import Foundation
import Synchronization

/// Export: the current chain rendered at full size to `--output`, in the background, with
/// its progress. The file appears whole when done, or not at all. (@unchecked Sendable: its
/// state, source and flag are guarded by `lock`.)
public final class ExportJob: @unchecked Sendable {
    public enum State: Sendable, Equatable {
        case idle
        case running
        case done
        case failed(String)
    }

    public let path: String
    /// How the export is written (`--hdr`, for one).
    public let options: EncodeOptions
    /// The source's HDR gain map, upright as the image is: rendered with it, so that the
    /// export keeps the HDR (an Ultra HDR JPEG, or `--hdr`'s rendition) as `apply` does.
    let gainMap: GainMapImage?
    private let lock = NSLock()
    private var state = State.idle
    private var source: CountingSource?
    private var flag: CancellationFlag?

    init(path: String, options: EncodeOptions = EncodeOptions(), gainMap: GainMapImage? = nil) {
        self.path = path
        self.options = options
        self.gainMap = gainMap
    }

    /// Starts a render unless one is running (409).
    func start(_ chain: Chain, image: RasterImage, renderer: Renderer) throws {
        var withMap = image
        withMap.metadata.gainMap = gainMap
        let counting = CountingSource(RasterSource(withMap, name: "<image>"))
        let cancel = CancellationFlag()
        lock.lock()
        defer { lock.unlock() }
        if state == .running { throw EditorError(status: 409, "\(path): an export is already running") }
        state = .running
        source = counting
        flag = cancel
        let output = RenderOutput(step: chain.steps.count, .file(.file(path), options))
        Thread.detachNewThread { [self] in
            run(chain, counting, output, renderer, cancel)
        }
    }

    private func run(_ chain: Chain, _ source: CountingSource, _ output: RenderOutput, _ renderer: Renderer,
                     _ cancel: CancellationFlag) {
        let outcome: State
        do {
            _ = try renderer.render(chain, pixels: source, outputs: [output], cancel: cancel)
            outcome = .done
        } catch {
            outcome = .failed("\(error)")
        }
        lock.withLock { state = outcome }
    }

    /// Stops a running export (its temporary file is removed; the destination is untouched).
    public func cancel() {
        lock.withLock { flag }?.cancel()
    }

    /// Waits until no export is running.
    public func waitUntilIdle() {
        while lock.withLock({ state == .running }) { usleep(10_000) }
    }

    /// `{"state": "running", "progress": 0.42, "output": "...", "error": null}`.
    public var statusJSON: JSONNode {
        let (state, source) = lock.withLock { (self.state, self.source) }
        let progress: Double = switch state {
        case .done: 1
        case .idle: 0
        default: source?.fraction ?? 0
        }
        let (name, error): (String, String?) = switch state {
        case .idle: ("idle", nil)
        case .running: ("running", nil)
        case .done: ("done", nil)
        case .failed(let why): ("failed", why)
        }
        return JSONNode(.object([
            ("state", JSONNode(.string(name))),
            ("progress", JSONNode(.number((progress * 1000).rounded() / 1000))),
            ("output", JSONNode(.string(path))),
            ("error", error.map { JSONNode(.string($0)) } ?? JSONNode(.null)),
        ]))
    }
}

/// A pixel source that counts the rows read from it, for a progress bar. (@unchecked Sendable:
/// the count is atomic; the source it wraps is read by one render, and `fraction` reads only
/// its `info`, a `let` of RasterSource.)
final class CountingSource: PixelSource, @unchecked Sendable {
    private let base: PixelSource
    private let rows = Atomic<Int>(0)

    init(_ base: PixelSource) { self.base = base }

    var name: String { base.name }
    var info: ImageInfo { base.info }
    var warnings: [String] { base.warnings }

    func read(into destination: UnsafeMutableRawPointer, stride: Int, rows count: Int) throws {
        try base.read(into: destination, stride: stride, rows: count)
        rows.add(count, ordering: .relaxed)
    }

    func finish() throws { try base.finish() }

    /// Rows read over the image's height.
    var fraction: Double {
        Double(rows.load(ordering: .relaxed)) / Double(max(1, info.height))
    }
}
