import Foundation
import Testing
@testable import FilterChain

/// The .cube reader: every accepted form, every refusal with its line, the interpolation
/// against the formulas, and loading once per process.
@Suite struct CubeLUTTests {
    static func parse(_ text: String) throws(CubeLUTError) -> CubeLUT { try CubeLUT(parsing: Array(text.utf8)) }

    /// A 2^3 table where each corner's colour is its own position, scaled: (r, g, b) -> (2r, g/2, b + 0.25).
    static let rows2 = (0..<8).map { i in
        let (r, g, b) = (Double(i & 1), Double((i >> 1) & 1), Double(i >> 2))
        return "\(2 * r) \(g / 2) \(b + 0.25)"
    }.joined(separator: "\n")

    @Test func plain3D() throws {
        let lut = try Self.parse("LUT_3D_SIZE 2\n" + Self.rows2 + "\n")
        let cube = try #require(lut.cube)
        #expect(cube.size == 2 && lut.shaper == nil && lut.title == nil)
        #expect(cube.entry(1, 0, 0) == SIMD3(2, 0, 0.25))   // red changes fastest
        #expect(cube.entry(0, 1, 0) == SIMD3(0, 0.5, 0.25))
        #expect(cube.entry(0, 0, 1) == SIMD3(0, 0, 1.25))
        #expect(cube.domainMin == SIMD3(0, 0, 0) && cube.domainMax == SIMD3(1, 1, 1))
    }

    /// Keywords in any order, comments, blank lines, CRLF, no final newline, a title with #.
    @Test func textForms() throws {
        let text = "# made by hand\r\n\r\nDOMAIN_MAX 2 2 2\r\n  TITLE \"look #1\"  \r\n\tLUT_3D_SIZE 2\r\nDOMAIN_MIN -1 0 0.5\r\n# data\r\n"
            + Self.rows2.replacingOccurrences(of: "\n", with: "\r\n\r\n")
        let lut = try Self.parse(text)
        #expect(lut.title == "look #1")
        let cube = try #require(lut.cube)
        #expect(cube.domainMin == SIMD3(-1, 0, 0.5) && cube.domainMax == SIMD3(2, 2, 2))
        #expect(cube.entry(1, 1, 1) == SIMD3(2, 0.5, 1.25))
    }

    @Test func plain1D() throws {
        let lut = try Self.parse("LUT_1D_SIZE 3\nLUT_1D_INPUT_RANGE 0 2\n0 0 1\n0.5 0.25 0.5\n1 1 0")
        let shaper = try #require(lut.shaper)
        #expect(lut.cube == nil && shaper.size == 3)
        #expect(shaper.values == [0, 0.5, 1, 0, 0.25, 1, 1, 0.5, 0])
        #expect(shaper.domainMin == SIMD3(repeating: 0) && shaper.domainMax == SIMD3(repeating: 2))
    }

    /// Resolve's shaper form: a 1D table, then a 3D table, each with its own input range.
    @Test func shaperForm() throws {
        let text = "LUT_1D_SIZE 2\nLUT_3D_SIZE 2\nLUT_1D_INPUT_RANGE -0.5 1.5\nLUT_3D_INPUT_RANGE 0 1\n0 0 0\n1 1 1\n" + Self.rows2
        let lut = try Self.parse(text)
        let shaper = try #require(lut.shaper), cube = try #require(lut.cube)
        #expect(shaper.domainMin == SIMD3(repeating: -0.5) && shaper.domainMax == SIMD3(repeating: 1.5))
        #expect(cube.domainMin == SIMD3(repeating: 0) && cube.entry(1, 1, 1) == SIMD3(2, 0.5, 1.25))
        // Through the kernel: (0.5, 0.5, 0.5) -> shaper 0.5 -> cube (1, 0.25, 0.75).
        let out = Catalogue.run(LUT.Kernel(lut: lut, intensity: 1), [SIMD4(0.5, 0.5, 0.5, 1)])
        #expect(largestDifference(out, [SIMD4(1, 0.25, 0.75, 1)]) < 1e-6)
    }

