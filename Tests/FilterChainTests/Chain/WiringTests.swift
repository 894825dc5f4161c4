import Testing
@testable import FilterChain

/// The graph edits the editor's graph view asks for (Chain+Wiring.swift). Each test checks
/// what every step reads afterwards through `Chain.resolve` (the rule chain files are read
/// by), not through the wiring code itself.
@Suite struct WiringTests {
    static let soft = "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"
    static let glow = "1A6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"
    static let lift = "2B6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"
    static let logo = "5B1E1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"

    /// soft (blur) <- glow (blend of soft over the source) <- lift (an unnamed exposure); image logo.
    static var chain: Chain {
        let image = try! RasterImage(width: 2, height: 2, format: PixelFormat(.rgb, .eight), samples: Array(repeating: 9, count: 12))
        return Chain(images: [ChainImage(id: logo, name: "logo", file: "logo.png", image: image)],
                     steps: [Step(id: soft, name: "soft", filter: GaussianBlur(sigma: 12)),
                             Step(id: glow, name: "glow", filter: Blend(layer: "soft", mode: .screen), input: .source),
                             Step(id: lift, filter: Exposure(ev: 0.5))])
    }

    /// What each step reads, by the steps' ids and ports, resolved as a chain file is read:
    /// "input<-source", "layer<-step:SOFT-ID".
    static func reads(_ chain: Chain) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (i, step) in chain.steps.enumerated() {
            result[step.id] = chain.ports(ofStep: i).map { port in
                let node: GraphNode? = switch port {
                case .input: step.input.map { chain.resolve($0, from: i) } ?? (i == 0 ? .source : .step(i - 1))
                case .mask: step.mask?.reference.flatMap { chain.resolve($0, from: i) }
                case .parameter(let name): step.filter.references.first { $0.parameter == name }.flatMap { chain.resolve($0.reference, from: i) }
                }
                return "\(port)<-" + (node.map { chain.key($0).description } ?? "nothing")
            }
        }
        return result
    }

    @Test func wiresListEveryPortAndWhatItReads() {
        let chain = Self.chain
        let wires = chain.wires
        #expect(wires.map { "\($0.step) \($0.port) \($0.reads?.description ?? "-") \($0.implicit)" } == [
            "0 input source true", "1 input source false", "1 layer step:\(Self.soft) false", "2 input step:\(Self.glow) true"])
        #expect(wires[2].reference == "soft" && wires[2].later == nil)
        // A reference to a step below reads nothing, and says which step it names.
        var down = chain
        down.steps[0].input = "glow"
        #expect(down.wires[0].reads == nil && down.wires[0].later == .step(Self.glow))
        #expect(NodeKey("step:\(Self.soft.lowercased())") == .step(Self.soft) && NodeKey("image:x") == .image("X")
            && NodeKey("source") == .source && NodeKey("soft") == nil && NodeKey("pipe:x") == nil)
        #expect(StepPort("input") == .input && StepPort("mask") == .mask && StepPort("layer") == .parameter("layer"))
        #expect(StepPort.mask.path == "mask.source" && StepPort("layer").path == "parameters.layer")
    }

    @Test func aWireToALaterStepMovesAsFewStepsAsItCan() throws {
        // glow reads the source and its layer; lift (first) reads the source. Wiring lift's
        // output to glow's layer puts glow below lift.
        var chain = Chain(steps: [Step(id: Self.glow, name: "glow", filter: Blend(layer: .source), input: .source),
                                  Step(id: Self.lift, filter: Exposure(ev: 1), input: .source)])
        let moved = try chain.connect(.step(Self.lift), toStep: Self.glow.lowercased(), port: .parameter("layer"), file: "c.json")
        #expect(moved)
        #expect(chain.steps.map(\.id) == [Self.lift, Self.glow])
        #expect(Self.reads(chain) == [Self.lift: ["input<-source"], Self.glow: ["input<-source", "layer<-step:\(Self.lift)"]])
        // lift moved to the top, where "source" is its default input: left out.
        #expect(chain.steps[0].input == nil && chain.steps[1].input == .source)
        // An unnamed step is written by its id.
        #expect((chain.steps[1].filter as! Blend).layer == FilterChain.Reference(Self.lift))
        try chain.checkGraph(file: "c.json")
        // A wire that needs no move.
        #expect(try !chain.connect(.source, toStep: Self.glow, port: .parameter("layer"), file: "c.json"))
        #expect((chain.steps[1].filter as! Blend).layer == .source)
    }

    @Test func aWireThatWouldMakeACycleIsRefusedWithTheReadsNamed() {
        var chain = Self.chain
        // lift reads glow, glow reads soft: soft cannot read lift.
        let error = #expect(throws: ChainError.self) {
            try chain.connect(.step(Self.lift), toStep: Self.soft, port: .input, file: "c.json")
        }
        #expect(error?.message == "refused: a wire from step 3 (exposure) to the input of step 1 (soft) would make a cycle: "
            + "step 3 (exposure) reads step 2 (glow), step 2 (glow) reads step 1 (soft), and step 1 (soft) would read step 3 (exposure)")
        #expect(Self.reads(chain) == Self.reads(Self.chain))
        let itself = #expect(throws: ChainError.self) { try chain.connect(.step(Self.soft), toStep: Self.soft, port: .input, file: "c.json") }
        #expect(itself?.message == "refused: step 1 (soft) cannot read itself")
        let port = #expect(throws: ChainError.self) { try chain.connect(.source, toStep: Self.soft, port: .parameter("layer"), file: "c.json") }
        #expect(port?.message == "refused: step 1 (soft) has no port layer; it has input")
        #expect(throws: ChainError.self) { try chain.connect(.image("NOPE"), toStep: Self.lift, port: .input, file: "c.json") }
    }

    @Test func connectingAnImageAndTheMaskPort() throws {
        var chain = Self.chain
        try chain.connect(.image(Self.logo), toStep: Self.lift, port: .input, file: "c.json")
        #expect(chain.steps[2].input == "logo")
        chain.steps[2].mask = Mask(.image(source: "logo", channel: .alpha, placement: .default))
        try chain.connect(.step(Self.soft), toStep: Self.lift, port: .mask, file: "c.json")
        #expect(chain.steps[2].mask == Mask(.image(source: "soft", channel: .alpha, placement: .default)))
        try chain.checkGraph(file: "c.json")
    }

    @Test func disconnectingPutsAnInputBackAtTheStepAboveAndRefusesALayer() throws {
        var chain = Self.chain
        try chain.disconnect(step: Self.glow, port: .input, file: "c.json")
        #expect(Self.reads(chain)[Self.glow] == ["input<-step:\(Self.soft)", "layer<-step:\(Self.soft)"])
        let again = #expect(throws: ChainError.self) { try chain.disconnect(step: Self.glow, port: .input, file: "c.json") }
        #expect(again?.message == "the input of step 2 (glow) is already the default, the step above it")
        let layer = #expect(throws: ChainError.self) { try chain.disconnect(step: Self.glow, port: .parameter("layer"), file: "c.json") }
        #expect(layer?.message == "refused: the layer of step 2 (glow) is required; wire another node to it instead")
    }

    @Test func aStepPutIntoAWireTakesItsPlaceAndTheOthersKeepWhatTheyRead() throws {
        var chain = Self.chain
        let haze = Step(id: "3C6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", name: "haze", filter: Gamma(power: 2))
        // Between glow's layer and soft, just above glow.
        try chain.insert(haze, at: 1, reads: [.input: .step(Self.soft)], feeds: [(Self.glow, .parameter("layer"))], file: "c.json")
        #expect(chain.steps.map(\.name) == ["soft", "haze", "glow", nil])
        #expect(Self.reads(chain)[haze.id] == ["input<-step:\(Self.soft)"])
        #expect(Self.reads(chain)[Self.glow] == ["input<-source", "layer<-step:\(haze.id)"])
        #expect(Self.reads(chain)[Self.lift] == ["input<-step:\(Self.glow)"])
        #expect(chain.steps[1].input == nil, "the step above is the default, left out")
        // Above lift, which read glow as the step above: it now names glow.
        let dim = Step(id: "4D6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", filter: Exposure(ev: -1))
        try chain.insert(dim, at: 3, reads: [.input: .source], file: "c.json")
        #expect(Self.reads(chain)[Self.lift] == ["input<-step:\(Self.glow)"] && chain.steps[4].input == "glow")
        #expect(Self.reads(chain)[dim.id] == ["input<-source"])
        try chain.checkGraph(file: "c.json")
        #expect(throws: ChainError.self) { try chain.insert(dim, at: 0, file: "c.json") }   // its id is taken
    }

    @Test func removingAStepRewiresWhatReadItToItsInput() throws {
        var chain = Self.chain
        try chain.removeStepRewiring(at: 0, file: "c.json")
        #expect(Self.reads(chain) == [Self.glow: ["input<-source", "layer<-source"], Self.lift: ["input<-step:\(Self.glow)"]])
        chain = Self.chain
        chain.layout[Self.glow] = NodePosition(10, 20)
        try chain.removeStepRewiring(at: 1, file: "c.json")
        // lift read glow as the step above; glow read the source.
        #expect(Self.reads(chain) == [Self.soft: ["input<-source"], Self.lift: ["input<-source"]])
        #expect(chain.steps[1].input == .source && chain.layout.isEmpty)
        try chain.checkGraph(file: "c.json")
    }

    @Test func renamingAStepTakesTheReferencesAlong() throws {
        var chain = Self.chain
        try chain.rename(stepAt: 0, to: "haze", file: "c.json")
        #expect((chain.steps[1].filter as! Blend).layer == "haze" && chain.steps[0].name == "haze")
        try chain.rename(stepAt: 0, to: nil, file: "c.json")
        #expect((chain.steps[1].filter as! Blend).layer == FilterChain.Reference(Self.soft))
        try chain.checkGraph(file: "c.json")
        let taken = #expect(throws: ChainError.self) { try chain.rename(stepAt: 2, to: "glow", file: "c.json") }
        #expect(taken?.path == "filters[2].name")
        #expect(chain.steps[2].name == nil)
    }

    @Test func aVersion1ChainThatNeedsVersion2IsReadAsVersion2OnlyWhenUpgrading() throws {
        let text = #"{"version": 1, "filters": [{"id": "\#(Self.soft)", "type": "exposure", "input": "source"}]}"#
        let refused = #expect(throws: ChainError.self) { try Chain.parse(Array(text.utf8), file: "c.json") }
        #expect(refused.map { if case .needsVersion2 = $0.problem { true } else { false } } == true)
        let chain = try Chain.parse(Array(text.utf8), file: "c.json", upgrading: true)
        #expect(chain.steps[0].input == .source && chain.needsVersion2)
        let bad = #"{"version": 1, "filters": [{"id": "\#(Self.soft)", "type": "exposure", "input": 3}]}"#
        #expect(throws: ChainError.self) { try Chain.parse(Array(bad.utf8), file: "c.json", upgrading: true) }
    }
}
