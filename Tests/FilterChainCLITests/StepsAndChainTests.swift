import Foundation
import Testing
import FilterChain

@Suite struct StepsAndChainTests {
    let folder = CLI.temporaryFolder()

    @Test func stepsWritesEveryStepAndASheet() throws {
        var chain = try Chain.load(CLI.lookChain)
        chain.steps[1].enabled = false
        try chain.save(to: folder + "/chain.json")
        let r = try CLI.run(["steps", "chain.json", CLI.samples + "/chelsea.png", "--output-dir", "s", "--sheet", "sheet.png"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.files(in: folder + "/s") == ["00-input.png", "01-colour.png", "02-curve.png", "03-soften.png"])
        #expect(try CLI.pixels(folder + "/s/00-input.png").1 == CLI.pixels(CLI.samples + "/chelsea.png").1)
        // The disabled step leaves the image as it was.
        #expect(try CLI.pixels(folder + "/s/02-curve.png").1 == CLI.pixels(folder + "/s/01-colour.png").1)
        let a = try CLI.run(["apply", "chain.json", CLI.samples + "/chelsea.png", "final.png"], in: folder)
        #expect(a.status == 0)
        #expect(try CLI.pixels(folder + "/s/03-soften.png").1 == CLI.pixels(folder + "/final.png").1)
        #expect(CLI.files(in: folder).sorted() == ["chain.json", "final.png", "s", "sheet.png"])

        // chelsea is 451 x 300: thumbnails 240 x 160 (300 x 240 / 451 = 159.6), in cells of
        // 256 x 198 (8 pixels around, a 22-pixel label below), four in a row.
        let (info, sheet) = try CLI.pixels(folder + "/sheet.png")
        #expect((info.width, info.height) == (1024, 198))
        for (i, name) in ["00-input.png", "01-colour.png", "02-curve.png", "03-soften.png"].enumerated() {
            let (stepInfo, step) = try CLI.pixels(folder + "/s/" + name)
            let thumb = Self.boxAverage(step, width: stepInfo.width, height: stepInfo.height, to: 240, 160)
            var worst = 0
            for y in 0..<160 {
                for x in 0..<240 {
                    for c in 0..<3 {
                        let on = Int(sheet[((8 + y) * 1024 + i * 256 + 8 + x) * 3 + c])
                        worst = max(worst, abs(on - thumb[(y * 240 + x) * 3 + c]))
                    }
                }
            }
            #expect(worst <= 1, "\(name): thumbnail differs by \(worst)")
            // Background around the thumbnail, dark label text below it, centred in the cell.
            #expect(sheet[((4 * 1024) + i * 256 + 128) * 3] == 236)
            var dark: [Int] = []
            for y in 176..<198 {
                for x in 0..<256 where sheet[(y * 1024 + i * 256 + x) * 3] == 20 { dark.append(x) }
            }
            let label = ["0 input", "1 colour", "2 curve", "3 soften"][i]
            // 5 x 7 glyphs drawn twice as large; the last column of a glyph is blank.
            let textWidth = label.count * 10
            #expect(!dark.isEmpty && dark.min()! >= (256 - textWidth) / 2 && dark.max()! < (256 + textWidth) / 2,
                    "\(label): text at \(dark.min() ?? -1)...\(dark.max() ?? -1)")
        }
    }

    /// Each thumbnail pixel the plain mean of its box of source pixels, 8-bit RGB(A) (alpha
    /// is not used by these images).
    static func boxAverage(_ pixels: [UInt8], width: Int, height: Int, to tw: Int, _ th: Int) -> [Int] {
        let n = pixels.count / (width * height)
        var out = [Int](repeating: 0, count: tw * th * 3)
        for ty in 0..<th {
            for tx in 0..<tw {
                let ys = (ty * height / th)..<((ty + 1) * height / th), xs = (tx * width / tw)..<((tx + 1) * width / tw)
                for c in 0..<3 {
                    var sum = 0.0
                    for y in ys { for x in xs { sum += Double(pixels[(y * width + x) * n + c]) } }
                    out[(ty * tw + tx) * 3 + c] = Int((sum / Double(ys.count * xs.count)).rounded())
                }
            }
        }
        return out
    }

    /// A sheet that cannot be written (its folder is missing, found only when it is made,
    /// after the render) leaves no step file behind and no temporary file; the step files
    /// of an earlier run stay as they were.
    @Test func stepsAndSheetAreAllOrNothing() throws {
        try FileManager.default.createDirectory(atPath: folder + "/s", withIntermediateDirectories: true)
        CLI.write("earlier", to: folder + "/s/01-colour.png")
        let r = try CLI.run(["steps", CLI.lookChain, CLI.samples + "/chelsea.png", "--output-dir", "s", "--sheet", "missing/sheet.png"], in: folder)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("filterchain: error: missing/sheet.png: "), "\(r.stderr)")
        #expect(CLI.files(in: folder + "/s") == ["01-colour.png"])
        #expect(try String(contentsOfFile: folder + "/s/01-colour.png", encoding: .utf8) == "earlier")
        #expect(CLI.files(in: folder) == ["s"])

