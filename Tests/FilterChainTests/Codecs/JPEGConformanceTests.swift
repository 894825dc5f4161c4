import Foundation
import Testing
@testable import FilterChain

/// libjpeg-turbo's test images and its fuzzed corpus (../shared/conformance/jpeg).
@Suite struct JPEGConformanceTests {
    /// A binary PPM (P6, maxval 255).
    static func readPPM(_ url: URL) throws -> (width: Int, height: Int, samples: [Int]) {
        let data = [UInt8](try Data(contentsOf: url))
        var fields: [String] = []
        var i = 0
        while fields.count < 4 {
            while data[i] == UInt8(ascii: "#") || (data[i] as UInt8).isWhitespace {
                if data[i] == UInt8(ascii: "#") { while data[i] != 10 { i += 1 } }
                i += 1
            }
            var token = ""
            while !(data[i] as UInt8).isWhitespace { token.append(Character(UnicodeScalar(data[i]))); i += 1 }
            fields.append(token)
        }
        i += 1
        #expect(fields[0] == "P6" && fields[3] == "255")
        let w = Int(fields[1])!, h = Int(fields[2])!
        return (w, h, data[i..<(i + w * h * 3)].map(Int.init))
    }

    @Test func baselineDecodesWithinThreeOfTheSource() throws {
        let (pixels, info) = try Pixels.read(TestData.jpegImages.appendingPathComponent("testorig.jpg").path)
        let ppm = try Self.readPPM(TestData.jpegImages.appendingPathComponent("testorig.ppm"))
        #expect(info.width == ppm.width && info.height == ppm.height)
        #expect(info.format == PixelFormat(.rgb, .eight))
        let worst = zip(pixels.samples, ppm.samples).map { abs($0 - $1) }.max() ?? 999
        #expect(worst <= 3, "largest difference \(worst)")
    }

    @Test func arithmeticCodingDecodesLikeHuffman() throws {
        let (huffman, _) = try Pixels.read(TestData.jpegImages.appendingPathComponent("testimgint.jpg").path)
        let (arithmetic, _) = try Pixels.read(TestData.jpegImages.appendingPathComponent("testimgari.jpg").path)
        #expect(huffman == arithmetic)
    }

    static let fuzzFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: TestData.jpegFuzz.path)) ?? [])
        .filter { $0.hasSuffix(".jpg") }.sorted()

    /// Every fuzzed file decodes or throws a CodecError: no crash, no hang. Strict and lenient
    /// both; the limit keeps absurd headers from taking the test's time.
    @Test func fuzzedCorpusDecodesOrThrows() throws {
        #expect(Self.fuzzFiles.count == 879)
        var decoded = 0, rejected = 0, lenientDecoded = 0
        for name in Self.fuzzFiles {
            let path = TestData.jpegFuzz.appendingPathComponent(name).path
            for lenient in [false, true] {
                do {
                    _ = try Pixels.read(path, options: DecodeOptions(maxPixels: 4_000_000, lenient: lenient))
                    if lenient { lenientDecoded += 1 } else { decoded += 1 }
                } catch let error as CodecError {
                    #expect(!error.message.isEmpty)
                    if !lenient { rejected += 1 }
                }
            }
        }
        #expect(decoded + rejected == 879)
        // Lenient decoding gets through at least everything strict decoding does.
        #expect(lenientDecoded >= decoded)
        print("fuzz corpus: \(decoded) decoded, \(rejected) rejected strictly; \(lenientDecoded) decoded leniently")
    }
}

private extension UInt8 {
    var isWhitespace: Bool { self == 32 || self == 10 || self == 13 || self == 9 }
}
