/// Editing a chain's variables, as `filterchain chain var` and the editor do. Every edit
/// leaves the chain as it was when it throws; the chain is checked as a file would be (names,
/// ranges, what the variables and the expressions that read no size take).
extension Chain {
    /// A variable's value as a script writes it: a number, or an expression (`=2 * gain`)
    /// over the variables above position `index`.
    public func variableValue(_ text: String, at index: Int, file: String) throws(ChainError) -> ChainVariable.Value {
        let path = "variables[\(index)].value"
        if NumberExpression.isExpression(text) {
            do throws(ExpressionError) {
                return .expression(try NumberExpression(text, names: variables.prefix(index).map(\.name),
                                                        laterNames: variables.dropFirst(index + 1).map(\.name),
                                                        reader: variables.indices.contains(index) ? variables[index].name : nil))
            } catch {
                throw ChainError(file: file, path: path, problem: .expression(text, error))
            }
        }
        guard let v = Double(text), v.isFinite else {
            throw ChainError(file: file, path: path, problem: .wrongType(expected: "a number, or an expression starting with '='", found: "'\(text)'"))
        }
        return .number(v)
    }

    /// Adds `variable` after the others (so its expression may read every one of them).
    public mutating func addVariable(_ variable: ChainVariable, file: String) throws(ChainError) {
        var copy = self
        copy.variables.append(variable)
        try copy.checkVariables(file: file)
        self = copy
    }

    /// Changes the variable called `name`: its value, and its range and help when given
    /// (`.some(nil)` removes a bound or the help).
    public mutating func setVariable(_ name: String, value: ChainVariable.Value?, minimum: Double?? = nil, maximum: Double?? = nil,
                                     help: String?? = nil, file: String) throws(ChainError) {
        let k = try variableIndex(name, file: file)
        var copy = self
        if let value { copy.variables[k].value = value }
        if let minimum { copy.variables[k].minimum = minimum }
        if let maximum { copy.variables[k].maximum = maximum }
        if let help { copy.variables[k].help = help }
        try copy.checkVariables(file: file)
        self = copy
    }

    /// Removes the variable called `name`; refused while a parameter or a variable reads it,
    /// naming them.
    public mutating func removeVariable(_ name: String, file: String) throws(ChainError) {
        let k = try variableIndex(name, file: file)
        let readers = readers(ofVariable: name)
        guard readers.isEmpty else {
            throw ChainError(file: file, path: "variables[\(k)]", problem: .referenced("the variable \(name)", readers: readers))
        }
        variables.remove(at: k)
    }

    /// The index of the variable called `name`, or an error listing the declared ones.
    public func variableIndex(_ name: String, file: String) throws(ChainError) -> Int {
        guard let k = variables.firstIndex(where: { $0.name == name }) else {
            let names = variables.map(\.name)
            throw ChainError(file: file, problem: .unknownVariable(name, suggestion: closestMatch(name, in: names), declared: names))
        }
        return k
    }

    /// Names, ranges (min <= max, a number value within), then the values.
    private func checkVariables(file: String) throws(ChainError) {
        try validateVariables(file: file)
        for (k, variable) in variables.enumerated() {
            if let lo = variable.minimum, let hi = variable.maximum, lo > hi {
                throw ChainError(file: file, path: "variables[\(k)].max", problem: .combination(
                    "max \(JSONWriter.number(hi)) is below min \(JSONWriter.number(lo)); min <= max"))
            }
        }
        try checkExpressions(file: file)
    }
}
