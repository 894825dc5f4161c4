extension FilterInfo {
    /// The filter as `filterchain filters --json` lists it (the editor reads the same).
    public var jsonNode: JSONNode {
        JSONNode(.object([
            ("type", JSONNode(.string(type))),
            ("group", JSONNode(.string(group.rawValue))),
            ("summary", JSONNode(.string(summary))),
            ("parameters", JSONNode(.array(parameters.map { p in
                var members: [(key: String, value: JSONNode)] = [("name", JSONNode(.string(p.name)))]
                switch p.kind {
                case .number(let r):
                    members += [("kind", JSONNode(.string("number"))),
                                ("minimum", JSONNode(.number(r.lowerBound))), ("maximum", JSONNode(.number(r.upperBound)))]
                case .choice(let options):
                    members += [("kind", JSONNode(.string("choice"))), ("choices", JSONNode(.array(options.map { JSONNode(.string($0)) })))]
                case .integer(let r):
                    members += [("kind", JSONNode(.string("integer"))),
                                ("minimum", JSONNode(.number(Double(r.lowerBound)))), ("maximum", JSONNode(.number(Double(r.upperBound))))]
                case .integerChoice(let options):
                    members += [("kind", JSONNode(.string("integerChoice"))),
                                ("choices", JSONNode(.array(options.map { JSONNode(.number(Double($0))) })))]
                case .boolean:
                    members += [("kind", JSONNode(.string("boolean")))]
                case .color(let r, let positiveLuma):
                    members += [("kind", JSONNode(.string("color"))),
                                ("minimum", JSONNode(.number(r.lowerBound))), ("maximum", JSONNode(.number(r.upperBound))),
                                ("positiveLuma", JSONNode(.bool(positiveLuma)))]
                case .point(let r):
                    members += [("kind", JSONNode(.string("point"))),
                                ("minimum", JSONNode(.number(r.lowerBound))), ("maximum", JSONNode(.number(r.upperBound)))]
                case .matrix(let rows, let columns, let r):
                    members += [("kind", JSONNode(.string("matrix"))), ("rows", JSONNode(.number(Double(rows)))),
                                ("columns", JSONNode(.number(Double(columns)))),
                                ("minimum", JSONNode(.number(r.lowerBound))), ("maximum", JSONNode(.number(r.upperBound)))]
                case .file(let ext):
                    members += [("kind", JSONNode(.string("file"))), ("extension", JSONNode(.string(ext))),
                                ("required", JSONNode(.bool(true)))]
                case .reference:
                    members += [("kind", JSONNode(.string("reference"))), ("required", JSONNode(.bool(true)))]
                case .placement:
                    members += [("kind", JSONNode(.string("placement"))),
                                ("fits", JSONNode(.array(Placement.Fit.allCases.map { JSONNode(.string($0.rawValue)) }))),
                                ("gravities", JSONNode(.array(Placement.Gravity.allCases.map { JSONNode(.string($0.rawValue)) })))]
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
