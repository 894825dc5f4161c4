import Foundation
import Testing
@testable import FilterChain

/// Editing a chain's graph at the library level (`filterchain chain` sits on these): every
/// refused edit leaves the chain as it was.
@Suite struct GraphEditingTests {
    /// soft (blur) <- glow (blend of soft over the source) <- an unnamed exposure; image logo.
    static var chain: Chain {
        let logo = try! RasterImage(width: 2, height: 2, format: PixelFormat(.rgb, .eight), samples: Array(repeating: 9, count: 12))
        return Chain(images: [ChainImage(id: "5B1E1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", name: "logo", file: "logo.png", image: logo)],
                     steps: [Step(id: "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", name: "soft", filter: GaussianBlur(sigma: 12)),
                             Step(name: "glow", filter: Blend(layer: "soft", mode: .screen), input: .source),
                             Step(filter: Exposure(ev: 0.5))])
    }

    @Test func inputMaskAndObjectFieldsAreSetByKey() throws {
        var chain = Self.chain
        try chain.set([("input", JSONNode(.string("glow"))), ("mask.type", JSONNode(.string("radial"))),
                       ("mask.radius", JSONNode(.number(0.4)))], atStep: 2, file: "c.json")
        #expect(chain.steps[2].input == "glow")
        #expect(chain.steps[2].mask == Mask(.radial(center: ImagePoint(0.5, 0.5), radius: 0.4, feather: 0.5)))
        try chain.checkGraph(file: "c.json")
        // Another type starts at its defaults, keeping invert and opacity; its required
        // fields may follow the type.
        try chain.set([("mask.opacity", JSONNode(.number(0.5))), ("mask.type", JSONNode(.string("image"))),
                       ("mask.source", JSONNode(.string("logo"))), ("mask.placement.gravity", JSONNode(.string("north")))],
                      atStep: 2, file: "c.json")
        #expect(chain.steps[2].mask == Mask(.image(source: "logo", channel: .luminance, placement: Placement(gravity: .north)), opacity: 0.5))
        // A field of a blend's object parameter.
        try chain.set("placement.offset", to: Chain.parameterValue("[3,4]"), atStep: 1, file: "c.json")
        try chain.set("placement.gravity", to: JSONNode(.string("southEast")), atStep: 1, file: "c.json")
        #expect((chain.steps[1].filter as! Blend).placement == Placement(gravity: .southEast, offset: (3, 4)))
        // null takes input and mask away.
        try chain.set([("input", JSONNode(.null)), ("mask", JSONNode(.null))], atStep: 2, file: "c.json")
        #expect(chain.steps[2].input == nil && chain.steps[2].mask == nil)
    }