        // A folder where a step file or the sheet would go is refused before any work.
        try FileManager.default.createDirectory(atPath: folder + "/s/02-curve.png", withIntermediateDirectories: true)
        let folderInTheWay = try CLI.run(["steps", CLI.lookChain, CLI.samples + "/chelsea.png", "--output-dir", "s"], in: folder)
        #expect(folderInTheWay.status == 1)
        #expect(folderInTheWay.stderr.contains("s/02-curve.png: is a folder"), "\(folderInTheWay.stderr)")
        #expect(CLI.files(in: folder + "/s") == ["01-colour.png", "02-curve.png"])
    }

    @Test func filtersListsEveryTypeFromTheDeclarations() throws {
        let r = try CLI.run(["filters"])
        #expect(r.status == 0)
        for info in FilterRegistry.infos {
            #expect(r.out.contains(info.type + ": " + info.summary))
            for p in info.parameters { #expect(r.out.contains("  " + p.name + "\n      " + p.help)) }
        }
        let one = try CLI.run(["filters", "gaussianBlur"])
        #expect(one.status == 0 && one.out.contains("ceil(4 sigma)") && !one.out.contains("toneCurve"))
        let json = try CLI.run(["filters", "--json"])
        let list = try JSONSerialization.jsonObject(with: json.stdout) as! [[String: Any]]
        #expect(list.map { $0["type"] as! String } == FilterRegistry.names)
        let sigma = (list[2]["parameters"] as! [[String: Any]])[0]
        #expect(sigma["name"] as? String == "sigma" && sigma["maximum"] as? Double == 500 && sigma["default"] as? Double == 2)
        // Parameters in pixels say so (a preview at another scale scales them).
        #expect(sigma["unit"] as? String == "pixels")
        #expect((list[0]["parameters"] as! [[String: Any]]).allSatisfy { $0["unit"] == nil })
        #expect(try CLI.run(["filters", "blur"]).status == 64)
    }

    @Test func chainEditingFromScripts() throws {
        #expect(try CLI.run(["chain", "new", "c.json"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "new", "c.json"], in: folder).status == 64)
        let add1 = try CLI.run(["chain", "add", "c.json", "colorControls", "--name", "colour", "saturation=1.2"], in: folder)
        #expect(add1.status == 0, "\(add1.stderr)")
        let id1 = add1.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id1) != nil)
        let add2 = try CLI.run(["chain", "add", "c.json", "gaussianBlur", "sigma=3"], in: folder)
        let id2 = add2.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let add3 = try CLI.run(["chain", "add", "c.json", "toneCurve", "--at", "1", "points=[[0,0.1],[1,0.9]]", "interpolation=linear"], in: folder)
        #expect(add3.status == 0, "\(add3.stderr)")
        let id3 = add3.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try CLI.run(["chain", "set", "c.json", "colour", "contrast=1.1", "brightness=0.05"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "move", "c.json", String(id2.prefix(6)), "--to", "1"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "disable", "c.json", "3"], in: folder).status == 0)
        var chain = try Chain.load(folder + "/c.json")
        #expect(chain.steps.map(\.id) == [id2, id3, id1])
        #expect(chain.steps.map(\.enabled) == [true, true, false])
        let colour = chain.steps[2].filter as! ColorControls
        #expect(colour.saturation == 1.2 && colour.contrast == 1.1 && colour.brightness == 0.05)
        #expect((chain.steps[1].filter as! ToneCurve).interpolation == .linear)
        #expect(try CLI.run(["chain", "enable", "c.json", "colour"], in: folder).status == 0)

        // Bad values are refused with the chain's message, and the file is not touched. An
        // edit that would make the chain invalid exits 65, as the invalid file would (README,
        // "Exit status"); a command line that cannot be understood exits 64.
        let before = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        let bad = try CLI.run(["chain", "set", "c.json", "colour", "saturaton=2"], in: folder)
        #expect(bad.status == 65 && bad.stderr.contains("did you mean 'saturation'?"), "\(bad.stderr)")
        let range = try CLI.run(["chain", "set", "c.json", id2, "sigma=-1"], in: folder)
        #expect(range.status == 65 && range.stderr.contains("filters[0].parameters.sigma"), "\(range.stderr)")
        let saturation = try CLI.run(["chain", "set", "c.json", "colour", "saturation=9"], in: folder)
        #expect(saturation.status == 65 && saturation.stderr.contains("9 is out of range; allowed 0...4"), "\(saturation.stderr)")
        let blur = try CLI.run(["chain", "add", "c.json", "blur"], in: folder)
        #expect(blur.status == 65 && blur.stderr.contains("did you mean 'gaussianBlur'?"), "\(blur.stderr)")
        let duplicate = try CLI.run(["chain", "set", "c.json", id2, "--name", "colour"], in: folder)
        #expect(duplicate.status == 65 && duplicate.stderr.contains("already used"), "\(duplicate.stderr)")
        let syntax = try CLI.run(["chain", "set", "c.json", "colour", "saturation"], in: folder)
        #expect(syntax.status == 64 && syntax.stderr.contains("write parameters as name=value"), "\(syntax.stderr)")
        let noStep = try CLI.run(["chain", "set", "c.json", "nothing", "sigma=1"], in: folder)
        #expect(noStep.status == 64, "\(noStep.stderr)")
        let at = try CLI.run(["chain", "add", "c.json", "invert", "--at", "9"], in: folder)
        #expect(at.status == 64 && at.stderr.contains("--at 9"), "\(at.stderr)")
        #expect(try String(contentsOfFile: folder + "/c.json", encoding: .utf8) == before)

        let show = try CLI.run(["chain", "show", "c.json"], in: folder)
        #expect(show.status == 0)
        let lines = show.out.split(separator: "\n")
        #expect(lines.count == 5 && lines[3].contains(String(id3.prefix(8))) && lines[4].contains("colour"))
        #expect(try CLI.run(["chain", "remove", "c.json", "colour"], in: folder).status == 0)
        chain = try Chain.load(folder + "/c.json")
        #expect(chain.steps.map(\.id) == [id2, id3])
        #expect(CLI.files(in: folder) == ["c.json"])
        // The edited chain runs.
        #expect(try CLI.run(["apply", "c.json", CLI.samples + "/chelsea.png", "o.png"], in: folder).status == 0)
    }
}

