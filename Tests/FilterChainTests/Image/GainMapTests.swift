import Foundation
import Testing
@testable import FilterChain

/// Finding a JPEG's gain map and reading its metadata (`GainMap.search(jpeg:)`), against the
/// HDR conformance set (../shared/conformance/hdr): each file's kind from its manifest, and
/// for the ones with a map, what libvips 8.18 (libultrahdr) read from it (`ref/NAME.json`).
@Suite struct GainMapTests {
    static let folder = TestData.conformance.appendingPathComponent("hdr")

    struct Row: CustomStringConvertible, Sendable {
        var file: String, kind: String, expect: String, reference: String
        var description: String { file }
    }

    static func rows() -> [Row] {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(file: f[0], kind: f[1], expect: f[2], reference: f.count > 3 ? f[3] : "")
        }
    }

    static func search(_ row: Row) throws -> GainMap.Search {
        GainMap.search(jpeg: Array(try Data(contentsOf: folder.appendingPathComponent(row.file))))
    }

    @Test func theManifestIsRead() {
        #expect(Self.rows().count >= 15)
    }

    /// Every map libultrahdr reads: the same size, channels, bytes and metadata (gains and
    /// capacity as linear factors, as libvips reports them; float32 there).
    @Test(arguments: rows().filter { $0.reference.contains(".json") })
    func mapsReadAsLibultrahdrReadsThem(_ row: Row) throws {
        guard case .found(let map) = try Self.search(row) else {
            Issue.record("\(row.file): \(try Self.search(row))")
            return
        }
        let jsonFile = row.reference.split(separator: ",").first { $0.hasSuffix(".json") }!
        let ref = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.folder.appendingPathComponent(String(jsonFile)))) as! [String: Any]
        let vips = ref["libvips"] as! [String: Any]
        #expect(map.width == ref["gainmap_width"] as? Int && map.height == ref["gainmap_height"] as? Int, "\(map)")
        #expect(map.channels == ref["gainmap_bands"] as? Int)
        #expect(map.byteCount == vips["gainmap-data"] as? Int)
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-5 * max(1, abs(b)) }
        func same(_ key: String, _ ours: [Double]) {
            let theirs = (vips[key] as! [NSNumber]).map(\.doubleValue)
            #expect(zip(ours, theirs).allSatisfy { close($0, $1) }, "\(row.file) \(key): \(ours) against \(theirs)")
        }
        same("gainmap-max-content-boost", map.gainMapMax.map(exp2))
        same("gainmap-min-content-boost", map.gainMapMin.map(exp2))
        same("gainmap-gamma", map.gamma)
        same("gainmap-offset-sdr", map.baseOffset)
        same("gainmap-offset-hdr", map.alternateOffset)
        #expect(close(exp2(map.baseHeadroom), (vips["gainmap-hdr-capacity-min"] as! NSNumber).doubleValue))
        #expect(close(exp2(map.alternateHeadroom), (vips["gainmap-hdr-capacity-max"] as! NSNumber).doubleValue))
        if let cg = vips["gainmap-use-base-cg"] as? Int { #expect(map.usesBaseColourSpace == (cg == 1)) }
        #expect(!map.baseIsHDR)
    }

    /// A stereo pair's second image is no gain map; a map that cannot be read is harmless
    /// damage with a reason.
    @Test(arguments: rows().filter { !$0.reference.contains(".json") })
    func othersAreNoneOrDamaged(_ row: Row) throws {
        let found = try Self.search(row)
        switch found {
        case .none: #expect(row.kind.contains("stereo") || row.expect == "either", "\(row.file): none")
        case .damaged(let why):
            #expect(row.kind.contains("damaged") || row.expect == "either", "\(row.file): \(why)")
            #expect(!why.isEmpty)
        case .found(let map): Issue.record("\(row.file): a map was found, \(map)")
        }
    }

    /// Metadata that says nothing usable is damage, named: max below min, a zero gamma, a zero
    /// denominator, a version this reader does not know.
    @Test func nonsenseMetadataIsNamed() {
        var map = GainMap(width: 1, height: 1, channels: 1, source: .iso21496, byteCount: 0, gainMapMin: [3, 3, 3],
                          gainMapMax: [1, 1, 1], gamma: [1, 1, 1], baseOffset: [0, 0, 0], alternateOffset: [0, 0, 0],
                          baseHeadroom: 0, alternateHeadroom: 1, baseIsHDR: false, usesBaseColourSpace: true)
        #expect(map.problem?.contains("below the smallest") == true)
        map.gainMapMax = [4, 4, 4]
        map.gamma = [0, 1, 1]
        #expect(map.problem?.contains("gamma of 0") == true)
        // ISO 21496-1: version 0, one channel, fractions of which one has a zero denominator.
        var iso: [UInt8] = [0, 0, 0, 0, 0]
        for (n, d) in [(0, 1), (1, 1), (0, 1), (1, 0), (1, 1), (0, 1), (0, 1)] as [(UInt32, UInt32)] {
            for v in [n, d] { iso += [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        }
        #expect(map.readISO(iso) == "has a zero denominator")
        #expect(map.readISO([0, 1, 0, 0, 0]) == "needs version 1 to be read")
        #expect(map.readISO(Array(iso.prefix(20)))?.contains("cut short") == true)
    }

    /// A map whose JPEG has four components (a file the fuzzer made from a conformance file)
    /// is damage, not a map of four channels.
    @Test func aMapOfFourComponentsIsDamage() throws {
        let bytes = Array(try Data(contentsOf: TestData.fixtures.appendingPathComponent("fuzz/gainmap/four-component-map.jpg")))
        #expect(GainMap.search(jpeg: bytes) == .damaged("the gain map's JPEG has 4 components (a gain map has 1 or 3)"))
    }

    /// ISO 21496-1 with one common denominator (flag bit 3), as libultrahdr writes values that
    /// share one: the denominator once, then the numerators. Here d = 4: headrooms 0 and 3
    /// stops (0/4, 12/4), min -0.5 (-2/4), max 3 (12/4), gamma 1 (4/4), offsets 0 and 0.25
    /// (0/4, 1/4); flags 0x48 (one channel, base colour space, common denominator).
    @Test func oneCommonDenominatorIsRead() {
        var map = GainMap(width: 1, height: 1, channels: 1, source: .iso21496, byteCount: 0, gainMapMin: [0, 0, 0],
                          gainMapMax: [0, 0, 0], gamma: [1, 1, 1], baseOffset: [0, 0, 0], alternateOffset: [0, 0, 0],
                          baseHeadroom: 0, alternateHeadroom: 0, baseIsHDR: false, usesBaseColourSpace: false)
        var iso: [UInt8] = [0, 0, 0, 0, 0x48]
        for v in [4, 0, 12, -2, 12, 4, 0, 1] as [Int32] {
            let u = UInt32(bitPattern: v)
            iso += [UInt8(u >> 24), UInt8(u >> 16 & 255), UInt8(u >> 8 & 255), UInt8(u & 255)]
        }
        #expect(iso.count == 37)
        #expect(map.readISO(iso) == nil)
        #expect(map.baseHeadroom == 0 && map.alternateHeadroom == 3 && map.usesBaseColourSpace && !map.baseIsHDR)
        #expect(map.gainMapMin == [-0.5, -0.5, -0.5] && map.gainMapMax == [3, 3, 3] && map.gamma == [1, 1, 1])
        #expect(map.baseOffset == [0, 0, 0] && map.alternateOffset == [0.25, 0.25, 0.25])
        #expect(map.readISO(Array(iso.prefix(36)))?.contains("cut short (36 of 37 bytes)") == true)
        // Bit 2: the base is the HDR rendition.
        iso[4] = 0x4c
        #expect(map.readISO(iso) == nil && map.baseIsHDR)
    }
}
