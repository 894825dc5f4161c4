#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which frames of an animation a render takes: `all`, `first`, frame `N` or frames `N-M`
/// (from 0, both ends included).
public enum FrameSelection: Sendable, Hashable, CustomStringConvertible {
    case all
    case first
    case one(Int)
    case range(Int, Int)

    /// "all", "first", "3" or "2-10".
    public init(parsing text: String) throws(RenderError) {
        let t = text.trimmingWhitespace
        if t == "all" { self = .all; return }
        if t == "first" { self = .first; return }
        let parts = t.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 1, let n = Int(parts[0]), n >= 0 { self = .one(n); return }
        if parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, b >= a { self = .range(a, b); return }
        throw RenderError(.badOption("frames '\(text)': all, first, N or N-M (from 0, N <= M)"))
    }

    public var description: String {
        switch self {
        case .all: "all"
        case .first: "first"
        case .one(let n): "\(n)"
        case .range(let a, let b): "\(a)-\(b)"
        }
    }

    /// The frames taken of an animation of `count` frames; an error naming `file` when the
    /// selection reaches past its last.
    public func frames(of count: Int, file: String) throws(RenderError) -> ClosedRange<Int> {
        let range: ClosedRange<Int> = switch self {
        case .all: 0...(count - 1)
        case .first: 0...0
        case .one(let n): n...n
        case .range(let a, let b): a...b
        }
        guard range.upperBound < count else {
            let what = range.count == 1 ? "frame \(range.lowerBound) is" : "frames \(self) reach"
            throw RenderError(.badOption("\(what) past the last: the animation has \(count) frame\(count == 1 ? "" : "s") (0-\(count - 1))"), file: file)
        }
        return range
    }

    /// True when it takes one frame whatever the animation.
    public var takesOneFrame: Bool {
        switch self {
        case .all: false
        case .first, .one: true
        case .range(let a, let b): a == b
        }
    }
}

/// An output of a render of an animation: the image after `step` steps, of every frame taken
/// (`frame` nil: an animation, for a format that writes them; a list of images in memory) or
/// of frame `frame` alone (a still).
public struct AnimationOutput: Sendable {
    public var step: Int
    public var target: RenderOutput.Target
    public var frame: Int?

    public init(step: Int, _ target: RenderOutput.Target, frame: Int? = nil) {
        self.step = step
        self.target = target
        self.frame = frame
    }
}

/// What a render of an animation did.
public struct AnimationResult: Sendable {
    /// The canvas as decoded.
    public var info: ImageInfo
    /// The source's frames, delays and loop count.
    public var source: AnimationInfo
    /// The frames taken, and the animation as written: their delays (after `delay`), the loop
    /// count (after `loopCount`).
    public var frames: ClosedRange<Int>
    public var written: AnimationInfo
    /// For each output: its frames in memory (one for a still), empty for a file.
    public var images: [[RasterImage]]
    /// For each output: the size of its frames.
    public var sizes: [ImageSize]
    /// As a still render's, each said once.
    public var notes: [String]
    public var warnings: [String]
    /// What the chain's variables and expressions took for the first frame taken.
    public var values: ChainValues
}

