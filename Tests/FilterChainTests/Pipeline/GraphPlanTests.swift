import Testing
@testable import FilterChain

/// How graphs are planned: what is evaluated, and the memory their rings take.
@Suite struct GraphPlanTests {
    /// The glow: the source screened with its own blur, then a radial mask.
    static func glow() -> Chain {
        Chain(steps: [
            Step(id: "0F6C0000-0000-4000-8000-000000000001", name: "soft", filter: GaussianBlur(sigma: 10)),
            Step(id: "7A2D0000-0000-4000-8000-000000000002", name: "glow", filter: Blend(layer: "soft", mode: .screen, opacity: 0.5),
                 input: .source),
            Step(id: "C3D40000-0000-4000-8000-000000000003", filter: Exposure(ev: 0.3),
                 mask: Mask(.radial(center: ImagePoint(0.5, 0.45), radius: 0.5, feather: 0.4))),
        ])
    }

    /// An RGB 8-bit image of smooth ramps.
    static func gradient(width: Int, height: Int) throws -> RasterImage {
        var samples: [Int] = []
        for y in 0..<height {
            for x in 0..<width { samples += [x * 255 / max(1, width - 1), y * 255 / max(1, height - 1), (x + y) % 256] }
        }
        return try RasterImage(width: width, height: height, format: PixelFormat(.rgb, .eight), samples: samples)
    }

    static func plan(_ chain: Chain, width: Int, height: Int, strip: Int = 32, taps: [Int]? = nil) throws -> Plan {
        try Plan(chain: ResolvedChain(chain), size: ImageSize(width: width, height: height), hasAlpha: false,
                 taps: taps ?? [chain.steps.count], stripHeight: strip)
    }

    /// Memory does not grow with the image's height: the rings of a 12,000-row image are those
    /// of a 3,000-row one, and none holds the whole image.
    @Test(arguments: [1, 16, 32, 64])
    func glowRingsDoNotGrowWithHeight(strip: Int) throws {
        let short = try Self.plan(Self.glow(), width: 400, height: 3_000, strip: strip)
        let tall = try Self.plan(Self.glow(), width: 400, height: 12_000, strip: strip)
        #expect(short.ringRows == tall.ringRows)
        for (j, rows) in tall.ringRows.enumerated() {
            #expect(rows < 400, "stage \(j) (\(tall.stages[j].label)) holds \(rows) rows")
        }
    }

    /// A wide image through the glow is planned with 16-row strips: at 32 its buffers
    /// (four float planes of every ring row, counted here from the rings themselves) pass the
    /// renderer's budget, and at 16 they are five eighths of that (the blur's window stays). W1's chain on the same image stays
    /// within the budget at 32 and keeps its strips; so does the glow on a narrow image.
    @Test func wideGraphsGetShorterStrips() throws {
        func bytes(_ plan: Plan) -> Int {
            plan.stages.indices.map { j in
                let rows = plan.ringRows[j] > 0 ? plan.ringRows[j] : plan.stages[j].stripHeight
                return rows * ((plan.stages[j].size.width + 7) / 8 * 8) * 16 * (plan.stages[j].savesInput ? 2 : 1)
            }.reduce(0, +)
        }
        func chosen(_ chain: Chain, width: Int) throws -> Plan {
            try Renderer.plan(stripHeight: 32) { strips throws(Plan.StepFailure) in
                try Plan(chain: ResolvedChain(chain), size: ImageSize(width: width, height: 2_880), hasAlpha: false,
                         taps: [chain.steps.count], stripHeight: strips)
            }
        }
        let long = try Self.plan(Self.glow(), width: 5_120, height: 2_880, strip: 32)
        #expect(bytes(long) == long.bufferBytes && long.bufferBytes > Renderer.bufferBudget)
        let glow = try chosen(Self.glow(), width: 5_120)
        #expect(glow.stages.allSatisfy { $0.stripHeight == 16 })
        #expect(bytes(glow) * 8 <= long.bufferBytes * 5, "\(bytes(glow)) against \(long.bufferBytes)")

        let w1 = Chain([ColorControls(saturation: 1.2, brightness: 0.05, contrast: 1.1), GaussianBlur(sigma: 2)])
        #expect(try chosen(w1, width: 5_120).stages.allSatisfy { $0.stripHeight == 32 })
        #expect(try chosen(Self.glow(), width: 1_920).stages.allSatisfy { $0.stripHeight == 32 })
        // A renderer asked for short strips keeps them.
        let seven = try Renderer.plan(stripHeight: 7) { strips throws(Plan.StepFailure) in
            try Plan(chain: ResolvedChain(Self.glow()), size: ImageSize(width: 5_120, height: 2_880), hasAlpha: false,
                     taps: [3], stripHeight: strips)
        }
        #expect(seven.stages.allSatisfy { $0.stripHeight == 7 })
    }

