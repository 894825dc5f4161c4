extension Filter {
    /// Checks the values as a chain file's are checked (ranges, finite numbers, curve
    /// points), with the same messages: the filter is encoded to JSON and decoded back
    /// through its declaration, so every check a chain file gets runs here too.
    public func validate() throws(ParameterError) {
        // Files (a lut's .cube) were read when the filter got them; their paths are relative
        // to a chain file's folder that is not known here, so they are not read again.
        _ = try Self.declaration.decode(Self.declaration.encode(self), context: ParameterContext(readsFiles: false))
    }

    /// Whether `validate()` passes. Renders refuse invalid values before asking for an
    /// operation; an operation asked for directly with invalid values is `.identity`
    /// rather than a trap.
    public var isValid: Bool { (try? validate()) != nil }
}

extension Chain {
    /// Checks every step's values as a chain file's are checked; the error names the step
    /// by its chain-file path (`filters[2].parameters.sigma`) under the name `file`.
    /// Renders call this, so values set in code are refused just like values in a file.
    public func validate(file: String = "chain") throws(ChainError) {
        for (i, step) in steps.enumerated() {
            do throws(ParameterError) { try step.filter.validate() } catch {
                let line = error.node.line > 0 ? error.node.line : nil
                throw ChainError(file: file, path: "filters[\(i)].parameters" + error.subpath,
                                 line: line, column: line == nil ? nil : error.node.column, problem: error.problem)
            }
        }
    }
}
