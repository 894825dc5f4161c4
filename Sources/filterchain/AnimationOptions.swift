import ArgumentParser
import FilterChain

/// How animations (GIF, WebP) go through a chain: which frames, how they play.
struct AnimationOptions: ParsableArguments {
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

    /// The frame a still output of an animation takes when none was named: the first taken.
    var firstFrame: Int {
        switch selection {
        case .all, .first: 0
        case .one(let n): n
        case .range(let a, _): a
        }
    }
}