    @Test func resolve3DInputRange() throws {
        let lut = try Self.parse("LUT_3D_INPUT_RANGE 0.1 0.9\nLUT_3D_SIZE 2\n" + Self.rows2)
        #expect(lut.cube?.domainMin == SIMD3(repeating: 0.1) && lut.cube?.domainMax == SIMD3(repeating: 0.9))
    }

    static let rows = String(repeating: "0 0 0\n", count: 8)

    /// Every refusal, with its line.
    static let errors: [(String, Int?, String)] = [
        ("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1\n", 4, "expected 3 numbers, found 2"),
        ("LUT_3D_SIZE 2\n" + rows + "0 0 0 0\n", 10, "expected 3 numbers, found 4"),
        ("LUT_3D_SIZE 2\n" + rows + "1 1 1\n", 10, "more data rows than the sizes give (LUT_3D_SIZE 2: 8 rows)"),
        ("LUT_3D_SIZE 2\n0 0 0\n1 1 1\n", 3, "expected 8 data rows (LUT_3D_SIZE 2), found 2"),
        ("LUT_3D_SIZE 1\n0 0 0\n", 1, "LUT_3D_SIZE 1 is out of range; allowed 2...256"),
        ("LUT_3D_SIZE 257\n", 1, "LUT_3D_SIZE 257 is out of range; allowed 2...256"),
        ("LUT_1D_SIZE 65537\n", 1, "LUT_1D_SIZE 65537 is out of range; allowed 2...65536"),
        ("LUT_1D_SIZE 1\n", 1, "LUT_1D_SIZE 1 is out of range; allowed 2...65536"),
        ("LUT_3D_SIZE 2.5\n", 1, "LUT_3D_SIZE needs one whole number, found '2.5'"),
        ("LUT_3D_SIZE\n", 1, "LUT_3D_SIZE needs one whole number, found ''"),
        ("LUT_3D_SIZE 2\n# again\nLUT_3D_SIZE 2\n", 3, "LUT_3D_SIZE repeated (first on line 1)"),
        ("TITLE \"a\"\nTITLE \"b\"\n", 2, "TITLE repeated (first on line 1)"),
        ("DOMAIN_MIN 0 0 0\nDOMAIN_MIN 0 0 0\n", 2, "DOMAIN_MIN repeated (first on line 1)"),
        ("LUT_3D_SIZE 2\n0 0 0\nTITLE \"late\"\n", 3, "TITLE after the data; keywords come before the data"),
        ("0 0 0\n", 1, "data before LUT_3D_SIZE or LUT_1D_SIZE"),
        ("# nothing\nTITLE \"x\"\n", nil, "no LUT_3D_SIZE or LUT_1D_SIZE"),
        ("LUT_3D_SIZE 2\n0 0 nan\n", 2, "'nan' is not a finite number"),
        ("LUT_3D_SIZE 2\n0 inf 0\n", 2, "'inf' is not a finite number"),
        ("LUT_3D_SIZE 2\n0 1e999 0\n", 2, "'1e999' is not a finite number"),
        ("LUT_3D_SIZE 2\n0 x 0\n", 2, "'x' is not a number"),
        ("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 nan\n", 2, "'nan' is not a finite number"),
        ("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0\n", 2, "DOMAIN_MIN needs 3 numbers, found 2"),
        ("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 1\n" + rows, 2, "DOMAIN_MIN 1.0 is not below DOMAIN_MAX 1.0 on blue"),
        ("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 -1 1\n" + rows, 3, "DOMAIN_MIN 0.0 is not below DOMAIN_MAX -1.0 on green"),
        ("LUT_3D_SIZE 2\nLUT_3D_INPUT_RANGE 1 0\n", 2, "LUT_3D_INPUT_RANGE 1 0: the minimum must be below the maximum"),
        ("LUT_3D_SIZE 2\nLUT_3D_INPUT_RANGE 0\n", 2, "LUT_3D_INPUT_RANGE needs 2 numbers, found 1"),
        ("LUT_3D_SIZE 2\nLUT_1D_INPUT_RANGE 0 1\n" + rows, 2, "LUT_1D_INPUT_RANGE without LUT_1D_SIZE"),
        ("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nLUT_3D_INPUT_RANGE 0 1\n" + rows, 3,
         "the domain is given twice: by DOMAIN_MIN/DOMAIN_MAX (line 2) and LUT_3D_INPUT_RANGE"),
        ("TITLE look\n", 1, "TITLE needs its text in double quotes, like TITLE \"Film look\""),
        ("LUT_3D_SIZE 2\nLUT_3D_SIZES 2\n", 2, "unknown keyword 'LUT_3D_SIZES' (known: TITLE, LUT_1D_SIZE, LUT_3D_SIZE, DOMAIN_MIN, DOMAIN_MAX, LUT_1D_INPUT_RANGE, LUT_3D_INPUT_RANGE)"),
    ]

