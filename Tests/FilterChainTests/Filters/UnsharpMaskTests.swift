import Testing
@testable import FilterChain

/// The unsharp mask's combine kernel and its whole computation (blur passes, then combine),
/// called directly; the render through the pipeline is in UnsharpMaskRenderTests.
@Suite struct UnsharpMaskTests {
    static func combine(_ f: UnsharpMask) -> any CombineKernel {
        guard case .combine(_, let c) = f.operation() else { fatalError("unsharpMask is a combine operation") }
        return c
    }

    /// P' = P + amount (P - B) where |P - B| >= threshold, else P; alpha from the input.
    @Test(arguments: [(0.5, 0.0), (2, 0.0), (10, 0.0), (1, 0.05), (0.3, 0.2)])
    func combineKernel(amount: Double, threshold: Double) {
        let input = Catalogue.randomPixels(101, seed: 1), blurred = Catalogue.randomPixels(101, seed: 2)
        let p = Planes(input), b = Planes(blurred)
        Self.combine(UnsharpMask(sigma: 2, amount: amount, threshold: threshold)).combine(input: p.pixels, into: b.pixels, count: p.count)
        let out = b.values(input.count)
        var expected: [SIMD4<Double>] = []
        for (x, y) in zip(input, blurred) {
            var e = x
            for k in 0..<3 {
                // The kernel works on Float; the comparison with the threshold is made on the
                // Float difference, so compare on the values it saw.
                let d = Double(Float(x[k]) - Float(y[k]))
                if abs(d) >= threshold { e[k] = x[k] + amount * (x[k] - y[k]) }
            }
            expected.append(e)
        }
        #expect(largestDifference(out, expected) < 1e-5 * max(1, amount))
    }

    /// The whole definition without the pipeline: the Gaussian kernel's own passes (direct
    /// and sliding-sum paths) on premultiplied planes, then the combine kernel, then colour
    /// divided by alpha; against the scalar reference within the issue's bounds.
    @Test(arguments: [(1.0, 0.4, 0.0), (2, 0.5, 0), (2, 3, 0.02), (6, 1, 0)])
    func blurThenCombine(sigma: Double, amount: Double, threshold: Double) {
        let (w, h) = (37, 29)
        let input = Catalogue.randomPixels(w * h, seed: 9).map { p in
            SIMD4(min(max(p[0], 0), 1), min(max(p[1], 0), 1), min(max(p[2], 0), 1), p[3] < 0.1 ? 0 : p[3])
        }
        let f = UnsharpMask(sigma: sigma, amount: amount, threshold: threshold)
        guard case .combine(let separable, let combine) = f.operation() else { Issue.record("not a combine"); return }
        let premultiplied = input.map { SIMD4($0[0] * $0[3], $0[1] * $0[3], $0[2] * $0[3], $0[3]) }
        let stride = (w + 7) / 8 * 8
        // Planes row by row, padded to the stride.
        var planes = (0..<4).map { k in
            (0..<h).flatMap { y in (0..<stride).map { x in Float(premultiplied[y * w + min(x, w - 1)][k]) } }
        }
        let original = planes
        let horizontal = separable.makeHorizontalPass(width: w)
        for k in 0..<4 {
            planes[k].withUnsafeMutableBufferPointer { horizontal.run($0.baseAddress!, stride: stride, rowCount: h) }
            let rows = planes[k]
            var out = [Float](repeating: 0, count: stride * h)
            let vertical = separable.makeVerticalPass(width: w, height: h)
            rows.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<h {
                        vertical.run(y: y, input: { src.baseAddress! + min(max($0, 0), h - 1) * stride },
                                     destination: dst.baseAddress! + y * stride, columns: 0..<stride)
                    }
                }
            }
            planes[k] = out
        }
        // Combine row by row.
        var result: [SIMD4<Double>] = []
        for y in 0..<h {
            let inputRow = Planes((0..<w).map { x in SIMD4((0..<4).map { Double(original[$0][y * stride + x]) }) })
            let blurredRow = Planes((0..<w).map { x in SIMD4((0..<4).map { Double(planes[$0][y * stride + x]) }) })
            combine.combine(input: inputRow.pixels, into: blurredRow.pixels, count: inputRow.count)
            result += blurredRow.values(w)
        }
        var img = referenceImage(input)
        img.width = w; img.height = h
        let expected = Reference.unsharpMaskPlanes(img, f)
        // In output levels of 8 bits, on premultiplied values.
        var worst = 0.0, total = 0.0
        for i in 0..<(w * h) {
            for k in 0..<4 {
                let d = abs(result[i][k] - expected[k][i]) * 255
                worst = max(worst, d)
                total += d
            }
        }
        #expect(worst <= 1 + 2 * amount && total / Double(4 * w * h) <= 0.25 * max(1, amount), "max \(worst), mean \(total / Double(4 * w * h))")
        // Alpha is the input's, exactly.
        #expect((0..<(w * h)).allSatisfy { result[$0][3] == Double(Float(input[$0][3])) })
    }

    @Test func neutral() throws {
        try Catalogue.expectIdentity(UnsharpMask(amount: 0))
        let f = UnsharpMask(sigma: 1, amount: 2)
        #expect(f.keepsNeutralNeutral)
        Catalogue.checkNeutral(f)
    }

    @Test func refusals() {
        Catalogue.expectRefusal("unsharpMask", "\"sigma\": 0", "look.json: filters[0].parameters.sigma: 0 is out of range; allowed 0.1...100")
        Catalogue.expectRefusal("unsharpMask", "\"amount\": 11", "look.json: filters[0].parameters.amount: 11 is out of range; allowed 0...10")
        Catalogue.expectRefusal("unsharpMask", "\"threshold\": -0.1", "look.json: filters[0].parameters.threshold: -0.1 is out of range; allowed 0...1")
    }
}