extension Renderer {
    /// Reads an animation (GIF, WebP) frame by frame, runs `chain` on every frame taken and
    /// writes `outputs`: animations to formats that hold them, stills of one frame, frames in
    /// memory. The chain sees `frame`, `frames` and `time` in its expressions (the frame's
    /// place in the source). Memory holds a frame or two at a time, not the animation. On any
    /// failure nothing is written and no existing file is touched. `loopCount` and `delay`
    /// (milliseconds) replace the source's; `maxFrames` (0: none) refuses a longer animation
    /// before any frame is decoded.
    public func render(_ chain: Chain, animation source: ImageSource, decode: DecodeOptions = .init(),
                       outputs: [AnimationOutput], frames selection: FrameSelection = .all, maxFrames: Int = 10_000,
                       loopCount: Int? = nil, delay: Int? = nil, cancel: CancellationFlag? = nil,
                       variables: [String: Double] = [:]) throws -> AnimationResult {
        if let loopCount, !(0...65535).contains(loopCount) {
            throw RenderError(.badOption("--loop \(loopCount): 0 (forever) to 65535 plays"))
        }
        if let delay, !(0...655_350).contains(delay) {
            throw RenderError(.badOption("--delay \(delay): 0 to 655350 milliseconds"))
        }
        var source = source
        if source == .standardInput { source = .bytes(try OpenedInput.readStandardInput(), name: "-") }
        let reader = try AnimationReader(source, options: decode, maxFrames: maxFrames)
        let count = reader.animation.frameCount
        let taken = try selection.frames(of: count, file: reader.name)
        if !reader.isAnimation {
            // A still (of a format without animations): the still render, streamed.
            for output in outputs where (output.frame ?? 0) != 0 {
                throw RenderError(.badOption("frame \(output.frame!): a still image has frame 0 only"), file: reader.name)
            }
            let result = try render(chain, source: source, decode: decode, outputs: outputs.map { RenderOutput(step: $0.step, $0.target) },
                                    cancel: cancel, variables: variables)
            return AnimationResult(info: result.info, source: reader.animation, frames: taken,
                                   written: AnimationInfo(delays: [delay ?? 0], loopCount: loopCount ?? 0),
                                   images: result.images.map { $0.map { [$0] } ?? [] }, sizes: result.sizes,
                                   notes: result.notes, warnings: result.warnings, values: result.values)
        }
        let chain = try chain.settingVariables(variables)
        for output in outputs {
            if let frame = output.frame, !taken.contains(frame) {
                throw RenderError(.badOption("frame \(frame) is not among the frames taken (\(selection))"), file: reader.name)
            }
        }
        // Animations go to their writers through slots; stills of one frame are encoded in
        // memory, and written when every frame has gone through.
        var slots: [Int: AnimationFrameSlot] = [:]
        var stills: [Int: (destination: ImageDestination, buffer: OutputBuffer, format: ImageFormat)] = [:]
        let loops = loopCount ?? reader.animation.loopCount
        for (k, output) in outputs.enumerated() {
            guard case .file(let destination, let options) = output.target else { continue }
            let format = try options.resolvedFormat(for: destination)
            if output.frame == nil && !(taken.count == 1 && !format.declaration.writesAnimations) {
                guard format.declaration.writesAnimations else {
                    let holding = CodecRegistry.writable.filter(\.writesAnimations).map(\.name)
                    throw RenderError(.badOption("\(format.name) holds no animation: take one frame (--frames), or write \(CodecRegistry.list(holding, and: "or"))"),
                                      file: destination.name)
                }
                var options = options
                options.format = format
                slots[k] = AnimationFrameSlot(destination, format: format, options: options, loopCount: loops)
            } else {
                stills[k] = (destination, OutputBuffer(name: destination.name), format)
            }
        }
        var images = Array(repeating: [RasterImage](), count: outputs.count)
        var sizes = Array(repeating: ImageSize(width: reader.info.width, height: reader.info.height), count: outputs.count)
        var notes: [String] = [], warnings: [String] = []
        var values = ChainValues()
        var delays: [Int] = []
        for note in reader.harmlessDamage where !notes.contains(note) { notes.append(note) }
        // On any failure the animations' temporary files go at once (a frame's sink may
        // outlive the render a while in the pool's hands; its writer must not).
        var finished = false
        defer { if !finished { for slot in slots.values { slot.abandon() } } }
        for index in 0...taken.upperBound {
            if cancel?.isCancelled == true { throw RenderCancelled() }
            let frame = try reader.nextFrame()
            guard index >= taken.lowerBound else { continue }
            var frameChain = chain
            frameChain.frame = FrameClock(frame: index, frames: count, time: reader.animation.time(ofFrame: index))
            let frameDelay = delay ?? reader.animation.delays[index]
            delays.append(frameDelay)
            var these: [RenderOutput] = []
            var which: [Int] = []
            for (k, output) in outputs.enumerated() {
                let still = stills[k] != nil || (slots[k] == nil && output.frame != nil)
                if still, index != (output.frame ?? taken.lowerBound) { continue }
                switch output.target {
                case .file(_, var options):
                    if let slot = slots[k] {
                        slot.delay = frameDelay
                        slot.frame = index
                        options.format = slot.format
                        these.append(RenderOutput(step: output.step, .file(.frame(slot), options)))
                    } else if let still = stills[k] {
                        options.format = still.format
                        these.append(RenderOutput(step: output.step, .file(.memory(still.buffer), options)))
                    }
                case .memory:
                    these.append(RenderOutput(step: output.step, output.target))
                }
                which.append(k)
            }
            let result: RenderResult
            do { result = try render(frameChain, image: frame, outputs: these, cancel: cancel, order: 0) } catch var error as RenderError {
                if error.file == nil { error.file = reader.name }
                throw error
            }
            if index == taken.lowerBound { values = result.values }
            for (j, k) in which.enumerated() {
                sizes[k] = result.sizes[j]
                if let image = result.images[j] { images[k].append(image) }
            }
            for note in result.notes where !notes.contains(note) { notes.append(note) }
            for warning in result.warnings where !warnings.contains(warning) { warnings.append(warning) }
        }
        // Every frame went through: the files appear, animations first.
        for k in slots.keys.sorted() {
            guard let writer = slots[k]!.writer else { continue }
            for note in writer.notes where !notes.contains(note) { notes.append(note) }
            try writer.finish()
            slots[k]!.release()
        }
        for k in stills.keys.sorted() {
            let still = stills[k]!
            let output = try OutputFile(still.destination)
            let bytes = still.buffer.bytes
            if !bytes.isEmpty, fwrite(bytes, 1, bytes.count, output.file) != bytes.count {
                throw output.writeError(String(cString: strerror(errno)))
            }
            try output.commit()
        }
        finished = true
        return AnimationResult(info: reader.info, source: reader.animation, frames: taken,
                               written: AnimationInfo(delays: delays, loopCount: loops), images: images, sizes: sizes,
                               notes: notes, warnings: warnings, values: values)
    }
}
