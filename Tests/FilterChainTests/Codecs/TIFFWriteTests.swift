import Foundation
import Synchronization
import Testing
@testable import FilterChain

/// TIFF writing: every layout through every compression (the lossless ones exact, JPEG within
/// a stated error), the tags as the tests' own walker reads them, the strips as stored read
/// independently of libtiff, and the same bytes however the strips' jobs are scheduled.
@Suite struct TIFFWriteTests {
    static let layouts: [PixelFormat] = Channels.allCases.flatMap { c in BitDepth.stored.map { PixelFormat(c, $0) } }
    static let lossless = ["none", "lzw", "deflate", "zstd"]

    static func encode(_ p: Pixels, _ settings: [String: EncodeOptionValue] = [:], metadata: ImageMetadata = .none) throws -> [UInt8] {
        let buffer = OutputBuffer()
        try p.write(to: .memory(buffer), format: .tiff, metadata: metadata, options: EncodeOptions(settings: settings))
        return buffer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> (Pixels, ImageInfo) {
        let reader = try ImageReader.open(.bytes(bytes, name: "x.tif"))
        let data = try reader.readAll()
        return (Pixels(bytes: data, width: reader.info.width, height: reader.info.height, format: reader.info.format), reader.info)
    }

    /// TIFF's numbers for each compression (TIFF 6, and 50000 for zstd).
    static let compressionTag = ["none": 1, "lzw": 5, "deflate": 8, "zstd": 50000, "jpeg": 7]

    /// Lossless compressions give back every sample; the tags say what the file holds:
    /// unassociated alpha (ExtraSamples 2), the horizontal predictor for LZW, deflate and zstd.
    /// 600 x 500 takes several strips in every layout.
    @Test(arguments: layouts, lossless)
    func losslessCompressionsAreExact(format: PixelFormat, compression: String) throws {
        for (w, h) in [(1, 1), (37, 23), (600, 500)] {
            let original = Pixels.random(width: w, height: h, format: format, seed: UInt64(w + format.bytesPerPixel))
            let bytes = try Self.encode(original, ["tiffCompression": .choice(compression)])
            let (decoded, info) = try Self.decode(bytes)
            #expect(info.sourceFormat == .tiff && info.format == format)
            #expect(decoded == original, "\(format) \(compression) \(w)x\(h)")

            let ifd = try #require(TestTIFFWalker(bytes)).ifd0
            #expect(ifd.number(256) == w && ifd.number(257) == h)
            #expect(ifd.numbers(258) == [Int](repeating: format.depth.rawValue, count: format.channels.count))
            #expect(ifd.number(277) == format.channels.count)
            #expect(ifd.number(262) == (format.channels.isGrey ? 1 : 2))
            #expect(ifd.number(338) == (format.channels.hasAlpha ? 2 : nil))
            #expect(ifd.number(259) == Self.compressionTag[compression])
            #expect(ifd.number(317) == (compression == "none" ? nil : 2))
            #expect(ifd.number(284) ?? 1 == 1)
            let rows = try #require(ifd.number(278))
            #expect(rows == h || rows % 16 == 0)
            #expect(ifd.numbers(273)?.count == (h + rows - 1) / rows)
            if w == 600 { #expect(rows < h, "several strips") }
        }
    }

    /// Uncompressed strips hold the samples as TIFF 6 says: rows top to bottom, samples
    /// interleaved, 16-bit ones in the file's byte order (read here without libtiff).
    @Test(arguments: layouts)
    func uncompressedStripsHoldTheSamplesAsStored(format: PixelFormat) throws {
        let original = Pixels.random(width: 301, height: 257, format: format, seed: 9)
        let bytes = try Self.encode(original, ["tiffCompression": "none"])
        let walker = try #require(TestTIFFWalker(bytes))
        let stored = walker.strips.flatMap { $0 }
        #expect(stored.count == original.samples.count * format.depth.rawValue / 8)
        let samples: [Int] = format.depth == .eight ? stored.map(Int.init) : stride(from: 0, to: stored.count, by: 2).map { i in
            walker.bigEndian ? Int(stored[i]) << 8 | Int(stored[i + 1]) : Int(stored[i + 1]) << 8 | Int(stored[i])
        }
        #expect(samples == original.samples)
    }

    /// A smooth picture in each 8-bit layout through JPEG compression: RGB stored as YCbCr
    /// 4:2:0, the others as they are. At quality 90 every sample is within 8 of the original
    /// and PSNR is over 40 dB (libjpeg at this quality); a lower quality makes a smaller file.
    @Test(arguments: Channels.allCases)
    func jpegCompressionIsCloseAndQualitySetsTheSize(channels: Channels) throws {
        let w = 97, h = 61
        var samples: [Int] = []
        for y in 0..<h {
            for x in 0..<w {
                let all = [x * 255 / w, y * 255 / h, (x + y) * 255 / (w + h), 255 - x * 2]
                samples += channels.isGrey ? [all[0]] + (channels.hasAlpha ? [all[3]] : []) : Array(all.prefix(channels.count))
            }
        }
        let smooth = Pixels(width: w, height: h, format: PixelFormat(channels, .eight), samples: samples)
        let high = try Self.encode(smooth, ["tiffCompression": "jpeg", "quality": 90])
        let low = try Self.encode(smooth, ["tiffCompression": "jpeg", "quality": 20])
        let (decoded, info) = try Self.decode(high)
        #expect(info.format == smooth.format)
        let errors = zip(decoded.samples, smooth.samples).map { abs($0 - $1) }
        let mse = Double(errors.map { $0 * $0 }.reduce(0, +)) / Double(errors.count)
        #expect(errors.max()! <= 8, "\(channels): max error \(errors.max()!)")
        #expect(10 * log10(255 * 255 / mse) > 40, "\(channels): MSE \(mse)")
        #expect(low.count < high.count)
        let ifd = try #require(TestTIFFWalker(high)).ifd0
        #expect(ifd.number(259) == 7)
        #expect(ifd.number(262) == (channels == .rgb ? 6 : channels.isGrey ? 1 : 2))
        if channels == .rgb { #expect(ifd.numbers(530) == [2, 2]) }
        #expect(ifd.number(317) == nil)
    }

    /// JPEG compression takes 8-bit samples: a 16-bit image with it is refused before anything
    /// is written. Its quality and chroma default as a .jpg output's do: a JPEG source's own,
    /// else 90 and 4:2:0 (they were libtiff's 75 and always 4:2:0, which made a JPEG source's
    /// TIFF far worse than its .jpg at the same quality). Without JPEG compression, --quality
    /// and --chroma are refused.
    @Test func jpegCompressionRefusesSixteenBitsAndTakesJPEGsDefaults() throws {
        let deep = Pixels.random(width: 8, height: 8, format: PixelFormat(.rgb, .sixteen))
        #expect(throws: RenderError.self) { try Self.encode(deep, ["tiffCompression": "jpeg"]) }
        #expect(throws: RenderError.self) { try EncodeOptions(depth: .sixteen, settings: ["tiffCompression": "jpeg"]).validate(for: .tiff) }
        #expect(throws: RenderError.self) { try EncodeOptions(settings: ["quality": 80]).validate(for: .tiff) }
        #expect(throws: RenderError.self) { try EncodeOptions(settings: ["chroma": "4:4:4"]).validate(for: .tiff) }
        let p = Pixels.random(width: 40, height: 40, format: PixelFormat(.rgb, .eight), seed: 4)
        var fromJPEG = ImageMetadata()
        fromJPEG.sourceJPEG = JPEGEncoding(quality: 95, chroma: .yuv444)
        let implicit = try Self.encode(p, ["tiffCompression": "jpeg"], metadata: fromJPEG)
        #expect(implicit == (try Self.encode(p, ["tiffCompression": "jpeg", "quality": 95, "chroma": "4:4:4"], metadata: fromJPEG)))
        #expect(implicit != (try Self.encode(p, ["tiffCompression": "jpeg", "quality": 75], metadata: fromJPEG)))
        let plain = try Self.encode(p, ["tiffCompression": "jpeg"])
        #expect(plain == (try Self.encode(p, ["tiffCompression": "jpeg", "quality": 90, "chroma": "4:2:0"])))
        let used = Dictionary(uniqueKeysWithValues: EncodeOptions(settings: ["tiffCompression": "jpeg"])
            .settingsUsed(by: .tiff, source: fromJPEG).map { ($0.name, $0.value) })
        #expect(used["tiffCompression"] == "jpeg" && used["quality"] == 95 && used["chroma"] == "4:4:4", "\(used)")
    }

    /// --chroma with JPEG compression is TIFF's YCbCrSubsampling, and the file decodes as the
    /// .jpg output of the same options does: the same quantisation and the same subsampling
    /// give the same picture (strips are compressed apart, so rows at a strip's edge may
    /// differ by the chroma upsampling; the PSNRs agree within 0.2 dB).
    @Test(arguments: [(ChromaSubsampling.yuv444, [1, 1]), (.yuv422, [2, 1]), (.yuv420, [2, 2])])
    func jpegCompressionsChromaIsAJPEGOutputs(chroma: ChromaSubsampling, factors: [Int]) throws {
        let source = try Pixels.read(TestData.samples.appendingPathComponent("coffee.png").path).0
        func psnr(_ a: Pixels) -> Double {
            let se = zip(a.samples, source.samples).map { Double(($0 - $1) * ($0 - $1)) }.reduce(0, +)
            return 10 * log10(255 * 255 / (se / Double(se == 0 ? 1 : a.samples.count)))
        }
        let tiff = try Self.encode(source, ["tiffCompression": "jpeg", "quality": 90, "chroma": .choice(chroma.rawValue)])
        #expect(try #require(TestTIFFWalker(tiff)).ifd0.numbers(530) == factors)
        let buffer = OutputBuffer()
        try source.write(to: .memory(buffer), format: .jpeg, metadata: .none,
                         options: EncodeOptions(settings: ["quality": 90, "chroma": .choice(chroma.rawValue)]))
        let jpeg = try Self.decode(buffer.bytes).0
        let fromTIFF = try Self.decode(tiff).0
        #expect(abs(psnr(fromTIFF) - psnr(jpeg)) < 0.2, "\(chroma): TIFF \(psnr(fromTIFF)) dB, JPEG \(psnr(jpeg)) dB")
        #expect(tiff.count < buffer.bytes.count * 11 / 10 && tiff.count > buffer.bytes.count * 9 / 10,
                "\(chroma): TIFF \(tiff.count) bytes, JPEG \(buffer.bytes.count)")
    }

    /// A JPEG's segments before its scan: marker and payload (without the length).
    static func jpegSegments(_ data: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        var i = 2
        while i + 4 <= data.count, data[i] == 0xFF {
            let length = Int(data[i + 2]) << 8 | Int(data[i + 3])
            out.append((data[i + 1], Array(data[i + 4..<min(data.count, i + 2 + length)])))
            if data[i + 1] == 0xDA { break }
            i += 2 + length
        }
        return out
    }

    /// Each strip of a JPEG-compressed TIFF is a whole JPEG (SOI to EOI) made by the .jpg
    /// output's encoder: JPEGTables' tables for the quality (chroma's for RGB only), no
    /// JFIF, Adobe or metadata segment (the tags say what the samples are), a frame of the
    /// strip's size with the sampling factors YCbCrSubsampling names. The first strip decodes
    /// exactly as a .jpg of its rows with the same options does, and the file reads back at its
    /// size close to the original. Odd sizes, three strips, the last one shorter (71 rows).
    @Test(arguments: [(Channels.grey, ChromaSubsampling.yuv420), (.rgb, .yuv420), (.rgb, .yuv422), (.rgb, .yuv444),
                      (.greyAlpha, .yuv420), (.rgba, .yuv420)])
    func jpegStripsAreFilterchainsJPEGs(channels: Channels, chroma: ChromaSubsampling) throws {
        // About 3,000 bytes a row: 96 rows a strip.
        let w = 3001 / channels.count, h = 263, quality = 85
        var samples: [Int] = []
        for y in 0..<h {
            for x in 0..<w {
                let all = [x * 255 / w, y * 255 / h, (x + y) * 255 / (w + h), 255 - x * 200 / w]
                let noise = (x * 7 + y * 13) % 5
                samples += (channels.isGrey ? [all[0]] + (channels.hasAlpha ? [all[3]] : []) : Array(all.prefix(channels.count))).map { $0 + noise }
            }
        }
        let original = Pixels(width: w, height: h, format: PixelFormat(channels, .eight), samples: samples.map { min($0, 255) })
        let bytes = try Self.encode(original, ["tiffCompression": "jpeg", "quality": .integer(quality), "chroma": .choice(chroma.rawValue)])
        let walker = try #require(TestTIFFWalker(bytes))
        let ifd = walker.ifd0
        let rows = try #require(ifd.number(278))
        #expect(rows == 96 && ifd.number(259) == 7 && ifd.number(347) == nil)
        #expect(ifd.number(262) == (channels == .rgb ? 6 : channels.isGrey ? 1 : 2))
        let factors = chroma == .yuv444 ? [1, 1] : chroma == .yuv422 ? [2, 1] : [2, 2]
        #expect(ifd.numbers(530) == (channels == .rgb ? factors : nil))
        #expect((ifd.entries[532] != nil) == (channels == .rgb))
        let strips = walker.strips
        #expect(strips.count == 3)
        let tables = JPEGTables.tables(quality: quality)
        for (i, strip) in strips.enumerated() {
            #expect(Array(strip.prefix(2)) == [0xFF, 0xD8] && Array(strip.suffix(2)) == [0xFF, 0xD9], "strip \(i): SOI ... EOI")
            let segments = Self.jpegSegments(strip)
            #expect(Set(segments.map(\.marker)).isSubset(of: [0xDB, 0xC0, 0xC4, 0xDA]), "strip \(i): \(segments.map(\.marker))")
            let held = JPEGTablesTests.tablesOf(strip)
            #expect(held[0] == tables.luma)
            #expect(held[1] == (channels == .rgb ? tables.chroma : nil))
            let frame = try #require(segments.first { $0.marker == 0xC0 }?.payload)
            let height = Int(frame[1]) << 8 | Int(frame[2]), width = Int(frame[3]) << 8 | Int(frame[4])
            #expect(height == min(rows, h - i * rows) && width == w && Int(frame[5]) == channels.count)
            var sampling: [[Int]] = [], expected: [[Int]] = []
            for c in 0..<channels.count {
                let hv = Int(frame[7 + 3 * c])
                sampling.append([hv >> 4, hv & 15])
                expected.append(c == 0 && channels == .rgb ? factors : [1, 1])
            }
            #expect(sampling == expected, "strip \(i)")
        }
        if !channels.hasAlpha {
            let first = Pixels(width: w, height: rows, format: original.format, samples: Array(original.samples.prefix(rows * w * channels.count)))
            let buffer = OutputBuffer()
            try first.write(to: .memory(buffer), format: .jpeg, metadata: .none,
                            options: EncodeOptions(settings: ["quality": .integer(quality), "chroma": .choice(chroma.rawValue)]))
            let strip = try ImageReader.open(.bytes(strips[0], name: "strip.jpg")).readAll()
            #expect(strip == (try ImageReader.open(.bytes(buffer.bytes, name: "x.jpg")).readAll()))
        }
        let (decoded, info) = try Self.decode(bytes)
        #expect(info.width == w && info.height == h && info.format == original.format)
        let errors = zip(decoded.samples, original.samples).map { abs($0 - $1) }
        let mse = Double(errors.map { $0 * $0 }.reduce(0, +)) / Double(errors.count)
        #expect(10 * log10(255 * 255 / mse) > 38 && errors.max()! <= 16, "\(channels) \(chroma): MSE \(mse), max \(errors.max()!)")
    }

    /// The default is deflate with the horizontal predictor.
    @Test func theDefaultIsDeflateWithThePredictor() throws {
        let p = Pixels.random(width: 50, height: 20, format: PixelFormat(.rgba, .sixteen), seed: 2)
        let bytes = try Self.encode(p)
        #expect(bytes == (try Self.encode(p, ["tiffCompression": "deflate"])))
        let ifd = try #require(TestTIFFWalker(bytes)).ifd0
        #expect(ifd.number(259) == 8 && ifd.number(317) == 2)
    }

    /// Deflate's level is the one given, else 6 for 8-bit samples and 1 for 16-bit ones. Each
    /// strip's zlib header says its compressor's level class (RFC 1950's FLEVEL: 0 for levels
    /// below 2, 1 below 6, 2 for 6 and 7, 3 above), read here from the file's first strip.
    @Test func deflatesLevelIsGivenOrChosenByDepth() throws {
        func flevel(_ bytes: [UInt8]) throws -> Int {
            let ifd = try #require(TestTIFFWalker(bytes)).ifd0
            let offset = try #require(ifd.numbers(273)?.first)
            #expect(bytes[offset] & 0x0F == 8, "a zlib stream (CM 8, deflate)")
            #expect((Int(bytes[offset]) << 8 | Int(bytes[offset + 1])) % 31 == 0, "FCHECK")
            return Int(bytes[offset + 1] >> 6)
        }
        // A smooth image with noise, so the levels' outputs differ in size.
        func image(_ depth: BitDepth) -> Pixels {
            let top = Double(depth.maxValue)
            var samples: [Int] = []
            for y in 0..<120 {
                for x in 0..<300 {
                    for c in 0..<3 { samples.append(min(Int(Double(x + y * c) / 420 * top) + (x * 7 + y * 13 + c) % 3, depth.maxValue)) }
                }
            }
            return Pixels(width: 300, height: 120, format: PixelFormat(.rgb, depth), samples: samples)
        }
        let eight = image(.eight), sixteen = image(.sixteen)
        #expect(try flevel(Self.encode(eight)) == 2)
        #expect(try flevel(Self.encode(sixteen)) == 0)
        #expect(try Self.encode(sixteen) == Self.encode(sixteen, ["compression": 1]))
        #expect(try Self.encode(eight) == Self.encode(eight, ["compression": 6]))
        for (level, expected) in [(0, 0), (1, 0), (4, 1), (6, 2), (9, 3)] {
            for p in [eight, sixteen] {
                let bytes = try Self.encode(p, ["compression": .integer(level)])
                #expect(try flevel(bytes) == expected, "level \(level), \(p.format)")
                #expect(try Self.decode(bytes).0 == p)
            }
        }
        // Level 0 stores; 9 is no larger than 1.
        for p in [eight, sixteen] {
            let sizes = try [0, 1, 9].map { try Self.encode(p, ["compression": .integer($0)]).count }
            #expect(sizes[0] > p.bytes.count && sizes[2] <= sizes[1] && sizes[1] < sizes[0], "\(p.format): \(sizes)")
        }
        // The level is deflate's: another compression refuses it, naming the option.
        #expect(throws: (any Error).self) { try Self.encode(eight, ["compression": 3, "tiffCompression": "lzw"]) }
    }

    /// Strips compressed in any order, on any thread, give the same file as strips
    /// compressed one by one as the rows arrive, whichever way the rows are handed over.
    @Test(arguments: ["deflate", "jpeg", "zstd"])
    func theBytesDoNotDependOnHowTheStripsAreScheduled(compression: String) throws {
        let format = PixelFormat(.rgb, .eight)
        let p = Pixels.random(width: 700, height: 650, format: format, seed: 6)
        let reference = try Self.encode(p, ["tiffCompression": .choice(compression)])
        let buffer = OutputBuffer()
        let writer = try ImageWriter(.memory(buffer), format: .tiff, header: EncodeHeader(width: p.width, height: p.height, format: format),
                                     options: EncodeOptions(settings: ["tiffCompression": .choice(compression)]))
        let rows = p.bytes
        let rowBytes = p.width * 3
        var jobs: [EncoderJob] = []
        var y = 0
        for count in [1, 2, 300, 7, 340] {
            try rows.withUnsafeBytes { jobs += try writer.write(rows: $0.baseAddress! + y * rowBytes, stride: rowBytes, count: count) }
            y += count
        }
        #expect(y == p.height && jobs.count > 2)
        // The last jobs first, on several threads at once.
        let group = DispatchGroup()
        for job in jobs.reversed() { DispatchQueue.global().async(group: group) { job.run() } }
        group.wait()
        try writer.flush()
        try writer.finish()
        #expect(buffer.bytes == reference)
    }

    /// Resolution in each unit TIFF has (pixels per metre is written per centimetre).
    @Test func resolutionIsKept() throws {
        let p = Pixels.random(width: 4, height: 4, format: PixelFormat(.grey, .eight))
        for (given, read) in [(Resolution(x: 300, y: 150, unit: .perInch), Resolution(x: 300, y: 150, unit: .perInch)),
                              (Resolution(x: 2, y: 1, unit: .aspectRatio), Resolution(x: 2, y: 1, unit: .aspectRatio)),
                              (Resolution(x: 11811, y: 11811, unit: .perMetre), Resolution(x: 118.11, y: 118.11, unit: .perCentimetre))] {
            let bytes = try Self.encode(p, metadata: ImageMetadata(resolution: given))
            let ifd = try #require(TestTIFFWalker(bytes)).ifd0
            #expect(ifd.number(296) == [.aspectRatio: 1, .perInch: 2, .perCentimetre: 3][read.unit])
            // libtiff stores the values as floats; they read back as the decimals written.
            #expect(try Self.decode(bytes).1.metadata.resolution == read)
        }
        #expect(try Self.decode(Self.encode(p)).1.metadata.resolution == nil)
    }
}
