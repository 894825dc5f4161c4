import Foundation
import Testing
@testable import FilterChain

/// Every input a fuzzer (Tests/Fuzz) found a crash with, kept in Tests/Fixtures/fuzz/HARNESS/,
/// run through what that harness does. Under `swift test` (and the sanitizer runs of CI) each
/// must end in a result or a typed error.
@Suite struct FuzzRegressionTests {
    static func files(_ harness: String) -> [String] {
        let folder = TestData.fixtures.appendingPathComponent("fuzz/" + harness).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: files("png") + files("jpeg"))
    func imagesDecodeOrFailWithAnError(_ path: String) throws {
        let bytes = try Self.bytes(path)
        for lenient in [false, true] {
            let options = DecodeOptions(maxPixels: 1 << 22, lenient: lenient)
            do {
                let reader = try ImageReader.open(.bytes(bytes, name: "fuzz"), options: options)
                let pixels = try reader.readAll()
                #expect(pixels.count == reader.info.rowBytes * reader.info.height)
            } catch let error as CodecError {
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test(arguments: files("chain"))
    func chainsParseAndWriteBackOrFailWithAnError(_ path: String) throws {
        let bytes = try Self.bytes(path)
        let chain: Chain
        do { chain = try Chain.parse(bytes, file: "fuzz.json") } catch {
            #expect(!error.description.isEmpty)
            return
        }
        let again = try Chain.parse(Array(chain.jsonText.utf8), file: "again.json")
        #expect(again.jsonText == chain.jsonText)
    }

    @Test(arguments: files("cube"))
    func cubeFilesParseOrFailWithAnError(_ path: String) throws {
        do {
            let lut = try CubeLUT(parsing: try Self.bytes(path))
            #expect(lut.shaper != nil || lut.cube != nil)
            if let cube = lut.cube {
                let n = cube.size
                var finite = true
                for b in 0..<n { for g in 0..<n { for r in 0..<n {
                    let e = cube.entry(r, g, b)
                    finite = finite && e.x.isFinite && e.y.isFinite && e.z.isFinite
                } } }
                #expect(finite, "every entry of an accepted table is finite")
            }
        } catch let error as CubeLUTError {
            #expect(!error.description.isEmpty)
        }
    }

    @Test(arguments: files("step"))
    func stepReferencesResolveInsideTheChain(_ path: String) throws {
        let text = String(decoding: try Self.bytes(path), as: UTF8.self)
        let chain = Chain([ColorControls(), GaussianBlur()])
        do {
            let position = try StepReference(text).resolve(in: chain)
            #expect((0...chain.steps.count).contains(position))
        } catch {
            #expect(!error.description.isEmpty)
        }
    }

    /// The folders exist, so a harness's first crash has a place (and a README says so).
    @Test func everyHarnessHasItsFolder() {
        for harness in ["chain", "png", "jpeg", "step"] {
            #expect(FileManager.default.fileExists(atPath: TestData.fixtures.appendingPathComponent("fuzz/" + harness).path))
        }
    }
}
