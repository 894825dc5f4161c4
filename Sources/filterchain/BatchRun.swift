import FilterChain
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Many inputs into one folder: names checked before any work, images in parallel on one
/// shared renderer, each failure reported as it happens, a summary at the end.
struct BatchRun {
    let chainPath: String
    let chain: Chain
    let paths: [String]
    let options: BatchOptions
    /// --shard and --report.
    let sharding: ShardOptions
    let codec: CodecOptions
    /// How animations go (GIF and WebP inputs to outputs that hold them: every frame).
    var animation = AnimationOptions()
    /// The renderer's threads (--threads), shared by every image in flight.
    let threads: Int
    /// Each input is replaced by its result, in its own format.
    var inPlace = false
    /// Runs once the inputs and outputs are checked, before any image is read (writes
    /// --save-chain).
    var beforeWork: ([String]) throws -> Void = { _ in }
    /// The chain for one input, when it depends on the image (`thumbnail --crop attention`
    /// looks at it first); nil: `chain` for all.
    var chainForInput: (@Sendable (String, Renderer) throws -> Chain)? = nil
    /// Put before each output's name (`thumbnail` without -o: tn_photo.jpg beside photo.jpg).
    var prefix = ""
    /// The extension of outputs whose input's format cannot be written, without --format
    /// (nil: such an input is a usage error).
    var fallbackExtension: String? = nil
    /// How the command names the output folder, in messages.
    var outputOption = "--output-dir"
    /// --strip keeps an HDR gain map (`thumbnail`: metadata out, HDR kept).
    var stripKeepsGainMap = false

    struct Item {
        var input: String
        var output: String
        /// The format the output is written in; nil: from its name or --format.
        var format: ImageFormat? = nil
    }

    func inputs() throws -> [String] {
        var list = paths
        if let filesFrom = options.filesFrom { list += try Self.readList(filesFrom) }
        if list.isEmpty { throw Failure.usage("no inputs") }
        if list.contains("-") {
            throw Failure.usage("-: standard input works for one image, not with " + (inPlace ? "--in-place" : "--output-dir"))
        }
        for input in list { try refuseFolder(input, outputOption: outputOption) }
        return list
    }

