import ArgumentParser
import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChainCommand {
    struct ImageCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "image",
            abstract: "Add or remove the extra images steps may read (a blend's layer, an image mask).",
            discussion: """
                The file keeps the image's path relative to the chain file's folder.

                  filterchain chain image add look.json logos/logo.png --name logo
                  filterchain chain image remove look.json logo
                """,
            subcommands: [Add.self, Remove.self])

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add", abstract: "Add an image; prints its new id.",
                discussion: "  filterchain chain image add look.json logo.png --name logo")

            @Argument(help: "The chain file.") var file: String
            @Argument(help: "The image file (PNG or JPEG), relative to the working directory or absolute.") var image: String
            @Option(help: "A name for the image (unique among the chain's steps and images).") var name: String?

            func run() throws {
                var chain = try loadChain(file)
                let folder = ParameterContext(chainFile: file).directory
                let written = relativePath(image, from: folder)
                do {
                    try chain.addImage(ChainImage(name: name, file: written), relativeTo: folder, file: file)
                } catch {
                    // A file that cannot be read, or a name already taken, would make the
                    // chain invalid.
                    throw Failure.chain(error)
                }
                try ChainCommand.save(chain, to: file)
                Console.output(chain.images[chain.images.count - 1].id)
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove an image no step reads.",
                discussion: "  filterchain chain image remove look.json logo")

            @Argument(help: "The chain file.") var file: String
            @Argument(help: ArgumentHelp("The image's id or name.", valueName: "REF")) var image: String

            func run() throws {
                var chain = try loadChain(file)
                do { try chain.removeImage(Reference(image), file: file) } catch {
                    // REF naming no image is the command line's mistake; an image steps
                    // read cannot go (the chain would be invalid).
                    if case .referenced = error.problem { throw Failure.chain(error) }
                    throw Failure.usage(error.description)
                }
                try ChainCommand.save(chain, to: file)
            }
        }
    }
}

/// The image path the chain file keeps for `path` as given on the command line: an absolute
/// path as it is (unless `keepingAbsolute` is false); a relative one (from the working
/// directory) made relative to `folder`, the chain file's folder.
func relativePath(_ path: String, from folder: String, keepingAbsolute: Bool = true) -> String {
    if path.hasPrefix("/") && keepingAbsolute { return path }
    let target = normalised(absolute(path)), base = normalised(absolute(folder))
    var common = 0
    while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
    let parts = Array(repeating: "..", count: base.count - common) + target[common...]
    return parts.joined(separator: "/")
}

/// The components of an absolute path, with "." and ".." worked out.
private func normalised(_ path: String) -> [String] {
    var out: [String] = []
    for part in path.split(separator: "/") where part != "." {
        if part == ".." { if !out.isEmpty { out.removeLast() } } else { out.append(String(part)) }
    }
    return out
}

/// `path` from the root: relative paths start at the working directory.
private func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return path }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
}
