/// Lays another image of the chain over the step's input with one of the 16 blend modes of
/// W3C Compositing and Blending Level 1, then source-over.
public struct Blend: Filter {
    public var layer: Reference = .source
    public var mode: BlendMode = .normal
    public var opacity = 1.0
    public var placement = Placement.default

    public init() {}

    public init(layer: Reference, mode: BlendMode = .normal, opacity: Double = 1, placement: Placement = .default) {
        self.layer = layer
        self.mode = mode
        self.opacity = opacity
        self.placement = placement
    }

    public static let declaration = FilterDeclaration<Blend>(
        type: "blend",
        group: .compositing,
        summary: "Lays another image of the chain (the source, an image, an earlier step) over this one with a blend mode.",
        documentation: """
            The backdrop is the step's input (Cb, ab); the source is the layer (Cs, and
            as = layer alpha x opacity, 0 where the placed layer does not cover the pixel).
            Colour and alpha of both are clamped to [0, 1] first. Then, with B the mode's
            function (W3C Compositing and Blending Level 1):

                Cs' = (1 - ab) Cs + ab B(Cb, Cs)
                co  = as Cs' + (1 - as) ab Cb          (source-over, premultiplied)
                ao  = as + ab (1 - as)
                out = co / ao, alpha ao                (0 where ao = 0)

            Separable modes, per channel:

                normal      B = Cs
                multiply    B = Cb Cs
                screen      B = Cb + Cs - Cb Cs
                overlay     B = hardLight(Cs, Cb)
                darken      B = min(Cb, Cs)
                lighten     B = max(Cb, Cs)
                colorDodge  B = 0 if Cb = 0; else 1 if Cs = 1; else min(1, Cb / (1 - Cs))
                colorBurn   B = 1 if Cb = 1; else 0 if Cs = 0; else 1 - min(1, (1 - Cb) / Cs)
                hardLight   B = multiply(Cb, 2 Cs) if Cs <= 0.5; else screen(Cb, 2 Cs - 1)
                softLight   B = Cb - (1 - 2 Cs) Cb (1 - Cb) if Cs <= 0.5;
                            else Cb + (2 Cs - 1) (D(Cb) - Cb), D(x) = ((16 x - 12) x + 4) x if
                            x <= 0.25, else sqrt(x)   (W3C's formula, not Pillow's "pegtop")
                difference  B = |Cb - Cs|
                exclusion   B = Cb + Cs - 2 Cb Cs

            Non-separable modes, on the colour as a whole, with Lum(C) = 0.3 R + 0.59 G + 0.11 B,
            Sat(C) = max - min, and W3C's ClipColor, SetLum and SetSat:

                hue         B = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))
                saturation  B = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))
                color       B = SetLum(Cs, Lum(Cb))
                luminosity  B = SetLum(Cb, Lum(Cs))

            Values are those of the chain's working space: encoded sRGB in an srgb chain (as
            Photoshop, ImageMagick and vips blend), linear light in a linear chain (as GEGL).

            `placement` puts a layer of another size: `fit` none (the layer's own size) |
            contain | cover | fill (resized to the input's size as the `resize` step does),
            `gravity` center | north | south | east | west | northEast | northWest | southEast |
            southWest, `offset` [x, y] whole pixels inward from the gravity's edges (for center,
            right and down). The layer's top-left corner: for west x = ox, for east
            x = W - w - ox, for center x = floor((W - w) / 2) + ox (y alike). Parts outside the
            image are cut off.
            """,
        parameters: [
            .reference("layer", \.layer, help: "the image laid over this one: \"source\", an image or an earlier step"),
            .choice("mode", \.mode, help: "the blend mode (W3C Compositing Level 1)"),
            .number("opacity", \.opacity, in: 0...1, help: "the layer's opacity: 0 leaves the input as it is"),
            .placement("placement", \.placement, help: "where a layer of another size lies"),
        ])

    public func operation() -> FilterOperation {
        .blend(layer: layer, placement: placement, kernel: BlendKernel(mode: mode, opacity: Float(opacity)))
    }

    /// Every mode keeps R = G = B when both images have it (the non-separable ones included:
    /// SetSat of a grey is grey).
    public var keepsNeutralNeutral: Bool { true }

    /// Over a backdrop with alpha, the output's alpha is as + ab (1 - as).
    public var changesAlpha: Bool { false }

