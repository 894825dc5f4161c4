extension FormatDeclaration {
    /// The format as `filterchain formats --json` lists it.
    public var jsonNode: JSONNode {
        let caps = capabilities
        func string(_ s: String) -> JSONNode { JSONNode(.string(s)) }
        func number(_ n: Int) -> JSONNode { JSONNode(.number(Double(n))) }
        var members: [(key: String, value: JSONNode)] = [
            ("format", string(format.id)),
            ("name", string(name)),
            ("summary", string(summary)),
            ("extensions", JSONNode(.array(extensions.map(string)))),
            ("mediaType", string(mediaType)),
            ("reads", JSONNode(.bool(reads))),
            ("writes", JSONNode(.bool(writes))),
            ("alpha", JSONNode(.bool(caps.alpha))),
            ("depths", JSONNode(.array(caps.depths.map { number($0.rawValue) }))),
            ("grey", JSONNode(.bool(caps.grey))),
            ("metadata", JSONNode(.array(caps.metadata.sorted().map { string($0.rawValue) }))),
            // Files may hold one; and whether filterchain reads and writes every frame.
            ("animation", JSONNode(.object([("files", JSONNode(.bool(caps.animation))), ("read", JSONNode(.bool(readsAnimations))),
                                            ("write", JSONNode(.bool(writesAnimations)))]))),
            ("exifOrientation", JSONNode(.bool(caps.exifOrientation))),
            ("maxSide", caps.maxSide.map(number) ?? JSONNode(.null)),
            ("libraryProblem", libraryProblem.map(string) ?? JSONNode(.null)),
        ]
        members.append(("options", JSONNode(.array(options.map { o in
            var m: [(key: String, value: JSONNode)] = [("name", string(o.name)), ("flag", string(o.flag))]
            switch o.kind {
            case .integer(let r):
                m += [("kind", string("integer")), ("minimum", number(r.lowerBound)), ("maximum", number(r.upperBound))]
            case .choice(let values):
                m += [("kind", string("choice")), ("choices", JSONNode(.array(values.map(string))))]
            case .number(let r):
                m += [("kind", string("number")), ("minimum", JSONNode(.number(r.lowerBound))), ("maximum", JSONNode(.number(r.upperBound)))]
            default:
                m += [("kind", string("boolean"))]
            }
            m += [("default", o.defaultValue.jsonNode), ("defaultNote", o.defaultNote.map(string) ?? JSONNode(.null)),
                  ("allowed", string(o.allowed)), ("help", string(o.help))]
            return JSONNode(.object(m))
        }))))
        return JSONNode(.object(members))
    }
}
