import Foundation
import Testing

/// A JPEG's HDR gain map is not carried through a chain yet: a render says so, once, naming
/// the file and the map (or why a damaged one was left out), and still writes the SDR image.
/// Files from ../shared/conformance/hdr (manifest.tsv says what each holds).
@Suite struct GainMapNoticeTests {
    let folder = CLI.temporaryFolder()
    static let hdr = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/hdr/files")

    func apply(_ name: String) throws -> (CLI.Result, Bool) {
        let input = Self.hdr.appendingPathComponent(name).path
        let output = folder + "/out.png"
        try? FileManager.default.removeItem(atPath: output)
        try Data(#"{"version": 1, "filters": []}"#.utf8).write(to: URL(fileURLWithPath: folder + "/empty.json"))
        let r = try CLI.run(["apply", folder + "/empty.json", input, output], in: folder)
        return (r, FileManager.default.fileExists(atPath: output))
    }

    @Test(arguments: [("gen_chelsea_300x451_s2.jpg", "ISO 21496-1, 150x225"), ("gen_chelsea_xmp_only_s2.jpg", "Ultra HDR, 150x225"),
                      ("libultrahdr_apple_gainmap_new.jpg", "Apple's, 192x256")])
    func aGainMapThatIsNotKeptIsSaid(file: String, map: String) throws {
        let (r, written) = try apply(file)
        #expect(r.status == 0 && written, "\(r.stderr)")
        let line = "\(file): its HDR gain map (\(map)) is not kept: the output is the SDR image only"
        #expect(r.stderr.components(separatedBy: line).count == 2, "\(r.stderr)")
    }

    @Test func aDamagedGainMapIsHarmlessDamageWithItsReason() throws {
        let (r, written) = try apply("bad_mpf_offset_past_eof.jpg")
        #expect(r.status == 0 && written, "\(r.stderr)")
        #expect(r.stderr.contains("bad_mpf_offset_past_eof.jpg: an HDR gain map was left out: the gain map's offset in the MPF index (386288) lies past the end of the file"),
                "\(r.stderr)")
    }

    @Test(arguments: ["pillow_sugarshack.mpo", "pillow_ignore_frame_size.mpo"])
    func aStereoPairsSecondImageIsNoGainMap(file: String) throws {
        let (r, written) = try apply(file)
        #expect(r.status == 0 && written, "\(r.stderr)")
        #expect(!r.stderr.contains("gain map"), "\(r.stderr)")
    }
}
