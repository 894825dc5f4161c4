/// Every filter type a chain file can name. Adding a filter: its file, plus one line here.
public enum FilterRegistry {
    public static let types: [any Filter.Type] = [
        ColorControls.self,
        ToneCurve.self,
        GaussianBlur.self,
    ]

    public static var names: [String] { types.map { $0.typeName } }

    public static func type(named name: String) -> (any Filter.Type)? {
        types.first { $0.typeName == name }
    }

    public static var infos: [FilterInfo] { types.map { $0.info } }

    /// The type name `name` is a likely misspelling of (the chain file's "did you mean").
    public static func closestName(to name: String) -> String? { closestMatch(name, in: names) }
}

extension Filter {
    /// The name chain files use for this type.
    public static var typeName: String { declaration.type }
    public static var info: FilterInfo { declaration.info }

    /// The parameters as a JSON object.
    public var parametersJSON: JSONNode { Self.declaration.encode(self) }

    /// A copy with one parameter set from JSON (validated).
    public func setting(_ name: String, to value: JSONNode) throws(ParameterError) -> Self {
        var copy = self
        try Self.declaration.set(name, value, in: &copy)
        return copy
    }
}

func decodeFilter<F: Filter>(_ type: F.Type, _ parameters: JSONNode?) throws(ParameterError) -> any Filter {
    try F.declaration.decode(parameters)
}
