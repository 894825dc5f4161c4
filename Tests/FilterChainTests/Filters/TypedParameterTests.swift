import Testing
@testable import FilterChain

/// Parameters are checked, computed and scaled as typed values; the reference each test
/// holds them to is the chain file's reader (`FilterDeclaration.decode` and `set` on JSON),
/// which is what a value written in a file gets.
@Suite struct TypedParameterTests {
    /// What a refusal says and where: the parts of a message a person reads.
    struct Refusal: Equatable, CustomStringConvertible {
        var problem: ChainError.Problem
        var subpath: String
        var line: Int?
        var column: Int?
        init(_ e: ParameterError) { (problem, subpath, line, column) = (e.problem, e.subpath, e.line, e.column) }
        var description: String { "\(subpath): \(problem) at \(line.map(String.init) ?? "-"):\(column.map(String.init) ?? "-")" }
    }

    /// The file reader's verdict on a filter: its values written as JSON and read back.
    static func fileVerdict<F: Filter>(_ filter: F) -> Refusal? {
        do throws(ParameterError) {
            _ = try F.declaration.decode(F.declaration.encode(filter), context: ParameterContext(readsFiles: false))
            return nil
        } catch { return Refusal(error) }
    }

    static func typedVerdict<F: Filter>(_ filter: F) -> Refusal? {
        do throws(ParameterError) { try filter.validate(); return nil } catch { return Refusal(error) }
    }

    static func expectSameVerdict<F: Filter>(_ filter: F, refused: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let file = fileVerdict(filter), typed = typedVerdict(filter)
        #expect(typed == file, "\(F.typeName) \(JSONWriter.compact(filter.parametersJSON))", sourceLocation: sourceLocation)
        #expect((file != nil) == refused, "\(F.typeName): \(file?.description ?? "accepted")", sourceLocation: sourceLocation)
    }

    /// Every kind of value a file refuses, set in code: `validate()` refuses it with the file's message.
    @Test func validateRefusesWhatAFileRefuses() {
        Self.expectSameVerdict(GaussianBlur(sigma: -1), refused: true)
        Self.expectSameVerdict(GaussianBlur(sigma: .nan), refused: true)
        Self.expectSameVerdict(GaussianBlur(sigma: .infinity), refused: true)
        Self.expectSameVerdict(GaussianBlur(sigma: 500), refused: false)
        Self.expectSameVerdict(Crop(x: 10, y: 10, width: 70000, height: 10), refused: true)
        Self.expectSameVerdict(Crop(x: 0.5, y: 0.5, width: 0.25, height: 0.25, unit: .fraction), refused: false)
        Self.expectSameVerdict(Crop(x: 0.5, y: 0, width: 1.5, height: 1, unit: .fraction), refused: true)    // across parameters
        Self.expectSameVerdict(Resize(width: 0), refused: true)
        Self.expectSameVerdict(Resize(width: 70000), refused: true)
        Self.expectSameVerdict(Resize(width: 640), refused: false)
        Self.expectSameVerdict(Resize(scale: 17), refused: true)
        Self.expectSameVerdict(Rotate(angle: 45), refused: true)
        Self.expectSameVerdict(Rotate(angle: -270), refused: false)
        Self.expectSameVerdict(Levels(inBlack: 0.6, inWhite: 0.6), refused: true)
        Self.expectSameVerdict(Levels(inBlack: 0.2, inWhite: 0.1, gamma: 20), refused: true)   // a value before the rule
        Self.expectSameVerdict(Monochrome(color: ColorRGB(0, 0, 0)), refused: true)               // luma
        Self.expectSameVerdict(Monochrome(color: ColorRGB(0.5, 1.5, 0.2)), refused: true)
        Self.expectSameVerdict(Monochrome(color: ColorRGB(0.5, .nan, 0.2)), refused: true)
        Self.expectSameVerdict(Vignette(center: ImagePoint(0.5, -0.1)), refused: true)
        Self.expectSameVerdict(Vignette(center: ImagePoint(1, 0)), refused: false)
        var matrix = ColorMatrix()
        matrix.matrix[2][3] = 11
        Self.expectSameVerdict(matrix, refused: true)
        matrix.matrix[2][3] = 0
        matrix.matrix[1].append(0)
        Self.expectSameVerdict(matrix, refused: true)                 // a row too long
        matrix.matrix[0][0] = -20
        Self.expectSameVerdict(matrix, refused: true)                 // a number of row 0 before the shape of row 1
        matrix.matrix.removeLast(2)
        Self.expectSameVerdict(matrix, refused: true)                 // too few rows
        Self.expectSameVerdict(ToneCurve(points: [CurvePoint(0, 0)]), refused: true)
        Self.expectSameVerdict(ToneCurve(points: [CurvePoint(0, 0), CurvePoint(0.5, 1.2), CurvePoint(1, 1)]), refused: true)
        Self.expectSameVerdict(ToneCurve(points: [CurvePoint(0, 0), CurvePoint(0.5, 0.4), CurvePoint(0.5, 0.6)]), refused: true)
        Self.expectSameVerdict(ToneCurve(points: [CurvePoint(0, 0), CurvePoint(0.3, 0.4), CurvePoint(1, 1)]), refused: false)
        var curve = ToneCurve()
        curve.red = [CurvePoint(0.6, 0), CurvePoint(0.2, 1)]
        Self.expectSameVerdict(curve, refused: true)
        var blend = Blend(layer: "")
        Self.expectSameVerdict(blend, refused: true)
        blend = Blend(layer: "logo")
        blend.placement.offsetY = 70000
        Self.expectSameVerdict(blend, refused: true)
        blend.placement = Placement(fit: .contain, gravity: .east, offset: (-65535, 3))
        Self.expectSameVerdict(blend, refused: false)
        blend.opacity = 2
        Self.expectSameVerdict(blend, refused: true)
        Self.expectSameVerdict(LUT(), refused: true)                  // no file
        var lut = LUT()
        lut.intensity = -0.5
        Self.expectSameVerdict(lut, refused: true)               // a value before the missing file
    }

