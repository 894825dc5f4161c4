import Foundation
import Testing
import FilterChain
@testable import filterchain

/// `--encode NAME=VALUE`: every format option the registry declares reaches the command line
/// without a flag written for it, in help, validation and the written file.
@Suite struct EncodeOptionTests {
    let folder = CLI.temporaryFolder()

    func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, in: folder) }

    /// Each option of each writable format, set to a value it allows by its registry name
    /// and by its flag's name, writes the bytes its own flag writes.
    @Test func everyDeclaredOptionByEncodeEqualsItsFlag() throws {
        let input = CLI.samples + "/logo.png"
        for declaration in CodecRegistry.writable {
            let ext = declaration.extensions[0]
            for option in declaration.options {
                let value: String
                var flag: [String]
                switch option.kind {
                case .integer(let range):
                    value = String(range.lowerBound + (range.upperBound - range.lowerBound) / 3)
                    flag = [option.flag, value]
                case .boolean where option.defaultValue == .boolean(true):
                    // On by default: the tool's flag turns it off.
                    value = "false"
                    flag = ["--no-" + option.flag.dropFirst(2)]
                case .boolean:
                    value = "true"
                    flag = [option.flag]
                case .number(let range):
                    value = JSONWriter.number(range.lowerBound + (range.upperBound - range.lowerBound) / 10)
                    flag = [option.flag, value]
                case .choice(let values):
                    value = values.last!
                    flag = [option.flag, value]
                default:
                    Issue.record("\(option.name): an option kind --encode does not read")
                    continue
                }
                // The same output name each time, so that a refusal reads the same.
                func write(_ arguments: [String], to name: String) throws -> CLI.Result {
                    let r = try run(["apply", CLI.lookChain, input, "out.\(ext)"] + arguments)
                    if r.status == 0 {
                        try? FileManager.default.removeItem(atPath: folder + "/" + name)
                        try FileManager.default.moveItem(atPath: folder + "/out.\(ext)", toPath: folder + "/" + name)
                    }
                    return r
                }
                let byFlag = try write(flag, to: "flag.\(ext)")
                let bySet = try write(["--encode", "\(option.name)=\(value)"], to: "set.\(ext)")
                let byKebab = try write(["--encode", "\(option.flag.dropFirst(2))=\(value)"], to: "kebab.\(ext)")
                // An option that goes only with another (TIFF's quality, with JPEG compression)
                // is refused alone, in the same words either way; every other one is written.
                let typed: EncodeOptionValue = switch option.kind {
                case .integer: .integer(Int(value)!)
                case .boolean: .boolean(value == "true")
                case .number: .number(Double(value)!)
                default: .choice(value)
                }
                let refusedAlone = declaration.combinationProblem([option.name: typed], depth: nil) != nil
                #expect((byFlag.status != 0) == refusedAlone, "\(declaration.name) \(option.flag) \(value): \(byFlag.stderr)")
                #expect(byFlag.status == bySet.status && bySet.status == byKebab.status,
                        "\(declaration.name) \(option.name): \(byFlag.stderr) / \(bySet.stderr) / \(byKebab.stderr)")
                guard byFlag.status == 0 else {
                    #expect(!byFlag.stderr.isEmpty && byFlag.stderr == bySet.stderr && bySet.stderr == byKebab.stderr)
                    continue
                }
                let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/flag.\(ext)"))
                let b = try Data(contentsOf: URL(fileURLWithPath: folder + "/set.\(ext)"))
                let c = try Data(contentsOf: URL(fileURLWithPath: folder + "/kebab.\(ext)"))
                #expect(a == b && b == c, "\(declaration.name) \(option.name)=\(value): --encode wrote other bytes")
            }
        }
    }

    /// `apply --help` names every declared option under --encode, with the formats that take it.
    @Test func helpListsEveryDeclaredOption() throws {
        let help = String(decoding: try run(["apply", "--help"]).stdout, as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(help.contains("--encode <name=value>"))
        for name in CodecRegistry.optionNames {
            let kebab = String(EncodeOption.flag(for: name).dropFirst(2))
            let takers = CodecRegistry.formats(taking: name).map(\.name)
            let formats = takers.count == 1 ? takers[0] : takers.dropLast().joined(separator: ", ") + " and " + takers.last!
            #expect(help.contains("\(kebab) (\(formats))"), "\(kebab) (\(formats)) is not in apply --help")
        }
    }

    /// The options the tool reads off its own declarations as having a flag (`ownFlags`) are
    /// those `apply --help` lists as flags, and no other.
    @Test func ownFlagsAreTheFlagsInHelp() throws {
        let help = String(decoding: try run(["apply", "--help"]).stdout, as: UTF8.self)
        for name in CodecRegistry.optionNames {
            let flag = EncodeOption.flag(for: name)
            let listed = help.contains("  \(flag) <") || help.contains("  \(flag) ")
            #expect(listed == CodecOptions.ownFlags.contains(name), "\(flag): in help \(listed)")
        }
    }

    /// `formats` and the messages name an option as the tool takes it: its own flag, or,
    /// for an option without one (a new format's), `--encode`.
    @Test func optionsAreNamedAsTheToolTakesThem() throws {
        let all = Set(CodecRegistry.optionNames)
        #expect(CodecOptions.spelled("effort", ownFlags: all) == "--effort")
        #expect(CodecOptions.spelled("tiffCompression", "jpeg", ownFlags: all) == "--tiff-compression jpeg")
        #expect(CodecOptions.spelled("effort", ownFlags: []) == "--encode effort")
        #expect(CodecOptions.spelled("alphaQuality", "80", ownFlags: []) == "--encode alpha-quality=80")
        #expect(CodecOptions.spelled("depth", "8", ownFlags: []) == "--depth 8")
        let webp = ImageFormat.webp.declaration
        let withFlags = FormatDocs.text(webp, ownFlags: all), without = FormatDocs.text(webp, ownFlags: [])
        #expect(withFlags.contains("    --effort 0-6\n") && withFlags.contains("    --lossless\n"), "\(withFlags)")
        #expect(without.contains("    --encode effort=0-6\n") && without.contains("    --encode lossless=true\n"), "\(without)")
        // A message, as a usage error shows it.
        #expect(OptionProblem("{quality} is for lossy WebP").commandLine { CodecOptions.spelled($0, $1, ownFlags: []) }
                == "--encode quality is for lossy WebP")
        // Every option of every format, as `formats` would name it without a flag of its own
        // (everyDeclaredOptionByEncodeEqualsItsFlag runs each through the tool that way).
        for declaration in CodecRegistry.writable {
            let text = FormatDocs.text(declaration, ownFlags: [])
            for option in declaration.options {
                #expect(text.contains("    --encode " + EncodeOption.flag(for: option.name).dropFirst(2) + (option.kind == .boolean ? "=true\n" : "=")),
                        "\(declaration.name) \(option.name)")
            }
        }
    }

    @Test(arguments: [
        (["--encode", "qualty=80"], "o.jpg", "--encode qualty=80: 'qualty' is no format's option (did you mean quality?)"),
        (["--encode", "quality"], "o.jpg", "--encode quality: give NAME=VALUE, as in --encode quality=85"),
        (["--encode", "quality=high"], "o.jpg", "--encode quality=high: quality takes a whole number"),
        (["--encode", "lossless=yes"], "o.webp", "--encode lossless=yes: lossless takes true or false"),
        (["--quality", "80", "--encode", "quality=90"], "o.jpg", "--encode quality=90: --quality gives quality too; give it once"),
        (["--encode", "quality=80", "--encode", "quality=90"], "o.jpg", "--encode quality=90: --encode quality=80 gives quality too; give it once"),
        (["--encode", "quality=101"], "o.jpg", "--quality: 101 is out of range; allowed 1...100"),
        (["--encode", "effort=3"], "o.jpg", "--effort 3: JPEG output takes 0...2 (3 is for WebP, AVIF, HEIF and JPEG XL)"),
        (["--encode", "lossless=true"], "o.jpg", "--lossless is not an option of JPEG output; WebP and JPEG XL take it"),
    ])
    func refusals(arguments: [String], output: String, message: String) throws {
        let r = try run(["apply", CLI.lookChain, CLI.samples + "/logo.png", output] + arguments)
        #expect(r.status == 64, "\(r.stderr)")   // a usage error
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + output))
    }
}
