#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The colour space filters work in.
public enum WorkingSpace: String, Sendable, CaseIterable {
    /// Filters see the stored (sRGB-encoded) values.
    case srgb
    /// Colour is decoded with the sRGB transfer function before the first filter and
    /// encoded back for every image written.
    case linear
}

/// One step of a chain: a filter with its identity.
public struct Step: Sendable {
    /// A UUID, as written in the file; made once and never changed.
    public var id: String
    public var name: String?
    public var enabled: Bool
    public var filter: any Filter

    public init(id: String = UUID().uuidString, name: String? = nil, enabled: Bool = true, filter: any Filter) {
        self.id = id
        self.name = name
        self.enabled = enabled
        self.filter = filter
    }

    public var type: String { filter.type }
    /// The first 8 characters of the id.
    public var shortID: String { String(id.prefix(8)) }
    /// What listings call it: its name, else its type.
    public var label: String { name ?? type }
}

/// An ordered list of filters, as a chain file holds it (version 1).
public struct Chain: Sendable {
    public static let version = 1
    public var workingSpace: WorkingSpace
    public var steps: [Step]

    public init(workingSpace: WorkingSpace = .srgb, steps: [Step] = []) {
        self.workingSpace = workingSpace
        self.steps = steps
    }

    /// A chain of filters with fresh ids.
    public init(workingSpace: WorkingSpace = .srgb, _ filters: [any Filter]) {
        self.init(workingSpace: workingSpace, steps: filters.map { Step(filter: $0) })
    }

    /// The first step whose name an earlier step already has: (earlier index, its index).
    public var duplicateName: (first: Int, second: Int)? {
        var seen: [String: Int] = [:]
        for (i, step) in steps.enumerated() {
            guard let name = step.name else { continue }
            if let first = seen[name] { return (first, i) }
            seen[name] = i
        }
        return nil
    }

    /// Throws when two steps share a name (a name must pick one step), naming both.
    public func checkUniqueNames(file: String) throws(ChainError) {
        guard let (first, second) = duplicateName else { return }
        throw ChainError(file: file, path: "filters[\(second)].name",
                         problem: .duplicateName(steps[second].name ?? "", first: "filters[\(first)] (step \(first + 1); this is step \(second + 1))"))
    }

    /// The steps as far as position `position` (0 or less: none; past the end: all).
    public func prefix(through position: Int) -> Chain {
        Chain(workingSpace: workingSpace, steps: Array(steps.prefix(max(0, position))))
    }
}
