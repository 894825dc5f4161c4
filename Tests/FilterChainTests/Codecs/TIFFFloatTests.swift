import Foundation
import Testing
@testable import FilterChain

/// Floating-point TIFF samples (SampleFormat 3): read as 32-bit floats, unclamped, into the
/// float pipeline. The files are written by hand (uncompressed strips), so every sample is
/// known; the references are the formulas of filters.md and README's TIFF section, computed
/// here in Double.
@Suite struct TIFFFloatTests {
    /// An uncompressed float TIFF, one strip: `samples` in stored order (planes one after
    /// another when `separate`), each encoded as `bits` 16 (half), 32 or 64.
    static func file(width: Int, height: Int, samplesPerPixel: Int, bits: Int, photometric: UInt16,
                     samples: [[UInt8]], separate: Bool = false, extraSample: UInt16? = nil,
                     icc: [UInt8]? = nil) -> [UInt8] {
        var b = TestTIFFBuilder()
        let data = samples.flatMap { $0 }
        let strip = b.append(data)
        var entries: [TestTIFFBuilder.Entry] = [
            TestTIFFBuilder.long(256, UInt32(width)), TestTIFFBuilder.long(257, UInt32(height)),
            (258, 3, UInt32(samplesPerPixel), (0..<samplesPerPixel).flatMap { _ in TestTIFFBuilder.le16(UInt16(bits)) }),
            TestTIFFBuilder.short(259, 1), TestTIFFBuilder.short(262, photometric),
            TestTIFFBuilder.long(273, strip), TestTIFFBuilder.short(277, UInt16(samplesPerPixel)),
            TestTIFFBuilder.long(278, UInt32(height)), TestTIFFBuilder.long(279, UInt32(data.count)),
            TestTIFFBuilder.short(284, separate ? 2 : 1),
            (339, 3, UInt32(samplesPerPixel), (0..<samplesPerPixel).flatMap { _ in TestTIFFBuilder.le16(3) }),
        ]
        if separate {
            // One strip per plane.
            let planeBytes = data.count / samplesPerPixel
            entries.removeAll { $0.tag == 273 || $0.tag == 279 }
            entries.append((273, 4, UInt32(samplesPerPixel),
                            (0..<samplesPerPixel).flatMap { TestTIFFBuilder.le32(strip + UInt32($0 * planeBytes)) }))
            entries.append((279, 4, UInt32(samplesPerPixel),
                            (0..<samplesPerPixel).flatMap { _ in TestTIFFBuilder.le32(UInt32(planeBytes)) }))
        }
        if let extraSample { entries.append(TestTIFFBuilder.short(338, extraSample)) }
        if let icc { entries.append((34675, 7, UInt32(icc.count), icc)) }
        b.setFirstIFD(b.ifd(entries))
        return b.bytes
    }

    /// The SHORT-valued tags of a little-endian TIFF's first IFD, read by hand.
    static func shortTags(of b: [UInt8]) -> [Int: [Int]] {
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        guard b.count > 8, b[0] == 0x49, b[1] == 0x49 else { return [:] }
        let ifd = u32(4)
        var tags: [Int: [Int]] = [:]
        for e in 0..<u16(ifd) {
            let at = ifd + 2 + 12 * e
            guard u16(at + 2) == 3 else { continue }   // SHORT
            let count = u32(at + 4)
            let values = count <= 2 ? at + 8 : u32(at + 8)
            tags[u16(at)] = (0..<count).map { u16(values + 2 * $0) }
        }
        return tags
    }

