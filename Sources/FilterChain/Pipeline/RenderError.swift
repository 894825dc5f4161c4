/// Why a render, an image in memory or a writer refused its arguments: bad input a library
/// user can make in code (a step the chain does not have, a pixel buffer of the wrong size),
/// thrown instead of stopping the process.
public struct RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// An output asked for step `step`; positions run from 0 (the input) to `count`.
        case noSuchStep(Int, count: Int)
        /// Width or height is not 1 or more.
        case badSize(width: Int, height: Int)
        /// A pixel or sample buffer whose length does not match width x height x format.
        case wrongBufferSize(expected: Int, found: Int)
        /// Rows or an image that do not fit what a writer or reader was set up for.
        case mismatch(String)
        /// An option with a value outside what it allows.
        case badOption(String)
        /// Encode options that are each allowed but not together, for the output's format.
        case options(OptionProblem)
        /// A step cannot apply to the image as it stands (a crop reaching outside it).
        case stepFailed(position: Int, label: String, reason: String)
        /// An image of the chain was made without its pixels (`ChainImage.image` is nil).
        case imageNotLoaded(String)
        /// A colour conversion cannot be made (an output profile that cannot be used).
        case colour(String)
        /// The chain's expressions took, for this image, a value their parameter refuses (or
        /// could not be evaluated): the chain's error, with its file, path, line and column.
        case chainValue(ChainError)
    }

    /// The image it happened to, when there was one.
    public var file: String?
    public var reason: Reason

    public init(_ reason: Reason, file: String? = nil) {
        self.reason = reason
        self.file = file
    }

    public var description: String { (file.map { $0 + ": " } ?? "") + message }

    public var message: String {
        switch reason {
        case .stepFailed(let position, let label, let reason):
            "step \(position) (\(label)): \(reason)"
        case .noSuchStep(let step, let count):
            "no step \(step) in the chain: positions run from 0 (the input) to \(count)"
        case .badSize(let w, let h): "an image of \(w) x \(h) pixels: width and height must be 1 or more"
        case .wrongBufferSize(let expected, let found):
            "the buffer holds \(found) values; width x height x format needs \(expected)"
        case .mismatch(let what): what
        case .imageNotLoaded(let label):
            "the chain's image \(label) has no pixels: load the chain from its file, or set ChainImage.image"
        case .badOption(let what): what
        case .options(let problem): problem.description
        case .colour(let what): what
        case .chainValue(let error): error.description
        }
    }

    /// The element count width x height x perPixel, refusing sizes below 1 and overflow.
    static func elementCount(width: Int, height: Int, perPixel: Int) throws(RenderError) -> Int {
        guard width >= 1, height >= 1 else { throw RenderError(.badSize(width: width, height: height)) }
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (count, o2) = area.multipliedReportingOverflow(by: perPixel)
        guard !o1, !o2 else { throw RenderError(.badSize(width: width, height: height)) }
        return count
    }
}
