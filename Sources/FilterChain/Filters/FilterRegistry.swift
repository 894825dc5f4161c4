/// Every filter type a chain file can name. Adding a filter: its file, plus one line here.
public enum FilterRegistry {
    public static let types: [any Filter.Type] = [
        ColorControls.self,
        ToneCurve.self,
        GaussianBlur.self,
        Resize.self,
        Crop.self,
        Rotate.self,
        Flip.self,
        Exposure.self,
        Gamma.self,
        Levels.self,
        HueAdjust.self,
        Vibrance.self,
        ColorMatrix.self,
        Sepia.self,
        Monochrome.self,
        Invert.self,
        LUT.self,
        UnsharpMask.self,
        Vignette.self,
        Blend.self,
    ]

    public static var names: [String] { types.map { $0.typeName } }

    public static func type(named name: String) -> (any Filter.Type)? {
        types.first { $0.typeName == name }
    }

    public static var infos: [FilterInfo] { types.map { $0.info } }

    /// The type a person who wrote `name` most likely meant (the "did you mean" of messages):
    /// a type whose name contains it (`blur`: gaussianBlur), else one it misspells
    /// (`gausianBlur`), else one whose summary has a word starting with it (`sharpen`:
    /// unsharpMask, which "Sharpens").
    public static func closestName(to name: String) -> String? {
        let word = name.lowercased()
        if word.count >= 3, let containing = names.filter({ $0.lowercased().contains(word) }).min(by: { $0.count < $1.count }) {
            return containing
        }
        if let misspelt = closestMatch(name, in: names) { return misspelt }
        guard word.count >= 4 else { return nil }
        return types.first { type in
            type.info.summary.lowercased().split { !$0.isLetter }.contains { $0.hasPrefix(word) }
        }?.typeName
    }
}

extension Filter {
    /// The name chain files use for this type.
    public static var typeName: String { declaration.type }
    public static var info: FilterInfo { declaration.info }

    /// The parameters as a JSON object.
    public var parametersJSON: JSONNode { Self.declaration.encode(self) }

    /// Checks the rules across the filter's parameters.
    public func checkCombination() throws(ParameterError) {
        try Self.declaration.checkCombination(self)
    }

    /// Required parameters not yet given (a lut's file).
    public var missingParameters: [String] {
        Self.declaration.parameters.filter { $0.required && $0.get(self) == nil }.map(\.name)
    }

    /// A copy with one parameter set from JSON (validated).
    public func setting(_ name: String, to value: JSONNode,
                        context: ParameterContext = ParameterContext()) throws(ParameterError) -> Self {
        var copy = self
        try Self.declaration.set(name, value, in: &copy, context: context)
        return copy
    }
}

func decodeFilter<F: Filter>(_ type: F.Type, _ parameters: JSONNode?,
                             context: ParameterContext = ParameterContext()) throws(ParameterError) -> any Filter {
    try F.declaration.decode(parameters, context: context)
}
