extension Chain {
    /// The chain as a JSON tree: keys in a fixed order, every parameter written out.
    public var jsonNode: JSONNode {
        var top: [(key: String, value: JSONNode)] = [("version", JSONNode(.number(usesGraph ? 2 : 1)))]
        if workingSpace != .srgb { top.append(("workingSpace", JSONNode(.string(workingSpace.rawValue)))) }
        top.append(("filters", JSONNode(.array(steps.map(\.jsonNode)))))
        return JSONNode(.object(top))
    }

    /// Pretty-printed chain file text.
    public var jsonText: String { JSONWriter.pretty(jsonNode) }
}

extension Step {
    public var jsonNode: JSONNode {
        var m: [(key: String, value: JSONNode)] = [("id", JSONNode(.string(id))), ("type", JSONNode(.string(type)))]
        if let name { m.append(("name", JSONNode(.string(name)))) }
        if !enabled { m.append(("enabled", JSONNode(.bool(false)))) }
        m.append(("parameters", filter.parametersJSON))
        return JSONNode(.object(m))
    }
}