    @Test(arguments: errors)
    func refusals(text: String, line: Int?, reason: String) {
        #expect(throws: CubeLUTError(line: line, reason)) { try Self.parse(text) }
    }

    // MARK: - Interpolation

    /// A size-n table of random colours (some beyond [0, 1]) with a domain.
    static func randomTable(size n: Int, seed: UInt64, domain: String = "") -> String {
        var random = SeededRandom(seed)
        var text = "LUT_3D_SIZE \(n)\n" + domain
        for _ in 0..<(n * n * n) {
            text += (0..<3).map { _ in String(Double.random(in: -0.2...1.3, using: &random)) }.joined(separator: " ") + "\n"
        }
        return text
    }

    /// The kernel against the six cases (scalar Double), on random inputs in and
    /// beyond the domain, and on inputs made to fall in each case (and on ties).
    @Test(arguments: [(2, ""), (5, ""), (17, "DOMAIN_MIN -0.1 0 0.2\nDOMAIN_MAX 1.2 0.8 1\n"), (33, "LUT_3D_INPUT_RANGE -0.5 1.5\n")])
    func tetrahedralAgainstTheSixCases(size: Int, domain: String) throws {
        let lut = try Self.parse(Self.randomTable(size: size, seed: UInt64(size), domain: domain))
        var inputs = Catalogue.randomPixels(400, seed: UInt64(size) + 1)
        // Fractions ordered every way (and tied) inside one cell.
        let cell = 1.0 / Double(size - 1)
        for (a, b, c) in [(0.7, 0.4, 0.1), (0.7, 0.1, 0.4), (0.4, 0.1, 0.7), (0.1, 0.4, 0.7), (0.1, 0.7, 0.4), (0.4, 0.7, 0.1),
                          (0.5, 0.5, 0.2), (0.5, 0.2, 0.5), (0.2, 0.5, 0.5), (0.3, 0.3, 0.3), (0, 0, 0), (1, 1, 1)] {
            inputs.append(SIMD4(cell * a, cell * b, cell * c, 1))
            inputs.append(SIMD4(0.5 + cell * a, 0.25 + cell * b, cell * (1 + c), 0.5))
        }
        for intensity in [1.0, 0.8] {
            let out = Catalogue.run(LUT.Kernel(lut: lut, intensity: Float(intensity)), inputs)
            for (i, o) in zip(inputs, out) {
                let v = Reference.lutColor(lut, i[0], i[1], i[2])
                let expected = SIMD4(i[0] + intensity * (v[0] - i[0]), i[1] + intensity * (v[1] - i[1]), i[2] + intensity * (v[2] - i[2]), i[3])
                #expect(largestDifference([o], [expected]) < 1e-5, "input \(i): \(o) vs \(expected)")
            }
        }
    }

