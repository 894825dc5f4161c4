extension Chain {
    /// The chain as a JSON tree: keys in a fixed order, every parameter written out. A chain
    /// that uses none of the graph and places no node (`needsVersion2` false) is written as version 1, exactly as
    /// before version 2 existed, so older filterchains still read it; otherwise version 2,
    /// with "images" after "workingSpace".
    public var jsonNode: JSONNode {
        var top: [(key: String, value: JSONNode)] = [("version", JSONNode(.number(needsVersion2 ? 2 : 1)))]
        if workingSpace != .srgb { top.append(("workingSpace", JSONNode(.string(workingSpace.rawValue)))) }
        if !images.isEmpty { top.append(("images", JSONNode(.array(images.map(\.jsonNode))))) }
        top.append(("filters", JSONNode(.array(steps.map(\.jsonNode)))))
        return JSONNode(.object(top))
    }

    /// Pretty-printed chain file text.
    public var jsonText: String { JSONWriter.pretty(jsonNode) }
}

extension Step {
    /// id, type, name, enabled (when false), input, mask, parameters, layout.
    public var jsonNode: JSONNode {
        var m: [(key: String, value: JSONNode)] = [("id", JSONNode(.string(id))), ("type", JSONNode(.string(type)))]
        if let name { m.append(("name", JSONNode(.string(name)))) }
        if !enabled { m.append(("enabled", JSONNode(.bool(false)))) }
        if let input { m.append(("input", JSONNode(.string(input.text)))) }
        if let mask { m.append(("mask", mask.jsonNode)) }
        m.append(("parameters", filter.parametersJSON))
        if let layout { m.append(("layout", numbers([layout.x, layout.y]))) }
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