    /// Random values across every parameter of every filter, in and out of range: the two agree.
    @Test func validateAgreesWithTheFileReaderOnRandomValues() {
        var rng = SeededRandom(35)
        for type in FilterRegistry.types {
            func run<F: Filter>(_: F.Type) {
                for _ in 0..<300 {
                    var filter = F()
                    for parameter in F.declaration.parameters {
                        guard let (numbers, values) = TypedParameterTests.randomNumbers(parameter, of: filter, &rng) else { continue }
                        // Set through the checked path when the values are allowed, else written raw.
                        if let set = try? { () throws(ParameterError) -> F in var f = filter; try numbers.set(&f, values); return f }() {
                            filter = set
                        } else if let broken = TypedParameterTests.rawWrite(filter, parameter.name, values) {
                            filter = broken
                        }
                    }
                    let file = Self.fileVerdict(filter), typed = Self.typedVerdict(filter)
                    #expect(typed == file, "\(F.typeName) \(JSONWriter.compact(filter.parametersJSON))")
                }
            }
            run(type)
        }
    }

    /// Random numbers for a parameter made of numbers, half the time (nil: leave it): as many
    /// as it holds, one for an optional number left out.
    static func randomNumbers<F: Filter>(_ parameter: Parameter<F>, of filter: F,
                                         _ rng: inout SeededRandom) -> (NumberAccess<F>, [Double])? {
        guard let numbers = parameter.numbers, rng.next() % 2 == 0 else { return nil }
        return (numbers, (numbers.get(filter) ?? [0]).map { _ in randomNumber(parameter.kind, &rng) })
    }

    /// A number for a kind: mostly in its range, sometimes just out, not finite, or a fraction.
    static func randomNumber(_ kind: ParameterKind, _ rng: inout SeededRandom) -> Double {
        let range = kind.numberRange ?? (kind.takesWholeNumbers ? -300...300 : 0...1)
        let u = Double(rng.next() % 10_000) / 10_000
        switch rng.next() % 8 {
        case 0: return range.upperBound + 1 + u
        case 1: return range.lowerBound - 1 - u
        case 2: return [Double.nan, .infinity, -.infinity][Int(rng.next() % 3)]
        case 3: return range.lowerBound + 0.5
        case 4: if case .integerChoice(let options) = kind { return Double(options[Int(rng.next() % UInt64(options.count))]) }
            return range.upperBound
        default:
            let v = range.lowerBound + u * (range.upperBound - range.lowerBound)
            return kind.takesWholeNumbers ? v.rounded() : v
        }
    }

