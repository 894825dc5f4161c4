import Foundation
import Testing
import FilterChain

/// A JPEG's HDR gain map through a render: kept, bytes for bytes, beside a JPEG output while
/// every step leaves it as it is (colour and tone), with the MPF index that points at it;
/// moved with the image by geometry, at its own scale; left out, with a note that says why,
/// for layers and formats without a place for one; a damaged map is harmless damage with
/// its reason. The container is read back here by
/// hand (CIPA DC-007's MPF), not by the library's reader. Files from ../shared/conformance/hdr
/// (manifest.tsv says what each holds).
@Suite struct GainMapKeptTests {
    let folder = CLI.temporaryFolder()
    static let hdr = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/hdr/files")

    func apply(_ name: String, chain: String = #"{"version": 1, "filters": []}"#, output: String = "out.jpg",
               extra: [String] = []) throws -> (CLI.Result, [UInt8]?) {
        let input = name.hasPrefix("/") ? name : Self.hdr.appendingPathComponent(name).path
        let path = folder + "/" + output
        try? FileManager.default.removeItem(atPath: path)
        try Data(chain.utf8).write(to: URL(fileURLWithPath: folder + "/chain.json"))
        let r = try CLI.run(["apply", folder + "/chain.json", input, path] + extra, in: folder)
        return (r, FileManager.default.contents(atPath: path).map { Array($0) })
    }