    static func float32(_ v: Float) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } }
    static func float64(_ v: Double) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } }
    static func half(_ bits: UInt16) -> [UInt8] { TestTIFFBuilder.le16(bits) }

    static func grey(_ values: [Float], icc: [UInt8]? = nil) -> [UInt8] {
        file(width: values.count, height: 1, samplesPerPixel: 1, bits: 32, photometric: 1, samples: values.map(float32), icc: icc)
    }

    static func decoded(_ bytes: [UInt8]) throws -> (PixelFormat, [Float]) {
        let image = try RasterImage(decoding: bytes, name: "float.tif")
        return (image.format, image.values)
    }

    @Test func samplesAreReadAsTheyAreStored() throws {
        let values: [Float] = [-0.5, 0, 0.3, 1, 2, 1e-8, -1e6]
        let (format, decoded) = try Self.decoded(Self.grey(values))
        #expect(format == PixelFormat(.grey, .float32))
        #expect(decoded == values)
    }

    /// Half (binary16) and double samples become the same values as 32-bit floats: halves
    /// exactly (subnormals, the largest half, infinity), doubles rounded to float.
    @Test func halfAndDoubleSamples() throws {
        // 1, -2, 0.5, 65504 (the largest), 2^-24 (the smallest subnormal), 3 * 2^-24, +inf.
        let halves: [UInt16] = [0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0x0003, 0x7C00]
        let expected: [Float] = [1, -2, 0.5, 65504, 0x1p-24, 3 * 0x1p-24, .infinity]
        let (_, fromHalves) = try Self.decoded(Self.file(width: halves.count, height: 1, samplesPerPixel: 1, bits: 16,
                                                         photometric: 1, samples: halves.map(Self.half)))
        #expect(fromHalves == expected)
        let doubles: [Double] = [0.1, -3.5, 1.25e10]
        let (format, fromDoubles) = try Self.decoded(Self.file(width: 3, height: 1, samplesPerPixel: 1, bits: 64,
                                                               photometric: 1, samples: doubles.map(Self.float64)))
        #expect(format.depth == .float32)
        #expect(fromDoubles == doubles.map { Float($0) })
    }

    /// White-is-zero grey is 1 - v; associated alpha is divided out (0 where alpha is 0);
    /// separate planes are interleaved.
    @Test func layouts() throws {
        let (_, white) = try Self.decoded(Self.file(width: 2, height: 1, samplesPerPixel: 1, bits: 32, photometric: 0,
                                                    samples: [0.25, 1.5].map(Self.float32)))
        #expect(white == [0.75, -0.5])
        let rgba: [Float] = [0.2, 0.4, 0.6, 0.5, 0.3, 0.3, 0.3, 0]
        let (format, straight) = try Self.decoded(Self.file(width: 2, height: 1, samplesPerPixel: 4, bits: 32, photometric: 2,
                                                            samples: rgba.map(Self.float32), extraSample: 1))
        #expect(format == PixelFormat(.rgba, .float32))
        let unpremultiplied: [Float] = [rgba[0] / rgba[3], rgba[1] / rgba[3], rgba[2] / rgba[3], rgba[3], 0, 0, 0, 0]
        #expect(straight == unpremultiplied)
        let planes: [Float] = [1, 2, 3, 4, 5, 6]  // R of both pixels, then G, then B
        let (_, interleaved) = try Self.decoded(Self.file(width: 2, height: 1, samplesPerPixel: 3, bits: 32, photometric: 2,
                                                          samples: planes.map(Self.float32), separate: true))
        #expect(interleaved == [1, 3, 5, 2, 4, 6])
    }

    /// Values outside [0, 1] reach the filters: exposure -1 halves 2.0 to 1.0 (full white, not
    /// the 0.5 a clamped read would give); the written 16-bit image is clamped only there.
    @Test func valuesBeyondOneReachTheFilters() throws {
        let values: [Float] = [-0.5, 0.3, 1, 2, 1.6]
        let renderer = Renderer(threads: 2)
        let source = ImageSource.bytes(Self.grey(values), name: "float.tif")
        let halved = try renderer.images(Chain([Exposure(ev: -1)]), source: source, depth: .sixteen).final
        let expected = values.map { v -> Int in Int((min(max(Double(v) / 2, 0), 1) * 65535).rounded()) }
        #expect(halved.format == PixelFormat(.grey, .sixteen))
        #expect(halved.samples == expected)
        // In memory with no depth asked, the output keeps float, unclamped.
        let kept = try renderer.images(Chain([Exposure(ev: -1)]), source: source).final
        #expect(kept.format == PixelFormat(.grey, .float32))
        #expect(kept.values == values.map { $0 / 2 })
    }

    /// A float image is written as float (SampleFormat 3, 32 bits; the floating-point
    /// predictor with LZW, deflate and zstd): every compression but jpeg gives back its bits,
    /// values beyond [0, 1] included; a render of a float TIFF to a TIFF file writes what the
    /// render keeps in memory; the file's tags say float.
    @Test(arguments: ["none", "lzw", "deflate", "zstd"])
    func floatIsWrittenAsFloat(compression: String) throws {
        let folder = NSTemporaryDirectory() + "fc-tiff-float-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let options = EncodeOptions(settings: ["tiffCompression": .choice(compression)])
        for channels in [Channels.grey, .greyAlpha, .rgb, .rgba] {
            let w = 41, h = 19, n = channels.count
            let values = (0..<(w * h * n)).map { i -> Float in
                channels.hasAlpha && i % n == n - 1 ? Float(i % 7) / 6 : -0.5 + 3 * Float((i * 37) % 101) / 100
            }
            let image = try RasterImage(width: w, height: h, format: PixelFormat(channels, .float32),
                                        pixels: values.withUnsafeBytes { Array($0) })
            let path = folder + "/\(channels.count).tif"
            try image.write(to: path, options: options)
            let back = try RasterImage(contentsOf: path)
            #expect(back.format == image.format && back.pixels == image.pixels, "\(compression) \(channels)")
            // The tags, as libtiff wrote them: 32 bits a sample, SampleFormat 3.
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let tags = Self.shortTags(of: bytes)
            #expect(tags[258]?.first == 32 && tags[339]?.first == 3, "\(compression) \(channels): \(tags[258] ?? []) \(tags[339] ?? [])")
            if compression != "none" { #expect(tags[317]?.first == 3, "the floating-point predictor") }
        }
        let source = ImageSource.bytes(Self.grey([-0.5, 0.3, 1, 2, 1.6]), name: "float.tif")
        let renderer = Renderer(threads: 2)
        let result = try renderer.render(Chain([Exposure(ev: -1)]), source: source,
                                         outputs: [RenderOutput(step: 1, .file(.file(folder + "/out.tif"), options)),
                                                   RenderOutput(step: 1, .memory())])
        let written = try RasterImage(contentsOf: folder + "/out.tif")
        #expect(written.format == PixelFormat(.grey, .float32) && written.pixels == result.images[1]?.pixels)
        #expect(written.values == [-0.25, 0.15, 0.5, 1, 0.8])
    }

    /// The editor's and previews' downscale averages the values as they are and clamps the
    /// average; a contact sheet's thumbnail reads them too.
    @Test func previewsTakeFloat() throws {
        let image = try RasterImage(decoding: Self.grey([2, 0.5, 0.2, 0.1]), name: "float.tif")
        let small = try image.downscaled(toFit: 2)
        #expect(small.format == PixelFormat(.grey, .sixteen))
        #expect(small.samples == [65535, Int((0.15 * 65535).rounded())])
        let thumb = try ContactSheet.thumbnail(of: image)
        #expect(try thumb.sample(x: 0, y: 0, channel: 0) == 255)
    }

    /// In a linear chain the sRGB decoding function extends beyond 1 (its power) and below 0
    /// (its linear segment), as lcms2 extends it; the output encodes with the same function.
    @Test func aLinearChainDecodesBeyondOne() throws {
        let values: [Float] = [1.5, -0.02, 0.5, 0.9]
        let chain = Chain(workingSpace: .linear, [Exposure(ev: -1)])
        let out = try Renderer(threads: 1).images(chain, source: .bytes(Self.grey(values), name: "float.tif"),
                                                  depth: .sixteen).final
        let expected = values.map { v -> Double in
            let linear = SRGB.decode(Double(v)) / 2
            return min(max(SRGB.encode(linear), 0), 1) * 65535
        }
        for (got, want) in zip(out.samples, expected) { #expect(abs(Double(got) - want) <= 1, "\(got) vs \(want)") }
        #expect(out.samples[0] == 65535, "1.5 decodes to 2.54 linear; halved it is still over 1")
    }

    /// A float image with a profile goes through the profile as a 16-bit image of the same
    /// values does: through a matrix/TRC profile's curves (computed on the values, not by
    /// table), and through a LUT-based one (quantised to 16 bits there).
    @Test(arguments: ["DisplayP3-v4.icc", "sRGB_v4_ICC_preference.icc"])
    func profilesConvertFloatAsSixteenBit(profile: String) throws {
        let icc = Array(try Data(contentsOf: TestData.conformance.appendingPathComponent("icc/profiles/\(profile)")))
        var random = SeededRandom(7)
        let levels = (0..<(64 * 3)).map { _ in UInt16(truncatingIfNeeded: random.next()) }
        let asFloat = Self.file(width: 64, height: 1, samplesPerPixel: 3, bits: 32, photometric: 2,
                                samples: levels.map { Self.float32(Float($0) / 65535) }, icc: icc)
        var b = TestTIFFBuilder()
        let strip = b.append(levels.flatMap(TestTIFFBuilder.le16))
        b.setFirstIFD(b.ifd([
            TestTIFFBuilder.long(256, 64), TestTIFFBuilder.long(257, 1), (258, 3, 3, [16, 0, 16, 0, 16, 0]),
            TestTIFFBuilder.short(259, 1), TestTIFFBuilder.short(262, 2), TestTIFFBuilder.long(273, strip),
            TestTIFFBuilder.short(277, 3), TestTIFFBuilder.long(278, 1), TestTIFFBuilder.long(279, 64 * 6),
            (34675, 7, UInt32(icc.count), icc),
        ]))
        let renderer = Renderer(threads: 1)
        let chain = Chain(workingSpace: .linearRec2020, [Exposure(ev: -0.5)])
        let fromFloat = try renderer.images(chain, source: .bytes(asFloat, name: "float.tif"), depth: .sixteen).final
        let fromSixteen = try renderer.images(chain, source: .bytes(b.bytes, name: "sixteen.tif"), depth: .sixteen).final
        let worst = zip(fromFloat.samples, fromSixteen.samples).map { abs($0 - $1) }.max()!
        #expect(worst <= 1, "\(profile): float and 16-bit inputs differ by \(worst) levels")
        #expect(fromFloat.metadata.iccProfile == icc)
    }

    /// What is not read is refused by name.
    @Test func unreadFloatLayoutsAreRefusedByName() throws {
        let cmyk = Self.file(width: 1, height: 1, samplesPerPixel: 4, bits: 32, photometric: 5,
                             samples: [0, 0, 0, 0].map(Self.float32))
        #expect { _ = try RasterImage(decoding: cmyk, name: "ink.tif") } throws: { error in
            "\(error)".contains("ink.tif") && "\(error)".contains("floating-point") && "\(error)".contains("grey and RGB are")
        }
        let odd = Self.file(width: 1, height: 1, samplesPerPixel: 1, bits: 24, photometric: 1, samples: [[0, 0, 0]])
        #expect { _ = try RasterImage(decoding: odd, name: "odd.tif") } throws: { error in
            "\(error)".contains("24-bit floating-point samples are not read")
        }
    }
}