    @Test func badKeysAndValuesLeaveTheStepAsItWas() throws {
        var chain = Self.chain
        let radius = try #require(throws: ChainError.self) {
            try chain.set([("mask.type", JSONNode(.string("radial"))), ("mask.radius", JSONNode(.number(5)))], atStep: 2, file: "c.json")
        }
        #expect(radius.path == "filters[2].mask.radius" && radius.problem == .outOfRange(5, 0...2))
        #expect(chain.steps[2].mask == nil)
        let noType = try #require(throws: ChainError.self) { try chain.set("mask.radius", to: JSONNode(.number(1)), atStep: 2, file: "c.json") }
        #expect(noType.path == "filters[2].mask" && noType.problem == .missingKey("type"))
        let input = try #require(throws: ChainError.self) { try chain.set("input", to: JSONNode(.number(2)), atStep: 2, file: "c.json") }
        #expect(input.path == "filters[2].input")
        let gravity = try #require(throws: ChainError.self) {
            try chain.set("placement.gravity", to: JSONNode(.string("up")), atStep: 1, file: "c.json")
        }
        #expect(gravity.path == "filters[1].parameters.placement.gravity")
        #expect(throws: ChainError.self) { try chain.set("input", to: JSONNode(.string("x")), atStep: 3, file: "c.json") }
        // A reference set by key is checked with the graph.
        try chain.set("input", to: JSONNode(.string("glow")), atStep: 0, file: "c.json")
        let forward = try #require(throws: ChainError.self) { try chain.checkGraph(file: "c.json") }
        #expect(forward.path == "filters[0].input")
    }

    @Test func aReadStepCannotBeRemoved() throws {
        var chain = Self.chain
        let e = try #require(throws: ChainError.self) { try chain.removeStep(at: 0, file: "c.json") }
        #expect(e.path == "filters[0]" && e.problem == .referenced("step 1 (soft)", readers: ["step 2 (glow) in parameters.layer"]))
        #expect(e.message == "step 1 (soft) is read by step 2 (glow) in parameters.layer; change or remove that step first")
        #expect(chain.steps.count == 3)
        // Steps read only as "the step above" may go.
        try chain.removeStep(at: 1, file: "c.json")
        try chain.removeStep(at: 0, file: "c.json")
        #expect(chain.steps.map(\.type) == ["exposure"])
    }

    @Test func aMoveMayNotPutAStepAtOrBelowAStepThatReadsIt() throws {
        var chain = Self.chain
        let down = try #require(throws: ChainError.self) { try chain.moveStep(from: 0, to: 2, file: "c.json") }
        #expect(down.problem == .moveBreaksReferences("step 1 (soft)", to: 3, broken: ["step 2 (glow) reads step 1 (soft) in parameters.layer"]))
        #expect(down.message.hasPrefix("moving step 1 (soft) to 3 would break what steps read: step 2 (glow) reads step 1 (soft) in parameters.layer;"))
        let up = try #require(throws: ChainError.self) { try chain.moveStep(from: 1, to: 0, file: "c.json") }
        #expect(up.path == "filters[1]")
        #expect(chain.steps.map(\.label) == ["soft", "glow", "exposure"])
        try chain.moveStep(from: 2, to: 0, file: "c.json")
        #expect(chain.steps.map(\.label) == ["exposure", "soft", "glow"])
        // glow may go anywhere below soft.
        #expect(throws: ChainError.self) { try chain.moveStep(from: 2, to: 1, file: "c.json") }
        try chain.moveStep(from: 1, to: 0, file: "c.json")
        #expect(chain.steps.map(\.label) == ["soft", "exposure", "glow"])
    }

    @Test func imagesAreAddedAndRemovedUnlessRead() throws {
        var chain = Self.chain
        let pixels = try RasterImage(width: 1, height: 1, format: PixelFormat(.rgb, .eight), samples: [1, 2, 3])
        try chain.addImage(ChainImage(name: "paper", file: "paper.png", image: pixels), relativeTo: ".", file: "c.json")
        #expect(chain.images.map(\.name) == ["logo", "paper"])
        let taken = try #require(throws: ChainError.self) {
            try chain.addImage(ChainImage(name: "glow", file: "x.png", image: pixels), relativeTo: ".", file: "c.json")
        }
        #expect(taken.path == "images[2].name" && taken.problem == .duplicateName("glow", first: "filters[1] (step 2)"))
        let missing = try #require(throws: ChainError.self) {
            try chain.addImage(ChainImage(file: "no-such-file.png"), relativeTo: "/nonexistent", file: "c.json")
        }
        #expect(missing.problem == .imageFile(file: "no-such-file.png", reason: "no such file"))
        chain.steps[2].mask = Mask(.image(source: "paper", channel: .alpha, placement: .default))
        let read = try #require(throws: ChainError.self) { try chain.removeImage("paper", file: "c.json") }
        #expect(read.message == "image paper is read by step 3 (exposure) in mask.source; change or remove that step first")
        let unknown = try #require(throws: ChainError.self) { try chain.removeImage("lgo", file: "c.json") }
        #expect(unknown.problem == .notAllowed("\"lgo\"", allowed: "an image's id or name: logo, paper", suggestion: "logo"))
        try chain.removeImage("5b1e1b9e-3c1a-4d2b-8e57-6a1f0b2c3d41", file: "c.json")
        #expect(chain.images.map(\.name) == ["paper"])
    }
}