    static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func be32(_ b: [UInt8], _ i: Int) -> Int { be16(b, i) << 16 | be16(b, i + 2) }
    static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i + 1]) << 8 | Int(b[i]) }
    static func le32(_ b: [UInt8], _ i: Int) -> Int { le16(b, i + 2) << 16 | le16(b, i) }

    /// The images an MPF index lists (attribute, size, absolute start), read by hand: the
    /// primary's APP2 "MPF\0", its TIFF header (either byte order), tag 0xB002's entries.
    static func mpfImages(_ b: [UInt8]) -> [(attribute: Int, size: Int, start: Int)] {
        var i = 2
        while i + 4 <= b.count, b[i] == 0xff, b[i + 1] != 0xda {
            let length = be16(b, i + 2)
            if b[i + 1] == 0xe2, Array(b[(i + 4)..<(i + 8)]) == Array("MPF\0".utf8) {
                let t = i + 8
                let big = b[t] == 0x4d
                let u16 = { (k: Int) in big ? be16(b, t + k) : le16(b, t + k) }
                let u32 = { (k: Int) in big ? be32(b, t + k) : le32(b, t + k) }
                let ifd = u32(4)
                for e in 0..<u16(ifd) where u16(ifd + 2 + 12 * e) == 0xB002 {
                    let at = u32(ifd + 2 + 12 * e + 8)
                    return (0..<(u32(ifd + 2 + 12 * e + 4) / 16)).map { n in
                        let entry = at + 16 * n
                        let offset = u32(entry + 8)
                        return (u32(entry), u32(entry + 4), n == 0 ? 0 : t + offset)
                    }
                }
            }
            i += 2 + length
        }
        return []
    }

    /// The map's JPEG, as the MPF index places it.
    static func mapBytes(_ b: [UInt8]) -> [UInt8]? {
        let images = mpfImages(b)
        guard images.count == 2, images[1].start + images[1].size <= b.count else { return nil }
        return Array(b[images[1].start..<(images[1].start + images[1].size)])
    }

    @Test(arguments: ["gen_chelsea_300x451_s2.jpg", "gen_chelsea_xmp_only_s2.jpg", "gen_astronaut_rgbmap_255x341_s2.jpg",
                      "libultrahdr_apple_gainmap_new.jpg", "pillow_frame_size.mpo"])
    func aColourChainKeepsTheMapBytesForBytes(file: String) throws {
        let source = try Array(Data(contentsOf: Self.hdr.appendingPathComponent(file)))
        let (r, out) = try apply(file, chain: #"{"version": 1, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "exposure", "parameters": {"ev": 0.5}}]}"#)
        let bytes = try #require(out, "\(r.stderr)")
        #expect(r.status == 0 && !r.stderr.contains("gain map"), "\(r.stderr)")
        let images = Self.mpfImages(bytes)
        #expect(images.count == 2)
        #expect(images.first?.attribute == 0x030000 && images.last?.attribute == 0)
        // The primary's size, and the map right after it.
        #expect(images.first?.size == images.last?.start, "\(images)")
        #expect(images.last.map { $0.start + $0.size } == bytes.count)
        let map = try #require(Self.mapBytes(bytes))
        let sourceMap = try #require(Self.mapBytes(source))
        if map != sourceMap {
            // An ISO 21496-1 map without XMP gains Ultra HDR v1's hdrgm XMP after SOI, as
            // libultrahdr 1.x writes both; its own bytes follow unchanged.
            let length = Self.be16(map, 4) + 2
            #expect(Array(map[2..<4]) == [0xff, 0xe1] && Array(map[6..<35]) == Array("http://ns.adobe.com/xap/1.0/\0".utf8))
            #expect(String(decoding: map[35..<(2 + length)], as: UTF8.self).contains("hdrgm:Version=\"1.0\""))
            #expect(Array(map[0..<2]) + Array(map[(2 + length)...]) == sourceMap)
            #expect(GainMap.search(jpeg: source).found?.source == .iso21496)
        }
        // The library's reader finds the same map in the output as in the source.
        #expect(GainMap.search(jpeg: bytes).sizeless == GainMap.search(jpeg: source).sizeless)
        // The primary is the chain's SDR image: brighter than the source's.
        let decoded = try RasterImage(decoding: bytes)
        let original = try RasterImage(decoding: source)
        #expect(decoded.width == original.width && decoded.height == original.height)
        let mean = { (image: RasterImage) in Double(image.samples.reduce(0, +)) / Double(image.samples.count) }
        #expect(mean(decoded) > mean(original) * 1.15)
    }

    /// A JPEG's frame size (SOF), read by hand.
    static func frameSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 9 < b.count, b[i] == 0xff {
            if [0xc0, 0xc1, 0xc2].contains(b[i + 1]) { return (be16(b, i + 7), be16(b, i + 5)) }
            i += 2 + be16(b, i + 2)
        }
        return nil
    }

    @Test func geometryMovesTheMapWithTheImageAtItsOwnScale() throws {
        // chelsea: 300x451, its map 150x225 (half). Width 100: 100x150, the map 50x75.
        let resize = #"{"version": 1, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "resize", "parameters": {"width": 100}}]}"#
        let (r, out) = try apply("gen_chelsea_300x451_s2.jpg", chain: resize)
        let bytes = try #require(out, "\(r.stderr)")
        #expect(r.status == 0 && !r.stderr.contains("gain map"), "\(r.stderr)")
        #expect(Self.frameSize(bytes)! == (100, 150))
        let map = try #require(Self.mapBytes(bytes))
        #expect(Self.frameSize(map)! == (50, 75))
        // Its metadata is the source's, as libultrahdr 1.x places it: Ultra HDR v1's hdrgm XMP,
        // then the ISO 21496-1 segment.
        let xmpEnd = 2 + Self.be16(map, 4) + 2
        #expect(Array(map[2..<4]) == [0xff, 0xe1])
        #expect(Array(map[xmpEnd..<(xmpEnd + 2)]) == [0xff, 0xe2] && Array(map[(xmpEnd + 4)..<(xmpEnd + 32)]) == Array("urn:iso:std:iso:ts:21496:-1\0".utf8))
        guard case .found(let moved) = GainMap.search(jpeg: bytes),
              case .found(let original) = GainMap.search(jpeg: try Array(Data(contentsOf: Self.hdr.appendingPathComponent("gen_chelsea_300x451_s2.jpg")))) else {
            Issue.record("no gain map found"); return
        }
        #expect(moved.gainMapMax == original.gainMapMax && moved.alternateHeadroom == original.alternateHeadroom && moved.width == 50)
        // A fast resize, which decodes the base shrunk on load (1/4 here): the map (as large as
        // its base in this file) is still sized by the image the chain sees.
        let fast = #"{"version": 1, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "resize", "parameters": {"width": 100, "fast": true}}]}"#
        let (f, quick) = try apply("gen_rocket_641x427_s1.jpg", chain: fast)
        let quickBytes = try #require(quick, "\(f.stderr)")
        #expect(Self.frameSize(quickBytes)! == (100, 67))
        #expect(Self.frameSize(try #require(Self.mapBytes(quickBytes)))! == (100, 67))
        // A crop of 201x150 at (37, 51), turned: the map's crop rounded outward (18..119 x 25..101), turned.
        let crop = #"{"version": 1, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "crop", "parameters": {"x": 37, "y": 51, "width": 201, "height": 150}}, {"id": "8FC24D02-BC43-416B-8469-02169C97D567", "type": "rotate", "parameters": {"angle": 90}}]}"#
        let (c, cropped) = try apply("gen_chelsea_300x451_s2.jpg", chain: crop)
        let cropBytes = try #require(cropped, "\(c.stderr)")
        #expect(Self.frameSize(cropBytes)! == (150, 201))
        #expect(Self.frameSize(try #require(Self.mapBytes(cropBytes)))! == (76, 101))
    }

    @Test func aLayerOrAnotherFormatLeavesTheMapOutAndSaysWhy() throws {
        // A blend of the source with a half-size copy of itself: the two maps lie otherwise.
        let blend = #"{"version": 2, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "resize", "name": "small", "parameters": {"scale": 0.5}}, {"id": "8FC24D02-BC43-416B-8469-02169C97D567", "type": "blend", "input": "source", "parameters": {"layer": "small"}}]}"#
        let (r, out) = try apply("gen_chelsea_300x451_s2.jpg", chain: blend)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("gen_chelsea_300x451_s2.jpg: its HDR gain map is not kept (step 2 (blend) lays an image whose gain map lies otherwise than its own over it, which gain maps do not follow yet); the output is the SDR image only"), "\(r.stderr)")
        #expect(Self.mpfImages(try #require(out)).isEmpty)
        let (png, written) = try apply("gen_chelsea_300x451_s2.jpg", output: "out.png")
        #expect(png.status == 0 && written != nil)
        #expect(png.stderr.contains("its HDR gain map is not kept (PNG has no place for one); the output is the SDR image only"), "\(png.stderr)")
        let (stripped, plain) = try apply("gen_chelsea_300x451_s2.jpg", extra: ["--strip"])
        #expect(stripped.stderr.contains("--strip leaves out the HDR gain map"), "\(stripped.stderr)")
        #expect(Self.mpfImages(try #require(plain)).isEmpty)
    }

    /// `--gain-map drop` writes the SDR image only, with no note (it was asked for);
    /// `--gain-map-quality` re-encodes the map at that quality even where nothing moves it,
    /// which is otherwise copied byte for byte; `--json` says what became of the map.
    @Test func theGainMapOptionsAndWhatJSONSays() throws {
        let file = "gen_chelsea_300x451_s2.jpg"
        let source = try Array(Data(contentsOf: Self.hdr.appendingPathComponent(file)))
        let sourceMap = try #require(Self.mapBytes(source))
        let (dropped, plain) = try apply(file, extra: ["--gain-map", "drop"])
        #expect(dropped.status == 0 && dropped.stderr.isEmpty, "\(dropped.stderr)")
        let plainBytes = try #require(plain)
        #expect(Self.mpfImages(plainBytes).isEmpty)
        #expect(GainMap.search(jpeg: plainBytes) == .none)
        // The map's quality: the default copies it; a quality given re-encodes it at that
        // quality (as the map's own quantisation tables say), smaller at a lower one.
        var maps: [Int: [UInt8]] = [:]
        for quality in [40, 95] {
            let (r, out) = try apply(file, extra: ["--gain-map-quality", String(quality)])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            let bytes = try #require(out)
            let map = try #require(Self.mapBytes(bytes))
            #expect(map != sourceMap)
            let decoded = try RasterImage(decoding: map)
            #expect(decoded.metadata.sourceJPEG?.quality == quality)
            #expect(decoded.width == 150 && decoded.height == 225)
            maps[quality] = map
            // The same metadata, in the new map's JPEG.
            let sizeless = { (search: GainMap.Search) -> GainMap? in
                guard case .found(var map) = search else { return nil }
                map.byteCount = 0
                return map
            }
            #expect(sizeless(GainMap.search(jpeg: bytes)) == sizeless(GainMap.search(jpeg: source)))
        }
        #expect(try #require(maps[40]).count < maps[95]!.count)
        // --json: kept, dropped (asked, or a format without a place for one), null for SDR.
        let json = { (input: String, output: String, extra: [String]) throws -> Any? in
            let r = try CLI.run(["apply", self.folder + "/chain.json", input, output, "--json"] + extra, in: self.folder)
            #expect(r.status == 0, "\(r.stderr)")
            let line = try JSONSerialization.jsonObject(with: Data(r.stdout.split(separator: UInt8(ascii: "\n")).last ?? [])) as? [String: Any]
            return line?["gainMap"]
        }
        let input = Self.hdr.appendingPathComponent(file).path
        #expect(try json(input, "k.jpg", []) as? String == "kept")
        #expect(try json(input, "d.jpg", ["--gain-map", "drop"]) as? String == "dropped")
        #expect(try json(input, "p.png", []) as? String == "dropped")
        #expect(try json(input, "s.jpg", ["--strip"]) as? String == "dropped")
        #expect(try json(CLI.samples + "/rocket.jpg", "sdr.jpg", []) is NSNull)
    }

    /// `--hdr pq|hlg`: 16-bit samples in PNG and AVIF, nothing of the map or of the input's
    /// ICC profile left (the maths is Tests/Oracle's, against libultrahdr); the options'
    /// usage errors; a map that cannot follow the chain fails the image (exit 1, nothing
    /// written), since what was asked for cannot be made.
    @Test func hdrOutputsAndTheirErrors() throws {
        let file = "gen_chelsea_300x451_s2.jpg"
        for output in ["pq.png", "pq.avif"] {
            let (r, out) = try apply(file, output: output, extra: ["--hdr", "pq"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(output): \(r.stderr)")
            let image = try RasterImage(decoding: try #require(out))
            #expect(image.format == PixelFormat(.rgb, .sixteen) && image.width == 300 && image.height == 451)
            #expect(image.metadata.iccProfile == nil && image.metadata.gainMap == nil)
            // AVIF's nclx box, and PNG's cICP chunk, read as the nclx it is.
            let matrix: UInt16 = output.hasSuffix(".avif") ? 9 : 0
            #expect(image.metadata.nclx == NCLXColor(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: matrix, fullRange: true))
        }
        // --strip and --strip-all keep what says the samples are HDR.
        for output in ["s.png", "s.avif"] {
            for strip in ["--strip", "--strip-all"] {
                let (r, out) = try apply(file, output: output, extra: ["--hdr", "hlg", strip])
                #expect(r.status == 0, "\(r.stderr)")
                let image = try RasterImage(decoding: try #require(out))
                #expect(image.metadata.nclx?.transferCharacteristics == 18 && image.metadata.exif == nil, "\(output) \(strip)")
            }
        }
        let info = try CLI.run(["info", "pq.png"], in: folder)
        #expect(info.out.contains("colour: cICP 9/16/0 full"), "\(info.out)")
        // Read back as an input, PQ is light: SDR in a JPEG (tone-mapped, Display P3), HDR kept
        // in a PNG (its own transfer), SDR there when asked; said in --json, no warning.
        for (output, extra, hdr) in [("again.jpg", [String](), "null"), ("again.png", [], "\"pq\""),
                                     ("again-sdr.png", ["--hdr", "sdr"], "null")] {
            let again = try CLI.run(["apply", folder + "/chain.json", "pq.png", output, "--json"] + extra, in: folder)
            #expect(again.status == 0 && again.stderr.isEmpty && again.out.contains("\"hdr\":\(hdr)"), "\(output): \(again.out) \(again.stderr)")
            let image = try RasterImage(contentsOf: folder + "/" + output)
            #expect((image.metadata.nclx?.transferCharacteristics == 16) == (hdr != "null"), "\(output)")
            #expect((image.metadata.iccProfile == ColorProfile.displayP3.iccData) == (hdr == "null"), "\(output)")
        }
        for (extra, message) in [(["--hdr", "pq"], "JPEG cannot say that its samples are HDR; HDR is written as PNG or AVIF"),
                                 (["--hdr", "hdr10"], "--hdr: 'hdr10' is not pq, hlg or sdr"),
                                 (["--hdr", "sdr", "--hdr-headroom", "2"], "--hdr-headroom goes with --hdr pq or --hdr hlg"),
                                 (["--hdr-headroom", "2"], "--hdr-headroom goes with --hdr pq or --hdr hlg"),
                                 (["--hdr", "pq", "--hdr-headroom", "30"], "--hdr-headroom 30.0 is out of range; allowed 0...16 stops"),
                                 (["--hdr", "pq", "--depth", "8"], "--depth 8 cannot hold them")] {
            let output = extra.contains("pq") && message.hasPrefix("JPEG") ? "out.jpg" : "out.png"
            let (r, out) = try apply(file, output: output, extra: extra)
            #expect(r.status == 64 && out == nil, "\(extra): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(message), "\(extra): \(r.stderr)")
        }
        let blend = #"{"version": 2, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "resize", "name": "small", "parameters": {"scale": 0.5}}, {"id": "8FC24D02-BC43-416B-8469-02169C97D567", "type": "blend", "input": "source", "parameters": {"layer": "small"}}]}"#
        let (blocked, none) = try apply(file, chain: blend, output: "out.png", extra: ["--hdr", "pq"])
        #expect(blocked.status == 1 && none == nil, "\(blocked.stderr)")
        #expect(blocked.stderr.contains("cannot render HDR: its gain map cannot follow the chain (step 2 (blend) lays an image whose gain map lies otherwise"), "\(blocked.stderr)")
        // An SDR input: its white at 203 cd/m² (PQ 0.5806 of full scale).
        let (sdr, written) = try apply(CLI.samples + "/rocket.jpg", output: "sdr.png", extra: ["--hdr", "pq"])
        #expect(sdr.status == 0, "\(sdr.stderr)")
        #expect(try RasterImage(decoding: try #require(written)).format.depth == .sixteen)
    }

    /// The primary's XMP in an Ultra HDR v1 file (hdrgm:Version and a Container directory
    /// giving the map's length) is made true for what is written: a map moved with the image
    /// has its new length there (it had the old one, which readers that locate the map by
    /// the directory take); an output without a map has neither, so no reader looks for one.
    @Test func theUltraHDRDirectoryIsKeptTrue() throws {
        let file = "gen_chelsea_xmp_only_s2.jpg"
        let resize = #"{"version": 1, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "resize", "parameters": {"width": 150}}]}"#
        let xmp = { (bytes: [UInt8]) -> String in
            var i = 2
            while i + 4 <= bytes.count, bytes[i] == 0xff, bytes[i + 1] != 0xda {
                let length = Self.be16(bytes, i + 2)
                let payload = Array(bytes[(i + 4)..<(i + 2 + length)])
                if bytes[i + 1] == 0xe1, payload.starts(with: Array("http://ns.adobe.com/xap/1.0/\0".utf8)) {
                    return String(decoding: payload.dropFirst(29), as: UTF8.self)
                }
                i += 2 + length
            }
            return ""
        }
        let source = try Array(Data(contentsOf: Self.hdr.appendingPathComponent(file)))
        #expect(xmp(source).contains("Item:Length=\"\(try #require(Self.mapBytes(source)).count)\""))
        let (r, out) = try apply(file, chain: resize)
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try #require(out)
        let map = try #require(Self.mapBytes(bytes))
        #expect(map.count != Self.mapBytes(source)!.count)
        #expect(xmp(bytes).contains("Item:Length=\"\(map.count)\"") && xmp(bytes).contains("hdrgm:Version=\"1.0\""), "\(xmp(bytes))")
        let (dropped, plain) = try apply(file, chain: resize, extra: ["--gain-map", "drop"])
        #expect(dropped.status == 0)
        let text = xmp(try #require(plain))
        #expect(!text.isEmpty && !text.contains("hdrgm:Version") && !text.contains("Container:Directory") && text.contains("rdf:Description"), "\(text)")
    }

    /// An Ultra HDR JPEG written from an ISO 21496-1-only source carries Ultra HDR v1's
    /// metadata too (for Android 14 and older readers): with the ISO segments taken out of the
    /// output, the hdrgm XMP alone gives the same values (to the 6 decimals written), and the
    /// primary's directory gives the map's length.
    @Test func theHDRGMMetadataAloneReadsTheSame() throws {
        let (r, out) = try apply("gen_astronaut_rgbmap_255x341_s2.jpg")
        #expect(r.status == 0, "\(r.stderr)")
        var bytes = try #require(out)
        let map = try #require(Self.mapBytes(bytes))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" Item:Length=\"\(map.count)\""))
        guard case .found(let iso) = GainMap.search(jpeg: bytes) else { Issue.record("no map"); return }
        // The ISO segment of the map, blanked to an APP15 of the same length (offsets stay).
        let start = try #require(Self.mpfImages(bytes).last?.start)
        var i = start + 2
        while i + 4 <= bytes.count, bytes[i] == 0xff, bytes[i + 1] != 0xda {
            let length = Self.be16(bytes, i + 2)
            if bytes[i + 1] == 0xe2, Array(bytes[(i + 4)..<(i + 8)]) == Array("urn:".utf8) { bytes[i + 1] = 0xef }
            i += 2 + length
        }
        guard case .found(let hdrgm) = GainMap.search(jpeg: bytes) else { Issue.record("no hdrgm map"); return }
        #expect(hdrgm.source == .hdrgm)
        for (a, b) in [(hdrgm.gainMapMin, iso.gainMapMin), (hdrgm.gainMapMax, iso.gainMapMax), (hdrgm.gamma, iso.gamma),
                       (hdrgm.baseOffset, iso.baseOffset), (hdrgm.alternateOffset, iso.alternateOffset)] {
            #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 1e-6 }, "\(a) \(b)")
        }
        #expect(abs(hdrgm.alternateHeadroom - iso.alternateHeadroom) <= 1e-6 && hdrgm.baseIsHDR == iso.baseIsHDR)
    }

    @Test func aDamagedGainMapIsHarmlessDamageWithItsReason() throws {
        let (r, out) = try apply("bad_mpf_offset_past_eof.jpg")
        #expect(r.status == 0 && out != nil, "\(r.stderr)")
        #expect(r.stderr.contains("bad_mpf_offset_past_eof.jpg: an HDR gain map was left out: the gain map's offset in the MPF index (386288) lies past the end of the file"),
                "\(r.stderr)")
        #expect(Self.mpfImages(try #require(out)).isEmpty)
        // --strict: the same damage refuses the file, and nothing is written.
        let (strict, none) = try apply("bad_mpf_offset_past_eof.jpg", extra: ["--strict"])
        #expect(strict.status == 1 && none == nil, "\(strict.stderr)")
        #expect(strict.stderr.contains("bad_mpf_offset_past_eof.jpg: damaged JPEG data: an HDR gain map was left out"), "\(strict.stderr)")
    }

    @Test(arguments: ["pillow_sugarshack.mpo", "pillow_ignore_frame_size.mpo"])
    func aStereoPairsSecondImageIsNoGainMap(file: String) throws {
        let (r, out) = try apply(file)
        #expect(r.status == 0 && out != nil, "\(r.stderr)")
        #expect(!r.stderr.contains("gain map"), "\(r.stderr)")
        #expect(Self.mpfImages(try #require(out)).isEmpty)
    }

    /// `--gain-map create` from a PQ source (the HDR rendition of an Ultra HDR JPEG, as a PQ
    /// PNG): an Ultra HDR JPEG whose MPF index, ISO 21496-1 metadata (gain 1 to 1000 / 203,
    /// full size, one channel) and XMP directory (the map's true length, written after the
    /// map was) read back by hand; an SDR source gets none, and says so.
    @Test func aGainMapIsCreatedFromPQ() throws {
        let (pq, _) = try apply("gen_chelsea_300x451_s2.jpg", output: "pq.png", extra: ["--hdr", "pq"])
        #expect(pq.status == 0, "\(pq.stderr)")
        let (r, out) = try apply(folder + "/pq.png", output: "created.jpg", extra: ["--gain-map", "create", "--json"])
        #expect(r.status == 0 && r.out.contains("\"gainMap\":\"created\"") && r.stderr.isEmpty, "\(r.out) \(r.stderr)")
        let bytes = try #require(out)
        let images = Self.mpfImages(bytes)
        #expect(images.count == 2 && images[1].start + images[1].size == bytes.count, "\(images)")
        let map = try #require(Self.mapBytes(bytes))
        #expect(Self.frameSize(map)! == (300, 451))
        guard case .found(let found) = GainMap.search(jpeg: bytes) else { Issue.record("no map found"); return }
        #expect(found.source == .iso21496 && found.channels == 1)
        #expect(abs(found.alternateHeadroom - log2(1000 / 203.0)) < 1e-6 && found.gainMapMin == [0, 0, 0])
        let text = String(decoding: bytes.prefix(images[1].start), as: UTF8.self)
        #expect(text.contains("Item:Length=\"\(map.count)\""), "\(text.prefix(2000))")
        let (sdr, _) = try apply(CLI.samples + "/rocket.jpg", output: "sdr.jpg", extra: ["--gain-map", "create"])
        #expect(sdr.status == 0 && sdr.stderr.contains("--gain-map create makes a map from a PQ or HLG input"), "\(sdr.stderr)")
    }

    /// A watermark (the samples' logo, alpha 0.7, south-east) over an Ultra HDR JPEG whose map
    /// is full size (gain 1 to 49.3, gamma 1): under it the map's log gain is (1 - a) of what
    /// it was, a = 0.7 x the logo's alpha there; elsewhere it is as it was. The expected map is
    /// computed here from the source's map and the logo's pixels, by the formula.
    @Test func aWatermarkTakesItsCoverOutOfTheMap() throws {
        let source = CLI.samples + "/rocket-ultrahdr.jpg"
        let chain = try String(contentsOfFile: CLI.samples + "/chains/watermark.json", encoding: .utf8)
            .replacingOccurrences(of: "../logo.png", with: CLI.samples + "/logo.png")
        let (r, out) = try apply(source, chain: chain, extra: ["--gain-map-quality", "100"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let outBytes = try #require(out)
        let writtenMap = try #require(Self.mapBytes(outBytes))
        let sourceMap = try #require(Self.mapBytes(Array(try Data(contentsOf: URL(fileURLWithPath: source)))))
        let written = try RasterImage(decoding: writtenMap)
        let original = try RasterImage(decoding: sourceMap)
        let logo = try RasterImage(contentsOf: CLI.samples + "/logo.png")
        #expect(written.width == 641 && written.height == 427 && logo.format.channels.hasAlpha)
        // southEast, offset [24, 24]: the logo's top-left corner.
        let x0 = 641 - logo.width - 24, y0 = 427 - logo.height - 24
        let w = written.samples, o = original.samples, l = logo.samples, n = logo.format.channels.count
        var inside = (error: 0.0, count: 0, moved: 0.0), outside = (error: 0.0, count: 0)
        for y in 0..<427 {
            for x in 0..<641 {
                var expected = Double(o[y * 641 + x])
                if x >= x0, y >= y0, x < x0 + logo.width, y < y0 + logo.height {
                    let a = 0.7 * Double(l[((y - y0) * logo.width + (x - x0)) * n + n - 1]) / 255
                    // min 0, gamma 1: g' = (1 - a) g.
                    expected *= 1 - a
                    inside.error += abs(Double(w[y * 641 + x]) - expected)
                    inside.moved += abs(Double(o[y * 641 + x]) - expected)
                    inside.count += 1
                } else {
                    outside.error += abs(Double(w[y * 641 + x]) - expected)
                    outside.count += 1
                }
            }
        }
        // JPEG (quality 100) leaves about a level; the cover moved the map by several.
        let insideError = inside.error / Double(inside.count), moved = inside.moved / Double(inside.count)
        #expect(insideError < 1.0 && moved > 4 * insideError, "inside: \(insideError) levels off, the cover moves \(moved)")
        #expect(outside.error / Double(outside.count) < 1.0, "outside: \(outside.error / Double(outside.count))")
    }

    /// The source blended with a blur of itself carries one map under both: a colour edit,
    /// the map kept as it is; `--hdr` renders through it.
    @Test func aBlendOfTheImageWithItselfKeepsTheMap() throws {
        let blend = #"{"version": 2, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "gaussianBlur", "name": "soft", "parameters": {"sigma": 3}}, {"id": "8FC24D02-BC43-416B-8469-02169C97D567", "type": "blend", "input": "source", "parameters": {"layer": "soft", "mode": "screen", "opacity": 0.5}}]}"#
        let (r, out) = try apply("gen_chelsea_300x451_s2.jpg", chain: blend, extra: ["--json"])
        #expect(r.status == 0 && r.out.contains("\"gainMap\":\"kept\""), "\(r.out) \(r.stderr)")
        let source = Array(try Data(contentsOf: Self.hdr.appendingPathComponent("gen_chelsea_300x451_s2.jpg")))
        let outBytes = try #require(out)
        let keptMap = try #require(Self.mapBytes(outBytes)), sourceMap = try #require(Self.mapBytes(source))
        // Not encoded again (the hdrgm XMP is added beside ISO's): the same pixels.
        #expect(try RasterImage(decoding: keptMap).pixels == RasterImage(decoding: sourceMap).pixels)
        let (hdr, png) = try apply("gen_chelsea_300x451_s2.jpg", chain: blend, output: "out.png", extra: ["--hdr", "pq"])
        #expect(hdr.status == 0 && png != nil, "\(hdr.stderr)")
    }

}

extension GainMap.Search {
    /// The map found, if any.
    var found: GainMap? { if case .found(let m) = self { m } else { nil } }
    /// The search with the map's byte count left out (a written map may gain its XMP).
    var sizeless: GainMap.Search {
        guard case .found(var m) = self else { return self }
        m.byteCount = 0
        return .found(m)
    }
}