    /// The six cases of the issue against a plain trilinear-free check: on a table that is
    /// linear in r, g, b, tetrahedral interpolation is exact.
    @Test func linearTableIsExact() throws {
        var text = "LUT_3D_SIZE 9\n"
        for b in 0..<9 { for g in 0..<9 { for r in 0..<9 {
            let (x, y, z) = (Double(r) / 8, Double(g) / 8, Double(b) / 8)
            text += "\(0.5 * x + 0.2 * y) \(y - 0.3 * z) \(z + 0.1 * x)\n"
        } } }
        let lut = try Self.parse(text)
        let inputs = Catalogue.randomPixels(300, seed: 11).map { SIMD4(min(max($0[0], 0), 1), min(max($0[1], 0), 1), min(max($0[2], 0), 1), 1) }
        let out = Catalogue.run(LUT.Kernel(lut: lut, intensity: 1), inputs)
        for (i, o) in zip(inputs, out) {
            #expect(abs(o[0] - (0.5 * i[0] + 0.2 * i[1])) < 1e-5 && abs(o[1] - (i[1] - 0.3 * i[2])) < 1e-5 && abs(o[2] - (i[2] + 0.1 * i[0])) < 1e-5)
        }
    }

    /// The largest table (256^3): corner entries past 2^23, where the kernel reads them in
    /// two halves. Only the blue planes read are filled (linear, so the result is exact).
    @Test func largestTableIsExact() throws {
        let n = 256, planes = [126, 127, 128, 129, 130, 250, 251, 252, 253, 254, 255]
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: 4 * n * n * n)
        for b in planes { for g in 0..<n { for r in 0..<n {
            let (x, y, z) = (Float(r) / 255, Float(g) / 255, Float(b) / 255)
            (storage + 4 * (r + n * (g + n * b))).update(from: [0.5 * x + 0.2 * y, y - 0.3 * z, z + 0.1 * x, 0], count: 4)
        } } }
        let lut = CubeLUT(title: nil, shaper: nil, cube: CubeLUT.Table3D(size: n, domainMin: SIMD3(0, 0, 0), domainMax: SIMD3(1, 1, 1), storage: storage))
        var random = SeededRandom(12)
        let inputs = (0..<400).map { k in
            let b = k.isMultiple(of: 2) ? Double.random(in: 126.0...130.0, using: &random) : Double.random(in: 250.0...255.0, using: &random)
            return SIMD4(Double.random(in: 0...1, using: &random), Double.random(in: 0...1, using: &random), b / 255, 1)
        }
        let out = Catalogue.run(LUT.Kernel(lut: lut, intensity: 1), inputs)
        for (i, o) in zip(inputs, out) {
            #expect(abs(o[0] - (0.5 * i[0] + 0.2 * i[1])) < 1e-5 && abs(o[1] - (i[1] - 0.3 * i[2])) < 1e-5 && abs(o[2] - (i[2] + 0.1 * i[0])) < 1e-5,
                    "input \(i): \(o)")
        }
    }

    /// Plain data rows are read without strings: the same values, bit for bit, as
    /// Double(String) (which is strtod), and anything not plain is left to the general path.
    @Test func plainRowsReadAsDoubleDoes() throws {
        var random = SeededRandom(13)
        var tokens: [String] = ["0", "-0", "+0", "0.0", "-0.000000", "1", "1.000000", "0.5", "0.1", "0.3", "0.7",
                                "0.020000", "0.053445", "1e-5", "1E+3", "-2.5e-3", "123456789012345678", "9007199254740993",
                                "0.000000000000000001", "1e22", "1e-22", "3.4028235e38", "1.17549435e-38"]
        for _ in 0..<3000 {
            let digits = Int.random(in: 1...17, using: &random), point = Int.random(in: 0...digits, using: &random)
            var t = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            if point < digits { t.insert(".", at: t.index(t.startIndex, offsetBy: point == 0 ? 1 : point)) }
            if Bool.random(using: &random) { t = "-" + t }
            if Int.random(in: 0..<4, using: &random) == 0 { t += "e" + String(Int.random(in: -30...30, using: &random)) }
            tokens.append(t)
        }
        for k in stride(from: 0, to: tokens.count - 2, by: 3) {
            let line = "\(tokens[k]) \t\(tokens[k + 1])  \(tokens[k + 2])\t"
            let expected = try #require(Double(tokens[k])).bitPattern
            if let (r, g, b) = CubeParser.plainRow(Array(line.utf8)[...]) {
                #expect(r.bitPattern == expected && g.bitPattern == Double(tokens[k + 1])!.bitPattern
                        && b.bitPattern == Double(tokens[k + 2])!.bitPattern, "\(line)")
            }
        }
        // Most random rows take the fast path (so the comparison above is not empty).
        let taken = stride(from: 0, to: tokens.count - 2, by: 3).filter {
            CubeParser.plainRow(Array("\(tokens[$0]) \(tokens[$0 + 1]) \(tokens[$0 + 2])".utf8)[...]) != nil
        }.count
        #expect(taken > tokens.count / 6)
        for line in ["0.1 0.2", "0.1 0.2 0.3 0.4", "0.1 0.2 0.3 # note", ".5 0 0", "5. 0 0", "1e 0 0", "0x10 0 0", "inf 0 0",
                     "nan 0 0", "1,5 0 0", "0.1 0.2 0.3x", "LUT_3D_SIZE 2", "# 1 2 3", "1e99999 0 0", ""] {
            #expect(CubeParser.plainRow(Array(line.utf8)[...]) == nil, "\(line)")
        }
    }

    /// 1D: linear interpolation per channel, clamped to the domain.
    @Test func oneDimensional() throws {
        var random = SeededRandom(5)
        var text = "LUT_1D_SIZE 50\nDOMAIN_MIN 0 -0.2 0.1\nDOMAIN_MAX 1 1.2 0.9\n"
        for _ in 0..<50 { text += (0..<3).map { _ in String(Double.random(in: -0.1...1.1, using: &random)) }.joined(separator: " ") + "\n" }
        let lut = try Self.parse(text)
        let inputs = Catalogue.randomPixels(300, seed: 6)
        let out = Catalogue.run(LUT.Kernel(lut: lut, intensity: 1), inputs)
        for (i, o) in zip(inputs, out) {
            let v = Reference.lutColor(lut, i[0], i[1], i[2])
            #expect(largestDifference([o], [SIMD4(v[0], v[1], v[2], i[3])]) < 1e-5)
        }
    }

    /// NaN and infinite input (possible between steps) read inside the table: NaN and -inf
    /// as the domain's minimum, +inf as its maximum. (The table is read after the LUT that
    /// parsed it is gone: a table keeps its entries alive. It did not, and an optimised build
    /// under AddressSanitizer read freed memory here.)
    @Test func notANumberStaysInTheTable() throws {
        let cube = try #require(try Self.parse("LUT_3D_SIZE 2\n" + Self.rows2).cube)
        let v = withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: CubeLUT.Table3D.scratchLanes) { lanes in
            cube.lookup(SIMD8(repeating: .nan), SIMD8(repeating: .infinity), SIMD8(repeating: -.infinity),
                        scratch: UnsafeMutableRawPointer(lanes.baseAddress!))
        }
        #expect(v.0 == SIMD8(repeating: 0) && v.1 == SIMD8(repeating: 0.5) && v.2 == SIMD8(repeating: 0.25))
        let shaper = try #require(try Self.parse("LUT_1D_SIZE 2\n0 0 0\n1 2 3\n").shaper)
        #expect(shaper.lookup(SIMD8(repeating: .nan), channel: 1) == SIMD8(repeating: 0))
        #expect(shaper.lookup(SIMD8(repeating: .infinity), channel: 2) == SIMD8(repeating: 3))
    }

    // MARK: - Files

    /// Written whole, by a rename: the suites run in parallel and several write the same table
    /// under the same name, so a file written in place could be read half written.
    static func writeFile(_ text: String, in folder: URL, _ name: String) -> String {
        let path = folder.appendingPathComponent(name).path
        try! FileManager.default.createDirectory(at: folder.appendingPathComponent(name).deletingLastPathComponent(),
                                                 withIntermediateDirectories: true)
        try! text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A file is parsed once per process: the same object every time; a changed file is read again.
    @Test func loadedOncePerProcess() throws {
        let folder = TestData.temporaryFolder()
        let path = Self.writeFile("LUT_3D_SIZE 2\n" + Self.rows2, in: folder, "once.cube")
        let first = try CubeLUT.load(path)
        #expect(try CubeLUT.load(path) === first)
        let chainText = "{\"version\": 1, \"filters\": [{\"id\": \"\(Catalogue.id)\", \"type\": \"lut\", \"parameters\": {\"file\": \"once.cube\"}}]}"
        for _ in 0..<3 {
            let chain = try Chain.parse(Array(chainText.utf8), file: folder.appendingPathComponent("look.json").path)
            #expect((chain.steps[0].filter as? LUT)?.file?.lut === first)
        }
        _ = Self.writeFile("LUT_3D_SIZE 2\n" + Self.rows2 + "\n# edited, longer\n", in: folder, "once.cube")
        let edited = try CubeLUT.load(path)
        #expect(edited !== first)
        #expect(try CubeLUT.load(path) === edited)
    }

    /// Paths are relative to the chain file's folder (or absolute), and kept as written.
    @Test func pathsRelativeToTheChainFile() throws {
        let folder = TestData.temporaryFolder()
        _ = Self.writeFile("LUT_3D_SIZE 2\n" + Self.rows2, in: folder, "luts/look.cube")
        let absolute = Self.writeFile("LUT_3D_SIZE 2\n" + Self.rows2, in: folder, "abs.cube")
        for file in ["luts/look.cube", "./luts/../luts/look.cube", absolute] {
            let text = "{\"version\": 1, \"filters\": [{\"id\": \"\(Catalogue.id)\", \"type\": \"lut\", \"parameters\": {\"file\": \"\(file)\", \"intensity\": 0.5}}]}"
            let chainPath = folder.appendingPathComponent("look.json").path
            let chain = try Chain.parse(Array(text.utf8), file: chainPath)
            #expect((chain.steps[0].filter as? LUT)?.file?.path == file)
            #expect(chain.jsonText.contains("\"file\": \"\(file)\""))
            // From another working directory, the folder still comes from the chain's path.
            #expect(Catalogue.refusal("lut", "\"file\": \"\(file)\"", file: "elsewhere/look.json") != nil || file == absolute)
        }
    }

    /// Bad files make the chain invalid with the chain file, JSON path, LUT file and line.
    @Test func badFilesInChains() throws {
        let folder = TestData.temporaryFolder()
        _ = Self.writeFile("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1\n", in: folder, "film.cube")
        let chainPath = folder.appendingPathComponent("look.json").path
        func message(_ parameters: String) -> String {
            let text = "{\"version\": 1, \"filters\": [{\"id\": \"\(Catalogue.id)\", \"type\": \"lut\"\(parameters)}]}"
            do { _ = try Chain.parse(Array(text.utf8), file: chainPath); return "accepted" } catch { return error.description }
        }
        #expect(message(", \"parameters\": {\"file\": \"film.cube\"}") == "\(chainPath): filters[0].parameters.file: film.cube:4: expected 3 numbers, found 2")
        // A file that cannot be opened: where it was looked for, and that paths are relative
        // to the chain file's folder.
        let here = URL(fileURLWithPath: folder.path).standardized.path
        #expect(message(", \"parameters\": {\"file\": \"missing.cube\"}") == "\(chainPath): filters[0].parameters.file: missing.cube: no such file (looked for \(here)/missing.cube; paths in a chain file are relative to its folder)")
        #expect(message(", \"parameters\": {\"file\": \".\"}") == "\(chainPath): filters[0].parameters.file: .: is a directory (looked for \(here); paths in a chain file are relative to its folder)")
        #expect(message(", \"parameters\": {\"file\": \"/nonexistent/missing.cube\"}") == "\(chainPath): filters[0].parameters.file: /nonexistent/missing.cube: no such file")
        #expect(message(", \"parameters\": {\"intensity\": 0.5}").hasPrefix("\(chainPath): filters[0].parameters: missing \"file\""))
        #expect(message("").hasPrefix("\(chainPath): filters[0].parameters: missing \"file\""))
        #expect(message(", \"parameters\": {\"file\": 3}").hasPrefix("\(chainPath): filters[0].parameters.file: expected a path to a .cube file, found a number"))
    }
}
