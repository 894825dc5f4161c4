import Foundation
import Testing
import FilterChain

@Suite struct FormatsTests {
    let folder = CLI.temporaryFolder()

    @Test func formatsJSONListsEveryRegisteredFormatWithItsOptions() throws {
        let r = try CLI.run(["formats", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let list = try JSONSerialization.jsonObject(with: r.stdout) as! [[String: Any]]
        #expect(list.map { $0["format"] as! String } == CodecRegistry.declarations.map(\.format.id))
        for (entry, declaration) in zip(list, CodecRegistry.declarations) {
            #expect(entry["extensions"] as? [String] == declaration.extensions)
            #expect(entry["alpha"] as? Bool == declaration.capabilities.alpha)
            #expect(entry["depths"] as? [Int] == declaration.capabilities.depths.map(\.rawValue))
            let options = entry["options"] as! [[String: Any]]
            #expect(options.map { $0["flag"] as! String } == declaration.options.map(\.flag))
        }
        let text = try CLI.run(["formats", "jpg"])
        #expect(text.status == 0 && text.out.hasPrefix("jpeg: JPEG (.jpg, .jpeg)") && text.out.contains("--quality 1-100"))
        #expect(try CLI.run(["formats", "bmp"]).status == 64)
    }

    /// Every format option of the tool is one the registry declares, so `formats` lists it.
    @Test func everyCodecFlagIsDeclaredByAFormat() throws {
        let help = try CLI.run(["apply", "--help"]).out
        // An option on by default has the flag that turns it off (--no-jpeg-reconstruction).
        let declared = Set(CodecRegistry.writable.flatMap { $0.options.map { $0.defaultValue == .boolean(true) ? "--no-" + $0.flag.dropFirst(2) : $0.flag } })
        for flag in declared { #expect(help.contains(flag + " ") || help.contains(flag + "\n"), "\(flag)") }
    }

    /// An option the output format does not take is a usage error naming the formats that take it.
    @Test(arguments: [(["--quality", "80"], "out.png", "--quality is not an option of PNG output; JPEG"),
                      (["--progressive"], "out.png", "--progressive is not an option of PNG output; JPEG takes it"),
                      (["--compression", "3"], "out.jpg", "--compression is not an option of JPEG output; PNG and TIFF take it"),
                      (["--depth", "16"], "out.jpg", "JPEG holds 8 bits only")])
    func anOptionTheOutputDoesNotTakeIsAUsageError(options: [String], output: String, message: String) throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", output] + options, in: folder)
        #expect(r.status == 64)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(CLI.files(in: folder).isEmpty)
    }

    /// A preview in a format of its own takes what of the options fits it.
    /// (TIFF takes --quality with its jpeg compression only: a TIFF preview drops it.)
    @Test(arguments: ["p.png", "p.tif"])
    func aPreviewInAnotherFormatIgnoresTheMainOutputsOptions(preview: String) throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "out.jpg", "--quality", "70",
                             "--preview", "1", "--preview-output", preview], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.files(in: folder) == ["out.jpg", preview])
        let sheet = try CLI.run(["steps", CLI.lookChain, CLI.samples + "/chelsea.png", "--output-dir", "s", "--format", "jpeg",
                                 "--quality", "70", "--sheet", "s/sheet." + preview.split(separator: ".").last!], in: folder)
        #expect(sheet.status == 0, "\(sheet.stderr)")
    }

    /// Batch --json reports the format and every option used.
    @Test func batchJSONReportsTheFormatAndOptions() throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "--output-dir", "o",
                             "--format", "jpeg", "--quality", "81", "--json"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let line = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        #expect(line["format"] as? String == "jpeg" && line["quality"] as? Int == 81)
        let options = line["options"] as! [String: Any]
        #expect(options["quality"] as? Int == 81 && options["chroma"] as? String == "4:2:0" && options["progressive"] as? Bool == false)
    }
}