    /// Placement offsets are in pixels.
    public func scaled(by scale: Double) -> Blend {
        var copy = self
        copy.placement.offsetX = Int((Double(placement.offsetX) * scale).rounded())
        copy.placement.offsetY = Int((Double(placement.offsetY) * scale).rounded())
        return copy
    }
}

/// The 16 blend modes of W3C Compositing and Blending Level 1.
public enum BlendMode: String, CaseIterable, Sendable {
    case normal, multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, hardLight, softLight
    case difference, exclusion, hue, saturation, color, luminosity

    /// Hue, saturation, color and luminosity work on the colour as a whole.
    public var isSeparable: Bool {
        switch self {
        case .hue, .saturation, .color, .luminosity: false
        default: true
        }
    }
}

extension Parameter {
    /// A reference to another image of the chain, kept as written; the chain checks that it
    /// names something the step may read.
    public static func reference(_ name: String, _ keyPath: WritableKeyPath<F, Reference> & Sendable,
                                 help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .reference,
                          get: { JSONNode(.string($0[keyPath: keyPath].text)) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              guard case .string(let text) = node.value, !text.isEmpty else {
                                  throw ParameterError(node: node, problem: .wrongType(expected: Reference.expected, found: node.typeName))
                              }
                              filter[keyPath: keyPath] = Reference(text)
                          })
        p.required = true
        p.reference = { $0[keyPath: keyPath] }
        p.checkValue = { (filter: F) throws(ParameterError) in
            guard filter[keyPath: keyPath].text.isEmpty else { return }
            throw ParameterError(node: JSONNode(.string("")), problem: .wrongType(expected: Reference.expected, found: "a string"))
        }
        return p
    }

    /// A placement object; left out when it is the default.
    public static func placement(_ name: String, _ keyPath: WritableKeyPath<F, Placement> & Sendable,
                                 help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .placement,
                          get: { f in
                              let p = f[keyPath: keyPath]
                              return p.isDefault ? nil : p.jsonNode
                          },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              filter[keyPath: keyPath] = try Placement(json: node)
                          })
        p.checkValue = { (filter: F) throws(ParameterError) in try filter[keyPath: keyPath].check() }
        return p
    }
}

extension Reference {
    /// What a reference parameter takes, as messages say it.
    static let expected = "a reference (\"source\", an image's or a step's id or name)"
}

extension Placement {
    /// The placement as a chain file writes it: only what differs from the default.
    public var jsonNode: JSONNode {
        var m: [(key: String, value: JSONNode)] = []
        if fit != .none { m.append(("fit", JSONNode(.string(fit.rawValue)))) }
        if gravity != .center { m.append(("gravity", JSONNode(.string(gravity.rawValue)))) }
        if offsetX != 0 || offsetY != 0 { m.append(("offset", jsonNumbers([Double(offsetX), Double(offsetY)]))) }
        return JSONNode(.object(m))
    }

    /// The offset's rule (whole pixels in -65535...65535), on a placement set in code, with
    /// a file's message.
    func check() throws(ParameterError) {
        for (i, v) in [offsetX, offsetY].enumerated() {
            do throws(ParameterError) { _ = try checkNumber(Double(v), in: Placement.offsetRange) } catch var error {
                error.subpath = ".offset[\(i)]"
                throw error
            }
        }
    }

    static let offsetRange: ClosedRange<Double> = -65535...65535

    /// Reads { fit, gravity, offset }, each optional.
    public init(json node: JSONNode) throws(ParameterError) {
        guard case .object(let members) = node.value else {
            throw ParameterError(node: node, problem: .wrongType(expected: "an object { fit, gravity, offset }", found: node.typeName))
        }
        self.init()
        for (key, value) in members {
            do throws(ParameterError) {
                switch key {
                case "fit": fit = try readChoice(value, Fit.self)
                case "gravity": gravity = try readChoice(value, Gravity.self)
                case "offset":
                    let v = try readNumbers(value, count: 2, in: Placement.offsetRange, what: "an offset [x, y] in whole pixels")
                    guard v.allSatisfy({ $0 == $0.rounded() }) else {
                        throw ParameterError(node: value, problem: .wrongType(expected: "whole numbers of pixels", found: "a fraction"))
                    }
                    offsetX = Int(v[0])
                    offsetY = Int(v[1])
                default:
                    let names = ["fit", "gravity", "offset"]
                    throw ParameterError(node: value, problem: .unknownParameter(
                        key, filter: "placement", suggestion: closestMatch(key, in: names), allowed: names))
                }
            } catch var error {
                error.subpath = "." + key + error.subpath
                throw error
            }
        }
    }
}
