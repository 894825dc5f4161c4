extension Filter {
    /// Checks the values as a chain file's are checked (ranges, finite numbers, curve
    /// points), with the same messages and in the same order: each parameter's typed rules
    /// (the ones its file reader applies after the JSON types), then required parameters,
    /// then the rules across parameters.
    public func validate() throws(ParameterError) {
        // Files (a lut's .cube) were read when the filter got them: only their presence is checked.
        let d = Self.declaration
        try d.checkValues(self)
        try d.checkRequired(self)
        try d.checkCombination(self)
    }

    /// Whether `validate()` passes. Renders refuse invalid values before asking for an
    /// operation; an operation asked for directly with invalid values is `.identity`
    /// rather than a trap.
    public var isValid: Bool { (try? validate()) != nil }
}

extension Chain {
    /// Checks the chain as a chain file is checked: every image loaded, every step's values
    /// and mask, and the graph (references that point backwards, unique ids and names, no
    /// mask on a geometry step). The error names the place by its chain-file path
    /// (`filters[2].parameters.sigma`) under the name `file`. Renders call this, so values
    /// set in code are refused just like values in a file.
    public func validate(file: String = "chain") throws(ChainError) {
        for (i, image) in images.enumerated() where image.image == nil {
            throw ChainError(file: file, path: "images[\(i)].file", problem: .imageNotLoaded(file: image.file))
        }
        try validateVariables(file: file)
        let names = variables.map(\.name) + NumberExpression.builtinNames
        for (i, step) in steps.enumerated() {
            // A computed parameter holds its default until its value is known: the rules
            // across parameters are checked then (`resolved(sourceSize:)`).
            do throws(ParameterError) { try step.computed.isEmpty ? step.filter.validate() : step.filter.validateValues() } catch {
                throw ChainError(file: file, path: "filters[\(i)].parameters" + error.subpath,
                                 line: error.line, column: error.column, problem: error.problem)
            }
            for (parameter, c) in step.computed {
                for slot in c.expressions {
                    guard let unknown = slot.expression.names.first(where: { !names.contains($0) }) else { continue }
                    throw ChainError(file: file, path: "filters[\(i)].parameters.\(parameter)" + indexPath(slot.indices),
                                     problem: .unknownVariable(unknown, suggestion: closestMatch(unknown, in: names),
                                                               declared: variables.map(\.name)))
                }
            }
            guard let mask = step.mask else { continue }
            do throws(ParameterError) { _ = try Mask(json: mask.jsonNode) } catch {
                throw ChainError(file: file, path: "filters[\(i)].mask" + error.subpath,
                                 line: error.line, column: error.column, problem: error.problem)
            }
        }
        try checkGraph(file: file)
    }
}

extension Chain {
    /// Variable names valid, unique and each expression reading only the variables above it.
    func validateVariables(file: String) throws(ChainError) {
        for (k, variable) in variables.enumerated() {
            if let why = ChainVariable.problem(withName: variable.name) {
                throw ChainError(file: file, path: "variables[\(k)].name", problem: .variableName(variable.name, why: why))
            }
            if let first = variables.prefix(k).firstIndex(where: { $0.name == variable.name }) {
                throw ChainError(file: file, path: "variables[\(k)].name", problem: .duplicateVariable(variable.name, first: first))
            }
            if case .expression(let e) = variable.value,
               let unknown = e.names.first(where: { name in !variables.prefix(k).contains { $0.name == name } }) {
                throw ChainError(file: file, path: "variables[\(k)].value", problem: .unknownVariable(
                    unknown, suggestion: closestMatch(unknown, in: variables.prefix(k).map(\.name)), declared: variables.prefix(k).map(\.name)))
            }
        }
    }
}

extension ParameterError {
    /// Where the value was written, when it came from a file (nil for values set in code).
    var line: Int? { node.line > 0 ? node.line : nil }
    var column: Int? { line == nil ? nil : node.column }
}