    /// The input paths in a --files-from list, one a line ("-": standard input); blank lines
    /// are skipped.
    static func readList(_ path: String) throws -> [String] {
        let text: String
        if path == "-" {
            text = String(decoding: readAll(STDIN_FILENO), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Failure.usage("\(path): cannot read the list of inputs")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        return text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
    }

    /// Output paths for every input, in `folder` (nil: each beside its input); clashes are an
    /// error before any work starts.
    func plan(_ inputs: [String], into folder: String?) throws -> [Item] {
        var items: [Item] = []
        var claimed: [String: String] = [:]
        for input in inputs {
            let base = input.split(separator: "/").last.map(String.init) ?? input
            let dot = base.lastIndex(of: ".")
            let stem = dot.map { String(base[..<$0]) } ?? base
            let inputExtension = dot.map { String(base[base.index(after: $0)...]) } ?? ""
            let ext: String
            if let given = codec.format, let format = codec.imageFormat {
                // An input whose extension already names the format keeps it (rocket.jpg
                // with --format jpeg stays rocket.jpg); others get the name given.
                ext = ImageFormat(pathExtension: inputExtension) == format ? inputExtension : given.lowercased()
            } else if let fallbackExtension, ImageFormat(pathExtension: inputExtension)?.declaration.writes != true {
                ext = fallbackExtension
            } else {
                guard ImageFormat(pathExtension: inputExtension)?.declaration.writes == true else {
                    let known = CodecRegistry.writable.flatMap(\.extensions).map { "." + $0 }
                    throw Failure.usage("\(input): cannot name the output after an input without a \(listText(known, and: "or")) extension; use --format")
                }
                ext = inputExtension
            }
            let name = prefix + stem + options.suffix + "." + ext
            let output = folder.map { joinPath($0, name) } ?? Self.folder(of: input).appendingPathName(name)
            if let other = claimed[output.lowercased()] {
                throw Failure.usage("\(input) and \(other) would both be written to \(output); rename one, or use --suffix")
            }
            claimed[output.lowercased()] = input
            _ = try codec.destination(output)   // a format it can be written in, which takes the options given
            items.append(Item(input: input, output: output))
        }
        let guardInputs = InputGuard(inputs: inputs)
        for item in items { try guardInputs.check(item.output) }
        return items
    }

    /// The folder a path is in: "" for a bare name, "/" for one at the root.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// In place: every input is its own output (the file a symlink names, not the link),
    /// written in the format its bytes are in.
    func planInPlace(_ inputs: [String]) throws -> [Item] {
        var seen: [FileIdentity: String] = [:]
        return try inputs.map { input in
            if let id = FileIdentity(input) {
                if let other = seen[id] { throw Failure.usage("\(input) and \(other) are the same file; give it once") }
                seen[id] = input
            }
            let format = sniffedFormat(input)
            // Each file keeps its format: the options given must fit every one of them.
            if let format, let problem = codec.problem(with: format) { throw Failure.usage("\(input): \(problem)") }
            return Item(input: input, output: resolvedPath(input), format: format)
        }
    }

    func run() throws {
        let shard = try sharding.resolvedShard()
        let inputs = try inputs()
        var planned = try inPlace ? planInPlace(inputs) : plan(inputs, into: options.outputDir)
        if let shard {
            planned = planned.enumerated().filter { shard.contains(position: $0.offset) }.map(\.element)
            if let origin = shard.origin, !options.quiet { Console.note("shard \(shard.text) (\(origin)): \(planned.count) of \(inputs.count) inputs") }
        }
        let items = planned
        try beforeWork(inputs)
        if let folder = options.outputDir { try makeDirectory(folder) }
        let report = try sharding.report.map { try BatchReport(path: BatchReport.path($0, shard: shard), shard: shard) }
        // The job threads only read headers and hand strips to the renderer's pool, whose
        // `threads` threads do the pixel work for every image in flight: more jobs than
        // threads adds images in memory, not threads working, so the default is one each.
        let jobs = max(1, min(options.jobs ?? threads, max(1, items.count)))
        let renderer = Renderer(threads: threads)
        let state = BatchState(total: items.count, showProgress: Console.stderrIsTerminal && !options.quiet)
        var encodeOptions = codec.encodeOptions
        encodeOptions.stripKeepsGainMap = stripKeepsGainMap
        let encode = encodeOptions
        let decode = codec.decodeOptions
        let sharedChain = self.chain
        let chainForInput = self.chainForInput
        let animation = self.animation
        let json = options.json
        let skipExisting = options.skipExisting
        runThreads(jobs, stackSize: 1 << 20) {
                while !Signals.cancel.isCancelled, let index = state.next() {
                    let item = items[index]
                    let started = now()
                    var line = JSONLine()
                    line.add("input", item.input)
                    line.add("output", item.output)
                    if skipExisting && fileExists(item.output) {
                        report?.record(input: item.input, output: item.output, outcome: .skipped, error: nil, seconds: now() - started)
                        state.finished(.skipped)
                        if json {
                            line.add("status", "skipped")
                            Console.output(line.text)
                        }
                        continue
                    }
                    do {
                        let chain = try chainForInput?(item.input, renderer) ?? sharedChain
                        var encode = encode
                        if let format = item.format { encode.format = format }
                        let result = try animation.render(renderer, chain: chain, input: item.input, decode: decode,
                                                          outputs: [RenderOutput(step: chain.steps.count, .file(.file(item.output), encode))],
                                                          formats: [try encode.resolvedFormat(for: .file(item.output))], order: index)
                        if decode.lenient { for warning in result.warnings { Console.warning(about: item.input, warning) } }
                        for note in result.notes { Console.warning(about: item.input, note) }
                        report?.record(input: item.input, output: item.output, outcome: .done, error: nil, seconds: now() - started)
                        state.finished(.written)
                        BatchRun.addWritten(result, chain: chain, encode: encode, destination: .file(item.output), to: &line)
                    } catch is RenderCancelled {
                        state.finished(.cancelled)
                        continue
                    } catch {
                        let message = describe(error)
                        report?.record(input: item.input, output: item.output, outcome: .failed, error: message, seconds: now() - started)
                        state.finished(.failed)
                        Console.error(message)
                        line.add("status", "failed")
                        line.add("error", message)
                        line.add("width", nil as Int?)
                        line.add("height", nil as Int?)
                    }
                    line.add("milliseconds", Int(((now() - started) * 1000).rounded()))
                    if json { Console.output(line.text) }
                }
        }
        Console.endProgress()
        let counts = state.counts
        if !options.quiet {
            var summary = "\(counts.written) written, \(counts.failed) failed"
            if counts.skipped > 0 { summary += ", \(counts.skipped) skipped" }
            if Signals.cancel.isCancelled { summary += ", interrupted with \(items.count - counts.written - counts.failed - counts.skipped) not done" }
            Console.note(summary)
        }
        if Signals.cancel.isCancelled { throw Failure(message: "interrupted", status: Status.interrupted) }
        if let report, let problem = report.writeFailure {
            throw Failure(message: "\(report.path): cannot write the report: \(problem)", status: Status.failure)
        }
        if counts.failed > 0 { throw ExitCodeFailure(status: Status.failure) }
    }
}

extension String {
    /// This folder path (empty: the working directory) joined with a file name.
    func appendingPathName(_ name: String) -> String { isEmpty ? name : joinPath(self, name) }
}

/// Ends the command with a status after its errors were already reported.
struct ExitCodeFailure: Error {
    var status: Int32
}

/// The batch's shared bookkeeping. (@unchecked Sendable: its mutable state is guarded by `lock`;
/// `counts` is read without it only after the batch's threads have been joined.)
final class BatchState: @unchecked Sendable {
    enum Outcome { case written, failed, skipped, cancelled }

    private let lock = Lock()
    private var nextIndex = 0
    private let total: Int
    private(set) var counts = (written: 0, failed: 0, skipped: 0)
    private var done = 0
    private let started = now()
    private let showProgress: Bool

    init(total: Int, showProgress: Bool) {
        self.total = total
        self.showProgress = showProgress
    }

    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard nextIndex < total else { return nil }
        nextIndex += 1
        return nextIndex - 1
    }

    func finished(_ outcome: Outcome) {
        lock.lock()
        switch outcome {
        case .written: counts.written += 1
        case .failed: counts.failed += 1
        case .skipped: counts.skipped += 1
        case .cancelled: break
        }
        done += 1
        let line = progressLine()
        lock.unlock()
        if showProgress { Console.progress(line) }
    }

    private func progressLine() -> String {
        let elapsed = max(now() - started, 1e-6)
        let rate = Double(done) / elapsed
        let tenths = Int((rate * 10).rounded())
        var line = "\(done)/\(total) images, \(tenths / 10).\(tenths % 10)/s"
        if rate > 0 && done < total {
            let left = Int((Double(total - done) / rate).rounded())
            let seconds = left % 60
            line += ", \(left / 60):\(seconds < 10 ? "0" : "")\(seconds) left"
        }
        return line
    }
}


extension BatchRun {
    /// A written image's fields of its JSON line (`--json`): status, size, the values its
    /// variables and expressions took, the format and options it was written with, and what
    /// became of an HDR gain map.
    static func addWritten(_ result: RenderResult, chain: Chain, encode: EncodeOptions, destination: ImageDestination,
                           to line: inout JSONLine) {
        line.add("status", "written")
        line.add("error", nil as String?)
        line.add("width", result.sizes[0].width)
        line.add("height", result.sizes[0].height)
        if chain.usesExpressions {
            // The values this image's variables and expressions took.
            let values = result.values.jsonNode
            line.addRaw("variables", JSONWriter.compact(values.member("variables")!))
            line.addRaw("parameters", JSONWriter.compact(values.member("parameters")!))
        }
        if let format = try? encode.resolvedFormat(for: destination) {
            line.add("format", format.id)
            let used = encode.settingsUsed(by: format, source: result.info.metadata)
            if let quality = used.first(where: { $0.name == "quality" }) { line.add("quality", quality.value.integer) }
            line.addRaw("options", JSONWriter.compact(JSONNode(.object(used.map { ($0.name, $0.value.jsonNode) }))))
        }
        // What became of an HDR source's gain map: "kept" or "dropped"; null for an SDR source.
        line.add("gainMap", result.gainMaps.first.flatMap { $0?.rawValue })
        line.add("hdr", result.hdr.first.flatMap { $0?.transfer.rawValue })
    }
}
