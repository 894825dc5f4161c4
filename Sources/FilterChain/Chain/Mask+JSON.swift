/// A step's "mask" in a chain file:
///
///     { "type": "radial", "center": [0.5, 0.45], "radius": 0.5, "feather": 0.4 }
///
/// Every type takes `invert` (false) and `opacity` (1, in 0...1). Fields left out take the
/// defaults below; masks are written with every field of their type (as parameters are), a
/// default placement left out (as a blend's is).
extension Mask {
    /// The mask types and the fields each takes besides type, invert and opacity.
    public static let fields: [(type: String, fields: [String])] = [
        ("linear", ["from", "to"]),
        ("radial", ["center", "radius", "feather"]),
        ("luminance", ["range", "feather"]),
        ("image", ["source", "channel", "placement"]),
    ]

    /// Where a linear mask's `from` and `to` may lie, as fractions of the width and height
    /// (beyond the image, so a ramp can start or end outside it).
    public static let linearPointRange: ClosedRange<Double> = -1...2
    public static let radialCenterRange: ClosedRange<Double> = 0...1
    public static let radialRadiusRange: ClosedRange<Double> = 0...2

    /// The mask of type `type` with every field at its default: linear from [0, 0] to
    /// [0, 1] (top to bottom), radial at [0.5, 0.5] with radius 1 and feather 0.5, luminance
    /// range [0.5, 1] with feather 0.1, image of the source's luminance placed by default.
    public static func defaultShape(_ type: String) -> Shape? {
        switch type {
        case "linear": .linear(from: ImagePoint(0, 0), to: ImagePoint(0, 1))
        case "radial": .radial(center: ImagePoint(0.5, 0.5), radius: 1, feather: 0.5)
        case "luminance": .luminance(low: 0.5, high: 1, feather: 0.1)
        case "image": .image(source: .source, channel: .luminance, placement: .default)
        default: nil
        }
    }

    /// The mask as a chain file writes it: type, every field of its type, invert and opacity.
    public var jsonNode: JSONNode {
        var m: [(key: String, value: JSONNode)] = [("type", JSONNode(.string(type)))]
        switch shape {
        case .linear(let from, let to):
            m.append(("from", jsonNumbers([from.x, from.y])))
            m.append(("to", jsonNumbers([to.x, to.y])))
        case .radial(let center, let radius, let feather):
            m.append(("center", jsonNumbers([center.x, center.y])))
            m.append(("radius", JSONNode(.number(radius))))
            m.append(("feather", JSONNode(.number(feather))))
        case .luminance(let low, let high, let feather):
            m.append(("range", jsonNumbers([low, high])))
            m.append(("feather", JSONNode(.number(feather))))
        case .image(let source, let channel, let placement):
            m.append(("source", JSONNode(.string(source.text))))
            m.append(("channel", JSONNode(.string(channel.rawValue))))
            if !placement.isDefault { m.append(("placement", placement.jsonNode)) }
        }
        m.append(("invert", JSONNode(.bool(invert))))
        m.append(("opacity", JSONNode(.number(opacity))))
        return JSONNode(.object(m))
    }

    /// Reads a mask object; errors carry the path below "mask" (".radius").
    public init(json node: JSONNode) throws(ParameterError) {
        guard case .object(let members) = node.value else {
            throw ParameterError(node: node, problem: .wrongType(expected: "an object { \"type\": ..., ... }", found: node.typeName))
        }
        guard let typeNode = members.first(where: { $0.key == "type" })?.value else {
            throw ParameterError(node: node, problem: .missingKey("type"))
        }
        let types = Mask.fields.map(\.type)
        guard case .string(let type) = typeNode.value else {
            throw ParameterError(node: typeNode, problem: .wrongType(expected: "a string", found: typeNode.typeName), subpath: ".type")
        }
        guard var shape = Mask.defaultShape(type), let own = Mask.fields.first(where: { $0.type == type })?.fields else {
            throw ParameterError(node: typeNode, problem: .notAllowed(
                "\"\(type)\"", allowed: ParameterKind.choice(types).allowed, suggestion: closestMatch(type, in: types)), subpath: ".type")
        }
        self.init(shape)
        let allowed = ["type"] + own + ["invert", "opacity"]
        var sawSource = false
        for (key, value) in members where key != "type" {
            do throws(ParameterError) {
                guard allowed.contains(key) else {
                    throw ParameterError(node: value, problem: .unknownKey(key, suggestion: closestMatch(key, in: allowed), allowed: allowed))
                }
                switch (key, shape) {
                case ("invert", _):
                    guard case .bool(let b) = value.value else {
                        throw ParameterError(node: value, problem: .wrongType(expected: "true or false", found: value.typeName))
                    }
                    invert = b
                case ("opacity", _): opacity = try readNumber(value, in: 0...1)
                case ("from", .linear(_, let to)):
                    let v = try readNumbers(value, count: 2, in: Mask.linearPointRange, what: "a point [x, y]")
                    shape = .linear(from: ImagePoint(v[0], v[1]), to: to)
                case ("to", .linear(let from, _)):
                    let v = try readNumbers(value, count: 2, in: Mask.linearPointRange, what: "a point [x, y]")
                    shape = .linear(from: from, to: ImagePoint(v[0], v[1]))
                case ("center", .radial(_, let radius, let feather)):
                    let v = try readNumbers(value, count: 2, in: Mask.radialCenterRange, what: "a point [x, y]")
                    shape = .radial(center: ImagePoint(v[0], v[1]), radius: radius, feather: feather)
                case ("radius", .radial(let center, _, let feather)):
                    shape = .radial(center: center, radius: try readNumber(value, in: Mask.radialRadiusRange), feather: feather)
                case ("feather", .radial(let center, let radius, _)):
                    shape = .radial(center: center, radius: radius, feather: try readNumber(value, in: 0...1))
                case ("range", .luminance(_, _, let feather)):
                    let v = try readNumbers(value, count: 2, in: 0...1, what: "a range [low, high]")
                    guard v[0] <= v[1] else {
                        throw ParameterError(node: value, problem: .notAllowed(
                            "[\(JSONWriter.number(v[0])), \(JSONWriter.number(v[1]))]", allowed: "[low, high] with low <= high", suggestion: nil))
                    }
                    shape = .luminance(low: v[0], high: v[1], feather: feather)
                case ("feather", .luminance(let low, let high, _)):
                    shape = .luminance(low: low, high: high, feather: try readNumber(value, in: 0...1))
                case ("source", .image(_, let channel, let placement)):
                    guard case .string(let text) = value.value, !text.isEmpty else {
                        throw ParameterError(node: value, problem: .wrongType(
                            expected: "a reference (\"source\", an image's or a step's id or name)", found: value.typeName))
                    }
                    shape = .image(source: Reference(text), channel: channel, placement: placement)
                    sawSource = true
                case ("channel", .image(let source, _, let placement)):
                    shape = .image(source: source, channel: try readChoice(value, MaskChannel.self), placement: placement)
                case ("placement", .image(let source, let channel, _)):
                    shape = .image(source: source, channel: channel, placement: try Placement(json: value))
                default: break
                }
            } catch var error {
                error.subpath = "." + key + error.subpath
                throw error
            }
        }
        if type == "image", !sawSource { throw ParameterError(node: node, problem: .missingKey("source")) }
        if case .linear(let from, let to) = shape, from == to {
            throw ParameterError(node: node, problem: .combination(
                "linear mask: from and to are the same point [\(JSONWriter.number(from.x)), \(JSONWriter.number(from.y))]; "
                    + "they must differ (the ramp runs from one to the other)"))
        }
        self.shape = shape
    }
}
