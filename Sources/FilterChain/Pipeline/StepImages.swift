/// A place in a chain to take the image from: a position (`2`; 0 is the input), the end of
/// the chain (`.final`), or a step by name, id, id prefix or type (`"blur"`), as
/// `StepReference` reads it. Integer and string literals make one.
public enum StepPosition: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
                          CustomStringConvertible {
    /// After this many steps: 0 is the decoded input.
    case position(Int)
    /// After every step.
    case final
    /// A step as `StepReference` names it.
    case step(StepReference)

    public init(integerLiteral value: Int) { self = .position(value) }
    public init(stringLiteral value: String) { self = .step(StepReference(value)) }

    /// The position in `chain` (0...steps.count); throws for a name that names no step, and
    /// `RenderError.noSuchStep` for a position outside the chain.
    public func resolve(in chain: Chain) throws -> Int {
        switch self {
        case .position(let n):
            guard (0...chain.steps.count).contains(n) else { throw RenderError(.noSuchStep(n, count: chain.steps.count)) }
            return n
        case .final: return chain.steps.count
        case .step(let reference): return try reference.resolve(in: chain)
        }
    }

    public var description: String {
        switch self {
        case .position(let n): String(n)
        case .final: "final"
        case .step(let reference): reference.text
        }
    }
}

/// Images of one evaluation of a chain, kept in memory: the final image and those after the
/// steps asked for (`Renderer.images`).
public struct StepImages: Sendable {
    /// The chain they come from (names and positions are looked up in it).
    public let chain: Chain
    /// The positions asked for, in order (0 is the input, n the image after step n).
    public let positions: [Int]
    /// The image at each of `positions`.
    public let images: [RasterImage]
    /// The image after the whole chain.
    public let final: RasterImage
    /// What was read.
    public let info: ImageInfo
    /// Things that could not be kept, and harmless damage to the input (as `RenderResult`).
    public let notes: [String]

    /// The image at `position`, which must have been asked for (or be `.final`): asking for
    /// one that was not is a programmer's mistake.
    public subscript(_ position: StepPosition) -> RasterImage {
        if case .final = position { return final }
        guard let n = try? position.resolve(in: chain), let k = positions.firstIndex(of: n) else {
            preconditionFailure("StepImages: the image at \(position) was not asked for; asked: \(positions)")
        }
        return images[k]
    }

    /// The image at `position`, or nil when it was not asked for or names no step.
    public func image(at position: StepPosition) -> RasterImage? {
        if case .final = position { return final }
        guard let n = try? position.resolve(in: chain), let k = positions.firstIndex(of: n) else { return nil }
        return images[k]
    }
}