    /// `filter` with parameter `name` holding `values` unchecked, through the filter's own
    /// stored properties (what code that builds a filter can do).
    static func rawWrite<F: Filter>(_ filter: F, _ name: String, _ values: [Double]) -> F? {
        var f: any Filter = filter
        switch (f, name) {
        case (var g as GaussianBlur, "sigma"): g.sigma = values[0]; f = g
        case (var c as ColorControls, "saturation"): c.saturation = values[0]; f = c
        case (var c as ColorControls, "contrast"): c.contrast = values[0]; f = c
        case (var c as Crop, "x"): c.x = values[0]; f = c
        case (var c as Crop, "width"): c.width = values[0]; f = c
        case (var r as Resize, "width"): r.width = values[0].isFinite && abs(values[0]) < 1e9 ? Int(values[0]) : -1; f = r
        case (var r as Resize, "scale"): r.scale = values[0]; f = r
        case (var l as Levels, "gamma"): l.gamma = values[0]; f = l
        case (var l as Levels, "inWhite"): l.inWhite = values[0]; f = l
        case (var s as Monochrome, "color"): s.color = ColorRGB(values[0], values[1], values[2]); f = s
        case (var v as Vignette, "center"): v.center = ImagePoint(values[0], values[1]); f = v
        case (var v as Vignette, "radius"): v.radius = values[0]; f = v
        case (var m as ColorMatrix, "matrix"): m.matrix = stride(from: 0, to: 20, by: 5).map { Array(values[$0 ..< $0 + 5]) }; f = m
        case (var u as UnsharpMask, "amount"): u.amount = values[0]; f = u
        case (var b as Blend, "opacity"): b.opacity = values[0]; f = b
        default: return nil
        }
        return f as? F
    }

    /// Expressions' values set typed equal the file reader's value with the numbers written
    /// in (the same filter, or the same refusal at the same place), for every parameter of
    /// every filter that takes expressions, at every place an expression may stand.
    @Test func computedValuesAgreeWithTheFileReader() throws {
        var rng = SeededRandom(36)
        for type in FilterRegistry.types {
            func run<F: Filter>(_: F.Type) throws {
                let d = F.declaration
                for parameter in d.parameters {
                    guard let depth = parameter.kind.expressionDepth else { continue }
                    let numbers = try #require(parameter.numbers, "\(F.typeName).\(parameter.name) takes expressions: it must be made of numbers")
                    let template = try #require(numbers.get(F()) ?? numbers.get(d.decodeNumbersStandIn(parameter)))
                    // The value as written: its default numbers, in its shape.
                    let shaped = TypedParameterTests.shape(template, parameter.kind)
                    for _ in 0..<60 {
                        // One or more slots hold expressions.
                        let slots = TypedParameterTests.slots(parameter.kind, depth: depth).filter { _ in rng.next() % 2 == 0 }
                        guard !slots.isEmpty else { continue }
                        var json = shaped
                        for slot in slots { json = json.replacing(at: slot, with: JSONNode(.string("=x"))) }
                        json = JSONNode(json.value, line: 7, column: 12)
                        let c = ComputedParameter(json: json, expressions: slots.map { ($0, try! NumberExpression("=x", names: ["x"])) })
                        let values = slots.map { _ in TypedParameterTests.randomNumber(parameter.kind, &rng) }
                            .map { parameter.kind.takesWholeNumbers ? $0.rounded(.toNearestOrAwayFromZero) : $0 }
                        var typed = F(), file = F()
                        var typedError: Refusal?, fileError: Refusal?
                        do throws(ParameterError) { try d.setComputed(parameter, c, values, in: &typed) } catch { typedError = Refusal(error) }
                        do throws(ParameterError) { try d.set(parameter.name, c.substituted(values), in: &file) } catch { fileError = Refusal(error) }
                        #expect(typedError == fileError, "\(F.typeName).\(parameter.name) \(JSONWriter.compact(c.substituted(values)))")
                        #expect(typed.parametersJSON == file.parametersJSON)
                    }
                }
            }
            try run(type)
        }
    }

