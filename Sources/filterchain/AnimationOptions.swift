import ArgumentParser
import FilterChain

/// How animations (GIF, WebP) go through a chain: which frames, how they play.
struct AnimationOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp("Frames of an animation to take: all, first, N or N-M (from 0). Default: all where the output holds an animation (GIF, WebP), first where it does not.", valueName: "all|first|N|N-M"))
    var frames: String?

    @Option(help: ArgumentHelp("How many times the output animation plays (0: forever; default: the input's).", valueName: "n"))
    var loop: Int?

    @Option(help: ArgumentHelp("Every frame's delay in milliseconds (default: each frame's own).", valueName: "ms"))
    var delay: Int?

    @Option(name: .customLong("max-frames"), help: ArgumentHelp("Refuse animations of more frames, before decoding any (0: no limit).", valueName: "n"))
    var maxFrames = 10_000

    func validate() throws {
        if let frames { do { _ = try FrameSelection(parsing: frames) } catch { throw ValidationError(error.message) } }
        if let loop, !(0...65535).contains(loop) { throw ValidationError("--loop \(loop): 0 (forever) to 65535") }
        if let delay, !(0...655_350).contains(delay) { throw ValidationError("--delay \(delay): 0 to 655350 milliseconds") }
        if maxFrames < 0 { throw ValidationError("--max-frames \(maxFrames): 0 (no limit) or more") }
    }

    var selection: FrameSelection { frames.flatMap { try? FrameSelection(parsing: $0) } ?? .all }

    /// Whether `input` goes frame by frame to outputs of `formats`: when frames were asked
    /// for, or an output holds an animation and the input may be one (its format reads
    /// animations; standard input cannot be looked at first).
    func goesFrameByFrame(input: String, formats: [ImageFormat], frameAsked: Bool) -> Bool {
        if frames != nil || frameAsked { return true }
        guard formats.contains(where: { $0.declaration.writesAnimations }) else { return false }
        return input == "-" || AnimationReader.mayBeAnimation(.file(input))
    }

    /// Renders `input` to `outputs` (of `formats`): frame by frame when it goes so (the
    /// first output every frame taken; a second, a preview, `previewFrame`, else every frame
    /// where its format holds an animation, else the first taken), else as a still.
    func render(_ renderer: Renderer, chain: Chain, input: String, decode: DecodeOptions, outputs: [RenderOutput],
                formats: [ImageFormat], previewFrame: Int? = nil, order: Int = 0) throws -> RenderResult {
        let source: ImageSource = input == "-" ? .standardInput : .file(input)
        guard goesFrameByFrame(input: input, formats: formats, frameAsked: previewFrame != nil) else {
            return try renderer.render(chain, source: source, decode: decode, outputs: outputs, cancel: Signals.cancel, order: order)
        }
        let frameOutputs = outputs.enumerated().map { k, output in
            AnimationOutput(step: output.step, output.target,
                            frame: k == 0 ? nil : previewFrame ?? (formats[k].declaration.writesAnimations ? nil : firstFrame))
        }
        let frames = try renderer.render(chain, animation: source, decode: decode, outputs: frameOutputs, frames: selection,
                                         maxFrames: maxFrames, loopCount: loop, delay: delay, cancel: Signals.cancel)
        return RenderResult(info: frames.info, images: frames.images.map(\.first), sizes: frames.sizes,
                            notes: frames.notes, warnings: frames.warnings, values: frames.values)
    }

    /// The frame a still output of an animation takes when none was named: the first taken.
    var firstFrame: Int {
        switch selection {
        case .all, .first: 0
        case .one(let n): n
        case .range(let a, _): a
        }
    }
}
