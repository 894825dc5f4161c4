import Testing
@testable import FilterChain

@Suite struct StepReferenceTests {
    static let chain = Chain(steps: [
        Step(id: "04908702-BC30-49BF-A527-3BDED83C7570", name: "colour", filter: ColorControls()),
        Step(id: "7B6B4855-224C-467F-9CC8-234278CCF634", filter: GaussianBlur()),
    ])

    @Test func digitsArePositionsFirstThenIdPrefixes() throws {
        #expect(try StepReference("0").resolve(in: Self.chain) == 0)
        #expect(try StepReference("2").resolve(in: Self.chain) == 2)
        // Past the last position, digits can still begin an id (ids are hex).
        #expect(try StepReference("049087").resolve(in: Self.chain) == 1)
        #expect(try StepReference("colour").resolve(in: Self.chain) == 1)
        #expect(try StepReference("7b6b").resolve(in: Self.chain) == 2)
        // A call that wrongly succeeds fails here: the error is required, then checked.
        let error = try #require(throws: StepError.self) { try StepReference("9").resolve(in: Self.chain) }
        #expect(error.reason == .noSuchPosition(2))
    }

    @Test func aTypeNamesTheOnlyStepOfThatType() throws {
        // gaussianBlur is unnamed: its type finds it; colour's type works too.
        #expect(try StepReference("gaussianBlur").resolve(in: Self.chain) == 2)
        #expect(try StepReference("colorControls").resolve(in: Self.chain) == 1)
        var two = Self.chain
        two.steps.append(Step(filter: GaussianBlur(sigma: 5)))
        let error = try #require(throws: StepError.self) { try StepReference("gaussianBlur").resolve(in: two) }
        #expect(error.reason == .ambiguous([2, 3]))
        // A name wins over a type.
        two.steps[0].name = "gaussianBlur"
        #expect(try StepReference("gaussianBlur").resolve(in: two) == 1)
    }

    @Test func duplicateNamesAreFound() throws {
        var chain = Self.chain
        #expect(chain.duplicateName == nil)
        chain.steps.append(Step(name: "colour", filter: ToneCurve()))
        #expect(chain.duplicateName! == (0, 2))
        let error = try #require(throws: ChainError.self) { try chain.checkUniqueNames(file: "c.json") }
        #expect(error.description == "c.json: filters[2].name: the name 'colour' is already used by filters[0] (step 1; this is step 3); names must be unique among a chain's steps and images")
    }
}
