/// Why a chain file was refused: the file, where in it (the JSON path, and line and
/// column), and the problem with the values a person needs to fix it.
public struct ChainError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case unreadable(String)
        case unwritable(String)
        case syntax(String)
        case missingKey(String)
        case unknownKey(String, suggestion: String?, allowed: [String])
        case wrongType(expected: String, found: String)
        case notFinite
        case outOfRange(Double, ClosedRange<Double>)
        /// A value that is not among those allowed.
        case notAllowed(String, allowed: String, suggestion: String?)
        case unknownFilterType(String, suggestion: String?, known: [String])
        case unknownParameter(String, filter: String, suggestion: String?, allowed: [String])
        case invalidID(String)
        case duplicateID(String, first: String)
        /// A step name used twice: the name and the first step's path ("filters[0]").
        case duplicateName(String, first: String)
        case unsupportedVersion(String)
        /// Parameters that are each allowed but not together: what is wrong, what is allowed.
        case combination(String)
        /// A file a parameter names (a .cube LUT) is missing, unreadable or malformed:
        /// the path as written, the line in that file (nil: the whole file) and why.
        case lutFile(file: String, line: Int?, reason: String)
        /// A reference that names nothing the step may read: the text as written, the closest
        /// name the step may read, and what it may read (`"source", the images (logo) and the
        /// steps above it (soft)`).
        case unknownReference(String, suggestion: String?, readable: String)
        /// A reference to the step itself or to a step below it: the text as written, the
        /// step it names and the step that refers to it (1-based positions and labels).
        case laterReference(String, target: Int, targetLabel: String, step: Int, stepLabel: String)
        /// A step or image named "source", which references keep for the decoded input.
        case reservedName(String)
        /// An image of `images` that is missing, unreadable or not an image: the path as
        /// written and why.
        case imageFile(file: String, reason: String)
        /// An image of `images` whose pixels were never read (a chain built in code).
        case imageNotLoaded(file: String)
        /// A mask on a geometry step: the step's position (1-based), label and type.
        case maskOnGeometryStep(step: Int, label: String, type: String)
        /// A version 1 file using what only version 2 says (`"images"`, `"input"`, ...).
        case needsVersion2(String)
        /// An edit would remove what steps read: what ("step 2 (soft)", "image logo") and
        /// the steps that read it, with where ("step 3 (glow) in parameters.layer").
        case referenced(String, readers: [String])
        /// A move would leave steps reading steps at or below them: the step moved, the
        /// position it would take, and each broken reference ("glow reads soft").
        case moveBreaksReferences(String, to: Int, broken: [String])
        /// A graph edit (`Chain.connect`, `disconnect`, ...) that cannot be made, and why.
        case graphEdit(String)
        /// An expression (`"=2 * strength"`) that cannot be read or evaluated: its text and
        /// the error, which says at which character.
        case expression(String, ExpressionError)
        /// An expression whose value its parameter (or variable) does not allow: the text,
        /// the value it took (for a whole number, rounded; `unrounded` the value before),
        /// what is allowed, and the step's input size when the expression reads a size.
        case expressionValue(String, value: Double, unrounded: Double?, allowed: String, size: ImageSize?)
        /// A variable name that cannot be used: the name and why.
        case variableName(String, why: String)
        /// A variable declared twice: the name and the first declaration's index.
        case duplicateVariable(String, first: Int)
        /// A variable, or a value given for one, that does not exist: the name, the closest
        /// declared name, and the declared names.
        case unknownVariable(String, suggestion: String?, declared: [String])
    }

    public var file: String
    /// Like `filters[2].parameters.sigma`; empty for the whole document.
    public var path: String
    public var line: Int?
    public var column: Int?
    public var problem: Problem

    public init(file: String, path: String = "", line: Int? = nil, column: Int? = nil, problem: Problem) {
        self.file = file
        self.path = path
        self.line = line
        self.column = column
        self.problem = problem
    }

    public var message: String {
        switch problem {
        case .unreadable(let why): return "cannot read the chain file: \(why)"
        case .unwritable(let why): return "cannot write the chain file: \(why)"
        case .syntax(let why): return "invalid JSON: \(why)"
        case .unknownKey(let key, let suggestion, let allowed):
            return "unknown key '\(key)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "; allowed: " + allowed.joined(separator: ", "))
        case .wrongType(let expected, let found): return "expected \(expected), found \(found)"
        case .notFinite: return "the number is not finite"
        case .outOfRange(let v, let range):
            return "\(JSONWriter.number(v)) is out of range; allowed \(JSONWriter.number(range.lowerBound))...\(JSONWriter.number(range.upperBound))"
        case .notAllowed(let what, let allowed, let suggestion):
            return "\(what) is not allowed" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "") + "; allowed: \(allowed)"
        case .unknownFilterType(let type, let suggestion, let known):
            return "unknown filter type '\(type)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "") + " (known: \(known.joined(separator: ", ")))"
        case .unknownParameter(let name, let filter, let suggestion, let allowed):
            return "unknown parameter '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
                + (allowed.isEmpty ? " (\(filter) takes no parameters)" : " (\(filter) takes \(allowed.joined(separator: ", ")))")
        case .invalidID(let id):
            return "\"\(id)\" is not a UUID (like \"0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41\"); make one with 'uuidgen', or add steps with 'filterchain chain add'"
        case .missingKey("id"):
            return "missing \"id\": every step needs a UUID; make one with 'uuidgen', or add steps with 'filterchain chain add', which writes it"
        case .duplicateName(let name, let first):
            return "the name '\(name)' is already used by \(first); names must be unique among a chain's steps and images"
        case .missingKey(let key): return "missing \"\(key)\""
        case .duplicateID(let id, let first): return "id \(id) is already used by \(first)"
        case .combination(let why): return why
        case .unsupportedVersion(let v): return "version \(v) is not supported; this filterchain reads versions 1 and 2"
        case .lutFile(let file, let line, let reason): return file + (line.map { ":\($0)" } ?? "") + ": " + reason
        case .unknownReference(let text, let suggestion, let readable):
            return "\"\(text)\" names nothing the step may read"
                + (suggestion.map { "; did you mean \"\($0)\"? A step may read " } ?? "; a step may read ") + readable
        case .laterReference(let text, let target, let targetLabel, let step, let stepLabel):
            let whereItIs = target == step ? "itself" : "below step \(step) (\(stepLabel))"
            return "\"\(text)\" is step \(target) (\(targetLabel)), \(whereItIs); "
                + "a step may read only the source, the images and the steps above it"
        case .reservedName(let name):
            return "the name \"\(name)\" is reserved: references use it for the decoded input; choose another name"
        case .imageFile(let file, let reason): return "cannot read the image \(file): \(reason)"
        case .imageNotLoaded(let file):
            return "the image \(file) is not loaded; load the chain with Chain.load, call loadImages(relativeTo:), or set its image"
        case .maskOnGeometryStep(let step, let label, let type):
            return "step \(step) (\(label)) cannot have a mask: \(type) is a geometry step (it changes the image's size or turns it); "
                + "put the mask on a step after it"
        case .needsVersion2(let what):
            return "\(what) needs version 2; set \"version\": 2 (version 1 is for filterchains that read straight chains only)"
        case .referenced(let what, let readers):
            let those = readers.allSatisfy { $0.hasPrefix("step ") } ? (readers.count == 1 ? "that step" : "those steps")
                : (readers.count == 1 ? "it" : "them")
            return "\(what) is read by " + readers.joined(separator: ", ") + "; change or remove \(those) first"
        case .moveBreaksReferences(let what, let to, let broken):
            return "moving \(what) to \(to) would break what steps read: " + broken.joined(separator: ", ")
                + "; a step may read only the source, the images and the steps above it"
        case .graphEdit(let why): return why
        case .expression(let text, let error):
            return "\(JSONWriter.quote(text)), \(error.description)"
        case .expressionValue(let text, let value, let unrounded, let allowed, let size):
            let took = JSONWriter.number(value) + (unrounded.map { " (\(JSONWriter.number($0)) rounded)" } ?? "")
            let at = size.map { " with this step's input \($0.width)x\($0.height)" } ?? ""
            return "\(JSONWriter.quote(text)) took \(took)\(at), which is not allowed; allowed: \(allowed)"
        case .variableName(let name, let why):
            return "\(JSONWriter.quote(name)) cannot name a variable: \(why)"
        case .duplicateVariable(let name, let first):
            return "the variable '\(name)' is already declared by variables[\(first)]; variable names are unique"
        case .unknownVariable(let name, let suggestion, let declared):
            return "no variable '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
                + (declared.isEmpty ? " (the chain declares none)" : " (declared: \(declared.joined(separator: ", ")))")
        }
    }

    public var description: String {
        var text = file + ": "
        if !path.isEmpty { text += path + ": " }
        text += message
        // A LUT's problem already names its own file and line; the chain's would confuse.
        if let line, let column, !problem.isLUTFile { text += " (line \(line), column \(column))" }
        return text
    }
}

extension ChainError.Problem {
    /// True for a problem inside a file a parameter names (a .cube LUT).
    public var isLUTFile: Bool {
        if case .lutFile = self { return true }
        return false
    }
}
