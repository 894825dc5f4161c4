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
    /// A value with expressions (`"=2 * strength"`, or `[1, "=strength", 0]` in a colour)
    /// makes the parameter computed: each expression is parsed against the chain's variables
    /// (and width, height, sourceWidth, sourceHeight), the rest of the value checked.
    public mutating func setParameter(at index: Int, _ name: String, to value: JSONNode, file: String) throws(ChainError) {
        guard steps.indices.contains(index) else {
            throw ChainError(file: file, path: "filters[\(index)]", problem: .notAllowed(
                "index \(index)", allowed: steps.isEmpty ? "none (the chain is empty)" : "0...\(steps.count - 1)", suggestion: nil))
        }
        let step = steps[index]
        let base = "filters[\(index)].parameters"
        let sites: [(name: String, sites: [(indices: [Int], node: JSONNode)])]
        do throws(ParameterError) { sites = try type(of: step.filter).expressionSites(JSONNode(.object([(name, value)]))) } catch {
            throw ChainError(file: file, path: base + error.subpath, problem: error.problem)
        }
        guard let found = sites.first else {
            do throws(ParameterError) {
                steps[index].filter = try step.filter.setting(name, to: value, context: ParameterContext(chainFile: file))
                steps[index].computed[name] = nil
            } catch {
                throw ChainError(file: file, path: base + error.subpath, problem: error.problem)
            }
            return
        }
        let names = variables.map(\.name) + NumberExpression.builtinNames
        var expressions: [(indices: [Int], expression: NumberExpression)] = []
        for (indices, node) in found.sites {
            guard case .string(let text) = node.value else { continue }
            do throws(ExpressionError) { expressions.append((indices, try NumberExpression(text, names: names))) } catch {
                throw ChainError(file: file, path: base + "." + name + indexPath(indices), problem: .expression(text, error))
            }
        }
        let computed = ComputedParameter(json: value, expressions: expressions)
        // The rest of the value, checked with each expression standing for a value its kind allows.
        let standIn = type(of: step.filter).kind(of: name)?.standIn ?? 0
        do throws(ParameterError) {
            _ = try step.filter.setting(name, to: computed.substituted(expressions.map { _ in standIn }),
                                        context: ParameterContext(chainFile: file))
        } catch {
            throw ChainError(file: file, path: base + error.subpath, problem: error.problem)
        }
        steps[index].computed[name] = computed
    }

    /// Checks the rules across the parameters of the step at `index` (0-based), after its
    /// parameters were set one by one. With computed parameters, what can be known without
    /// an image is checked (`checkExpressions`); the rest waits for an image's size.
    public func checkStep(at index: Int, file: String) throws(ChainError) {
        guard steps[index].computed.isEmpty else { return try checkExpressions(file: file) }
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
        try save(to: path, keepingLayoutOf: nil)
    }

    /// As `save(to:)`, over a file that held `original`: its own formatting kept where only
    /// values changed or members were added (`text(keepingLayoutOf:file:)`), else the standard
    /// form.
    public func save(to path: String, keepingLayoutOf original: [UInt8]?) throws(ChainError) {
        let bytes = Array((original.map { text(keepingLayoutOf: $0, file: path) } ?? jsonText).utf8)
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