@Suite struct DocumentationTests {
    /// filters.md is generated from the declarations: it holds what `filters TYPE --markdown`
    /// prints for every type (regenerate with `sh samples/make-filters-md.sh`).
    @Test func filtersMarkdownMatchesTheDeclarations() throws {
        let doc = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent("filters.md").path, encoding: .utf8)
        for type in FilterRegistry.names {
            let r = try CLI.run(["filters", type, "--markdown"])
            #expect(r.status == 0)
            #expect(doc.contains(r.out), "filters.md is out of date for \(type)")
            #expect(doc.contains("samples/filters/\(type)-after.jpg"))
            #expect(FileManager.default.fileExists(atPath: CLI.samples + "/filters/\(type)-after.jpg"))
        }
    }

    /// The DocC catalogue's topics (FilterChain.md) list every filter, in a group of its
    /// kind, and every public type of the library, so that DocC adds no ungrouped list of
    /// leftovers. (`swift package generate-documentation --target FilterChain
    /// --warnings-as-errors` checks that each link resolves.)
    @Test func doccTopicsListEveryFilterAndEveryPublicType() throws {
        let root = CLI.packageRoot.appendingPathComponent("Sources/FilterChain")
        let topics = try String(contentsOf: root.appendingPathComponent("FilterChain.docc/FilterChain.md"), encoding: .utf8)
        let listed = Set(topics.components(separatedBy: "\n").compactMap { line -> String? in
            guard line.hasPrefix("- ``"), line.hasSuffix("``") else { return nil }
            return String(line.dropFirst(4).dropLast(2))
        })
        for type in FilterRegistry.types {
            #expect(listed.contains(String(describing: type)), "FilterChain.md does not list \(type)")
        }
        let groups = ["### Colour filters", "### Tone filters", "### Detail filters", "### Geometry filters", "### Graphs, blends and masks"]
        for group in groups { #expect(topics.contains(group + "\n")) }
        // Each filter under the heading of the group it declares.
        let headings: [FilterGroup: String] = [.colour: groups[0], .tone: groups[1], .detail: groups[2], .geometry: groups[3],
                                               .compositing: groups[4]]
        for type in FilterRegistry.types {
            let heading = try #require(headings[type.info.group])
            let section = try #require(topics.components(separatedBy: heading + "\n").dropFirst().first)
            let listing = section.components(separatedBy: "\n### ")[0]
            #expect(listing.contains("- ``\(type)``"), "FilterChain.md lists \(type) outside \(heading)")
        }
        var declared: [String] = []
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
        for case let url as URL in files where url.pathExtension == "swift" {
            for line in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n") {
                for kind in ["public struct ", "public enum ", "public final class ", "public class ", "public protocol "] where line.hasPrefix(kind) {
                    declared.append(String(line.dropFirst(kind.count).prefix { $0.isLetter || $0.isNumber }))
                }
            }
        }
        #expect(declared.count > 50)
        for name in declared { #expect(listed.contains(name), "FilterChain.md does not list the public type \(name)") }
        // Plumbing is not public: the package's own targets use it.
        for name in ["EncoderJob", "ContactSheet", "OutputLayout", "TemporaryFiles", "LCMSKernel", "MatrixTRCKernel"] {
            #expect(!declared.contains(name), "\(name) is public")
        }
    }
}
