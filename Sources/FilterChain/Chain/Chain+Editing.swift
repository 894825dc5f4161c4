#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Chain {
    /// A parameter value as a script writes it after `name=`: JSON (`2`, `[[0,0],[1,1]]`,
    /// `"linear"`), or a bare word taken as a string (`linear`).
    public static func parameterValue(_ text: String) -> JSONNode {
        if let node = try? JSONParser.parse(Array(text.utf8)) { return node }
        return JSONNode(.string(text))
    }

    /// Sets one parameter of the step at `index` (0-based), validated as a chain file's value.
    public mutating func setParameter(at index: Int, _ name: String, to value: JSONNode, file: String) throws(ChainError) {
        guard steps.indices.contains(index) else {
            throw ChainError(file: file, path: "filters[\(index)]", problem: .notAllowed(
                "index \(index)", allowed: steps.isEmpty ? "none (the chain is empty)" : "0...\(steps.count - 1)", suggestion: nil))
        }
        let step = steps[index]
        do throws(ParameterError) {
            steps[index].filter = try step.filter.setting(name, to: value, context: ParameterContext(chainFile: file))
        } catch {
            throw ChainError(file: file, path: "filters[\(index)].parameters" + error.subpath,
                             problem: error.problem)
        }
    }

    /// Checks the rules across the parameters of the step at `index` (0-based), after its
    /// parameters were set one by one.
    public func checkStep(at index: Int, file: String) throws(ChainError) {
        do throws(ParameterError) { try steps[index].filter.checkCombination() } catch {
            throw ChainError(file: file, path: "filters[\(index)].parameters" + error.subpath, problem: error.problem)
        }
    }

    /// A new step of filter type `type` with default parameters.
    public static func makeStep(type: String, name: String?, file: String) throws(ChainError) -> Step {
        guard let filterType = FilterRegistry.type(named: type) else {
            let known = FilterRegistry.names
            throw ChainError(file: file, problem: .unknownFilterType(type, suggestion: FilterRegistry.closestName(to: type), known: known))
        }
        return Step(name: name, filter: filterType.init())
    }

    /// Writes the chain as JSON, replacing `path` atomically: the text goes to a temporary
    /// file beside it, which is renamed over the old file only once completely written.
    /// The text is parsed back first, so an invalid chain is never written.
    public func save(to path: String) throws(ChainError) {
        let bytes = Array(jsonText.utf8)
        _ = try Chain.parse(bytes, file: path)
        do {
            // The same atomic output as images (temporary file, permissions kept, removed on
            // failure or interruption), synced to disk before the rename.
            let output = try OutputFile(.file(path))
            if fwrite(bytes, 1, bytes.count, output.file) != bytes.count { throw output.writeError("write error") }
            try output.commit(sync: true)
        } catch {
            let why: String = switch (error as? CodecError)?.reason {
            case .writeFailed(let why): why
            case .some(let reason): CodecError(path, reason).message
            case nil: "\(error)"
            }
            throw ChainError(file: path, problem: .unwritable(why))
        }
    }
}