    /// Preview scaling, typed, equals the rule as it was written over JSON (each number of a
    /// pixel parameter times the scale, clamped to a number's range; else rounded, at least
    /// 1; else the full-size value), on random valid filters of every type.
    @Test func previewScalingAgreesWithTheJSONRule() {
        var rng = SeededRandom(37)
        for type in FilterRegistry.types {
            func run<F: Filter>(_: F.Type) {
                for _ in 0..<200 {
                    var filter = F()
                    for parameter in F.declaration.parameters {
                        guard let (numbers, values) = TypedParameterTests.randomNumbers(parameter, of: filter, &rng) else { continue }
                        var f = filter
                        if (try? numbers.set(&f, values)) != nil { filter = f }
                    }
                    for scale in [0.1, 0.25, 1.0 / 3, 0.5, 0.77, 2] {
                        let typed = Chain.scaledParameters(filter, by: scale), reference = TypedParameterTests.scaledOverJSON(filter, by: scale)
                        #expect(typed.parametersJSON == reference.parametersJSON, "\(F.typeName) \(JSONWriter.compact(filter.parametersJSON)) x \(scale)")
                    }
                }
            }
            run(type)
        }
    }

    /// The preview-scaling rule as it was written before values were typed: through JSON.
    static func scaledOverJSON<F: Filter>(_ filter: F, by scale: Double) -> F {
        var result = filter
        guard case .object(let members) = filter.parametersJSON.value else { return filter }
        for parameter in F.declaration.parameters where parameter.unit == .pixels {
            guard let value = members.first(where: { $0.key == parameter.name })?.value else { continue }
            let range: ClosedRange<Double>? = if case .number(let r) = parameter.kind { r } else { nil }
            func multiplied(_ node: JSONNode, rounded: Bool) -> JSONNode {
                switch node.value {
                case .number(let v):
                    var scaled = v * scale
                    if rounded { scaled = v == 0 ? 0 : max(1, scaled.rounded()) }
                    if let range { scaled = min(max(scaled, range.lowerBound), range.upperBound) }
                    return JSONNode(.number(scaled))
                case .array(let items): return JSONNode(.array(items.map { multiplied($0, rounded: rounded) }))
                default: return node
                }
            }
            for candidate in [multiplied(value, rounded: false), multiplied(value, rounded: true)] {
                if let set = try? result.setting(parameter.name, to: candidate) { result = set; break }
            }
        }
        return result
    }

    /// Flat numbers in the shape a file writes for `kind`.
    static func shape(_ flat: [Double], _ kind: ParameterKind) -> JSONNode {
        switch kind {
        case .number, .integer, .integerChoice: JSONNode(.number(flat[0]))
        case .matrix(_, let columns, _): JSONNode(.array(stride(from: 0, to: flat.count, by: columns).map { jsonNumbers(Array(flat[$0 ..< $0 + columns])) }))
        default: jsonNumbers(flat)
        }
    }

    /// Every place an expression may stand in a value of `kind`.
    static func slots(_ kind: ParameterKind, depth: Int) -> [[Int]] {
        switch kind {
        case .color: (0..<3).map { [$0] }
        case .point: (0..<2).map { [$0] }
        case .matrix(let rows, let columns, _): (0..<rows).flatMap { r in (0..<columns).map { [r, $0] } }
        default: [[]]
        }
    }
}

extension FilterDeclaration {
    /// A filter whose optional parameter holds a value its kind allows (to learn its shape).
    func decodeNumbersStandIn(_ parameter: Parameter<F>) -> F {
        var f = F()
        try? set(parameter.name, JSONNode(.number(parameter.kind.standIn)), in: &f)
        return f
    }
}