    /// The glow renders the same at 32-row strips (one renderer's default, which here plans
    /// 16) as with 7-row ones on a 3,200-pixel-wide image, whose rings pass the budget too.
    @Test func theShorterStripsGiveTheSameImage() throws {
        let image = try Self.gradient(width: 3_200, height: 300)
        let wide = try Self.plan(Self.glow(), width: 3_200, height: 300, strip: 32)
        #expect(wide.bufferBytes > Renderer.bufferBudget)
        let a = try Renderer(threads: 2).apply(Self.glow(), to: image)
        let b = try Renderer(threads: 2, stripHeight: 7).apply(Self.glow(), to: image)
        #expect(a == b)
    }

    /// A quarter turn reads every row: its input's ring holds the whole image.
    @Test func aQuarterTurnHoldsItsInput() throws {
        let chain = Chain([Rotate(angle: 90)])
        let plan = try Self.plan(chain, width: 50, height: 300)
        #expect(plan.ringRows[0] >= 300)
    }

    /// A step no output needs is not evaluated: a crop that could not apply there fails nothing.
    @Test func stepsNoOutputNeedsAreNotPlanned() throws {
        let chain = Chain(steps: [
            Step(name: "dead", filter: Crop(x: 0, y: 0, width: 500, height: 500)),
            Step(filter: Invert(), input: .source),
        ])
        let plan = try Self.plan(chain, width: 40, height: 30)
        #expect(!plan.stages.contains { $0.label.contains("dead") })
        let image = try Self.gradient(width: 40, height: 30)
        let out = try Renderer(threads: 2).apply(chain, to: image)
        #expect(out.width == 40)
        #expect(throws: RenderError.self) { try Renderer(threads: 2).apply(chain, to: image, step: 1) }
    }

    /// A disabled step passes its input through, and a reference to it sees that.
    @Test func aDisabledStepPassesItsInputThrough() throws {
        let image = try Self.gradient(width: 33, height: 21)
        let renderer = Renderer(threads: 2, stripHeight: 5)
        let chain = Chain(steps: [
            Step(name: "a", filter: Invert()),
            Step(name: "off", enabled: false, filter: Sepia(), input: .source),
            Step(filter: Exposure(ev: 1), input: "off"),
        ])
        let direct = try renderer.apply(Chain([Exposure(ev: 1)]), to: image)
        #expect(try renderer.apply(chain, to: image) == direct)
    }

    /// A step reading the source directly sees the decoded image, whatever came before.
    @Test func aStepMayReadTheSource() throws {
        let image = try Self.gradient(width: 64, height: 48)
        let renderer = Renderer(threads: 3, stripHeight: 7)
        let chain = Chain(steps: [
            Step(filter: GaussianBlur(sigma: 4)),
            Step(filter: Resize(width: 20)),
            Step(filter: Invert(), input: .source),
        ])
        #expect(try renderer.apply(chain, to: image) == renderer.apply(Chain([Invert()]), to: image))
        // And the earlier outputs are still there, from the same evaluation.
        let result = try renderer.render(chain, image: image, outputs: [
            RenderOutput(step: 2, .memory()), RenderOutput(step: 3, .memory()),
        ])
        #expect(result.images[0] == (try renderer.apply(Chain([GaussianBlur(sigma: 4), Resize(width: 20)]), to: image)))
    }
}
