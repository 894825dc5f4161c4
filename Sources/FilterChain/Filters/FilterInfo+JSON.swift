extension FilterInfo {
    /// The filter as `filterchain filters --json` lists it (the editor reads the same).
    public var jsonNode: JSONNode {
        JSONNode(.object([
            ("type", JSONNode(.string(type))),
            ("summary", JSONNode(.string(summary))),
            ("parameters", JSONNode(.array(parameters.map { p in
                var members: [(key: String, value: JSONNode)] = [("name", JSONNode(.string(p.name)))]
                switch p.kind {
                case .number(let r):
                    members += [("kind", JSONNode(.string("number"))),
                                ("minimum", JSONNode(.number(r.lowerBound))), ("maximum", JSONNode(.number(r.upperBound)))]
                case .choice(let options):
                    members += [("kind", JSONNode(.string("choice"))), ("choices", JSONNode(.array(options.map { JSONNode(.string($0)) })))]
                case .points(let count, let optional):
                    members += [("kind", JSONNode(.string("points"))), ("minimumPoints", JSONNode(.number(Double(count.lowerBound)))),
                                ("maximumPoints", JSONNode(.number(Double(count.upperBound)))), ("optional", JSONNode(.bool(optional)))]
                }
                members += [("default", p.defaultValue ?? JSONNode(.null)), ("allowed", JSONNode(.string(p.kind.allowed))),
                            ("help", JSONNode(.string(p.help)))]
                if let unit = p.unit { members.append(("unit", JSONNode(.string(unit.rawValue)))) }
                return JSONNode(.object(members))
            }))),
        ]))
    }
}
