extension Chain {
    /// The chain as a JSON tree: keys in a fixed order, every parameter written out. A chain
    /// that uses none of the graph, no variables or expressions and places no node
    /// (`needsVersion2` false) is written as version 1, exactly as before version 2 existed,
    /// so older filterchains still read it; otherwise version 2, with "variables", then
    /// "images", after "workingSpace".
    public var jsonNode: JSONNode {
        var top: [(key: String, value: JSONNode)] = [("version", JSONNode(.number(needsVersion2 ? 2 : 1)))]
        if workingSpace != .srgb { top.append(("workingSpace", JSONNode(.string(workingSpace.rawValue)))) }
        if !variables.isEmpty { top.append(("variables", JSONNode(.array(variables.map(\.jsonNode))))) }
        if !images.isEmpty { top.append(("images", JSONNode(.array(images.map(\.jsonNode))))) }
        top.append(("filters", JSONNode(.array(steps.map { $0.jsonNode(layout: layout[$0.id]) }))))
        return JSONNode(.object(top))
    }

    /// Pretty-printed chain file text.
    public var jsonText: String { JSONWriter.pretty(jsonNode) }
}

extension Chain {
    /// True when the chain declares variables or a parameter holds an expression.
    public var usesExpressions: Bool { !variables.isEmpty || steps.contains { !$0.computed.isEmpty } }

    /// True when an expression reads the animation frame (`frame`, `frames`, `time`): each
    /// frame's chain is resolved anew.
    public var readsFrame: Bool {
        let names = Set(NumberExpression.frameNames)
        return variables.contains { if case .expression(let e) = $0.value { !e.names.isDisjoint(with: names) } else { false } }
            || steps.contains { $0.computed.values.contains { $0.expressions.contains { !$0.expression.names.isDisjoint(with: names) } } }
    }
}

extension Step {
    /// The parameters as written: literal values from the filter, computed ones with their
    /// expressions.
    public var parametersJSON: JSONNode { filter.parametersJSON(computed: computed) }

    /// The value of parameter `name` as written: a literal (the filter's value; nil when an
    /// optional parameter is left out) or one with expressions.
    public func value(of name: String) -> ParameterValue? {
        if let c = computed[name] { return .computed(c) }
        return filter.parametersJSON.member(name).map { .literal($0) }
    }

    /// id, type, name, enabled (when false), input, mask, parameters.
    public var jsonNode: JSONNode { jsonNode(layout: nil) }

    /// The step as its chain's file writes it: `jsonNode`, then the editor's `layout`.
    func jsonNode(layout: NodePosition?) -> JSONNode {
        var m: [(key: String, value: JSONNode)] = [("id", JSONNode(.string(id))), ("type", JSONNode(.string(type)))]
        if let name { m.append(("name", JSONNode(.string(name)))) }
        if !enabled { m.append(("enabled", JSONNode(.bool(false)))) }
        if let input { m.append(("input", JSONNode(.string(input.text)))) }
        if let mask { m.append(("mask", mask.jsonNode)) }
        m.append(("parameters", parametersJSON))
        if let layout { m.append(("layout", jsonNumbers([layout.x, layout.y]))) }
        return JSONNode(.object(m))
    }
}

extension ChainImage {
    /// id, name, file.
    public var jsonNode: JSONNode {
        var m: [(key: String, value: JSONNode)] = [("id", JSONNode(.string(id)))]
        if let name { m.append(("name", JSONNode(.string(name)))) }
        m.append(("file", JSONNode(.string(file))))
        return JSONNode(.object(m))
    }
}
