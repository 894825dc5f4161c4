import Foundation
import Testing
@testable import FilterChain

/// The contract every registered format keeps: found by its extensions and by its own first
/// bytes, options whose defaults are allowed, layouts it can hold.
@Suite struct CodecRegistryTests {
    static let writable = CodecRegistry.writable.map(\.format)

    @Test(arguments: writable)
    func aFormatIsSniffedFromWhatItWrites(format: ImageFormat) throws {
        let image = Pixels.random(width: 19, height: 7, format: PixelFormat(.rgb, .eight), seed: 3)
        let buffer = OutputBuffer()
        try image.write(to: .memory(buffer), format: format)
        #expect(try ImageFormat.sniff(Array(buffer.bytes.prefix(32))).get() == format)
        let reader = try ImageReader.open(.bytes(buffer.bytes, name: "x"))
        #expect(reader.info.sourceFormat == format)
        #expect(reader.info.width == 19 && reader.info.height == 7)
        for ext in format.declaration.extensions {
            #expect(ImageFormat(pathExtension: ext.uppercased()) == format)
            #expect(try EncodeOptions().resolvedFormat(for: .file("a/b." + ext)) == format)
        }
        #expect(ImageFormat(rawValue: format.id) == format)
    }

    @Test func registeredFormatsDifferInNameAndExtension() {
        let ids = CodecRegistry.declarations.map(\.format.id)
        let extensions = CodecRegistry.declarations.flatMap(\.extensions)
        #expect(Set(ids).count == ids.count)
        #expect(Set(extensions).count == extensions.count)
        #expect(ImageFormat(pathExtension: "bmp") == nil && ImageFormat(rawValue: "bmp") == nil)
    }

    @Test(arguments: CodecRegistry.declarations.map(\.format))
    func declaredDefaultsAreAllowedAndOutOfRangeValuesAreNot(format: ImageFormat) throws {
        for option in format.declaration.options {
            #expect(option.problem(with: option.defaultValue) == nil, "\(format.id) \(option.name)")
            if case .integer(let range) = option.kind {
                #expect(option.problem(with: .integer(range.upperBound + 1)) != nil)
                #expect(option.problem(with: .integer(range.lowerBound - 1)) != nil)
            }
            #expect(option.flag.hasPrefix("--") && !option.flag.contains(where: \.isUppercase))
        }
    }

    /// Whatever the input, the layout an output gets is one its format holds.
    @Test(arguments: writable)
    func outputLayoutsAreWhatTheFormatHolds(format: ImageFormat) {
        for channels in Channels.allCases {
            for depth in BitDepth.allCases {
                for wanted in [nil, BitDepth.eight, .sixteen] {
                    for neutral in [false, true] {
                        let input = PixelFormat(channels, depth)
                        let layout = OutputLayout.resolve(input: input, output: format, depth: wanted,
                                                          background: .white, neutral: neutral)
                        #expect(format.capabilities.holds(layout.format), "\(format.id) \(input) -> \(layout.format)")
                        #expect((layout.background != nil) == (channels.hasAlpha && !format.capabilities.alpha))
                        // Float input is written as float where the format holds float (TIFF,
                        // JPEG XL), else as 16 bits where it holds 16.
                        if format.capabilities.sixteenBit {
                            let holdsFloat = format.capabilities.depths.contains(.float32)
                            #expect(layout.format.depth == (wanted ?? (depth.isFloat && !holdsFloat ? .sixteen : depth)))
                        }
                    }
                }
            }
        }
    }

    @Test func unknownSettingsAndValuesNoFormatAllowsAreRefused() {
        #expect(throws: RenderError.self) { try EncodeOptions(settings: ["sharpness": 3]).validate() }
        #expect(throws: RenderError.self) { try EncodeOptions(settings: ["quality": 101]).validate() }
        #expect(throws: RenderError.self) { try EncodeOptions(settings: ["chroma": "4:1:1"]).validate() }
        #expect(throws: RenderError.self) { try EncodeOptions(settings: ["progressive": 1]).validate() }
        // A setting the format does not take is ignored by the library (the tool refuses it).
        #expect(throws: Never.self) { try EncodeOptions(settings: ["quality": 50]).validate(for: .png) }
    }

    /// A JPEG source's own quality and chroma are the defaults for JPEG outputs, and for TIFF's
    /// JPEG compression (which means what a .jpg output means), and for no other format.
    @Test func sourceQualityIsTheDefaultForJPEGOutputsOnly() throws {
        let image = try RasterImage(width: 16, height: 16, format: PixelFormat(.rgb, .eight),
                                    pixels: Pixels.random(width: 16, height: 16, format: PixelFormat(.rgb, .eight)).bytes)
        let jpeg = try RasterImage(decoding: try image.encoded(as: .jpeg, options: EncodeOptions(quality: 77, chroma: .yuv444)))
        let used = Dictionary(uniqueKeysWithValues: EncodeOptions().settingsUsed(by: .jpeg, source: jpeg.metadata).map { ($0.name, $0.value) })
        #expect(used["quality"] == 77 && used["chroma"] == "4:4:4" && used["progressive"] == false)
        let given = Dictionary(uniqueKeysWithValues: EncodeOptions(quality: 60).settingsUsed(by: .jpeg, source: jpeg.metadata).map { ($0.name, $0.value) })
        #expect(given["quality"] == 60)
        for format in Self.writable where format != .jpeg {
            for (name, value) in EncodeOptions().settingsUsed(by: format, source: jpeg.metadata) {
                if format == .tiff && (name == "quality" || name == "chroma") {
                    #expect(value == used[name], "\(format.id) \(name)")
                } else {
                    #expect(value == format.declaration.option(named: name)!.defaultValue, "\(format.id) \(name)")
                }
            }
        }
    }
}
