/// Parameters beyond numbers and choices: colours, positions, matrices and file paths.
extension Parameter {
    /// A colour [r, g, b]; with `positiveLuma`, its luma 0.2126 r + 0.7152 g + 0.0722 b must be above 0.
    public static func color(_ name: String, _ keyPath: WritableKeyPath<F, ColorRGB> & Sendable,
                             in range: ClosedRange<Double>, positiveLuma: Bool = false, help: String) -> Parameter {
        let kind = ParameterKind.color(range, positiveLuma: positiveLuma)
        // The luma's rule, after the numbers': for a file's value (`node`) and one set in code.
        let checked: @Sendable ([Double], JSONNode?) throws(ParameterError) -> ColorRGB = { v, node throws(ParameterError) in
            let color = ColorRGB(v[0], v[1], v[2])
            if positiveLuma, !(color.luma > 0) {
                throw ParameterError(node: node ?? jsonNumbers(v), problem: .notAllowed(
                    "[\(v.map(JSONWriter.number).joined(separator: ", "))] (luma \(JSONWriter.number(color.luma)))",
                    allowed: kind.allowed, suggestion: nil))
            }
            return color
        }
        var p = Parameter(name: name, help: help, kind: kind,
                          get: { let c = $0[keyPath: keyPath]; return jsonNumbers([c.red, c.green, c.blue]) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              filter[keyPath: keyPath] = try checked(try readNumbers(node, count: 3, in: range, what: "a colour [r, g, b]"), node)
                          })
        p.numbers = NumberAccess(get: { let c = $0[keyPath: keyPath]; return [c.red, c.green, c.blue] },
                                 set: { (filter: inout F, v: [Double]) throws(ParameterError) in
                                     filter[keyPath: keyPath] = try checked(try checkNumbers(v, in: range), nil)
                                 })
        return p
    }

    /// A position [x, y] as fractions of the image's width and height.
    public static func point(_ name: String, _ keyPath: WritableKeyPath<F, ImagePoint> & Sendable,
                             in range: ClosedRange<Double>, help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .point(range),
                          get: { let p = $0[keyPath: keyPath]; return jsonNumbers([p.x, p.y]) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              let v = try readNumbers(node, count: 2, in: range, what: "a point [x, y]")
                              filter[keyPath: keyPath] = ImagePoint(v[0], v[1])
                          })
        p.numbers = NumberAccess(get: { let p = $0[keyPath: keyPath]; return [p.x, p.y] },
                                 set: { (filter: inout F, v: [Double]) throws(ParameterError) in
                                     let v = try checkNumbers(v, in: range)
                                     filter[keyPath: keyPath] = ImagePoint(v[0], v[1])
                                 })
        return p
    }

    /// A matrix of `rows` rows of `columns` numbers, each in `range`.
    public static func matrix(_ name: String, _ keyPath: WritableKeyPath<F, [[Double]]> & Sendable,
                              rows: Int, columns: Int, in range: ClosedRange<Double>, help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .matrix(rows: rows, columns: columns, range),
                          get: { JSONNode(.array($0[keyPath: keyPath].map(jsonNumbers))) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              guard case .array(let items) = node.value else {
                                  throw ParameterError(node: node, problem: .wrongType(
                                      expected: "an array of \(rows) rows of \(columns) numbers", found: node.typeName))
                              }
                              guard items.count == rows else {
                                  throw ParameterError(node: node, problem: .notAllowed(
                                      "\(items.count) row\(items.count == 1 ? "" : "s")", allowed: "\(rows) rows", suggestion: nil))
                              }
                              var matrix: [[Double]] = []
                              for (i, item) in items.enumerated() {
                                  do throws(ParameterError) {
                                      matrix.append(try readNumbers(item, count: columns, in: range, what: "a row of \(columns) numbers"))
                                  } catch var error {
                                      error.subpath = "[\(i)]" + error.subpath
                                      throw error
                                  }
                              }
                              filter[keyPath: keyPath] = matrix
                          })
        // The rules of a file's matrix, in the file's order, on a matrix set in code.
        let checkMatrix: @Sendable ([[Double]]) throws(ParameterError) -> Void = { matrix throws(ParameterError) in
            guard matrix.count == rows else {
                throw ParameterError(node: JSONNode(.array(matrix.map(jsonNumbers))), problem: .notAllowed(
                    "\(matrix.count) row\(matrix.count == 1 ? "" : "s")", allowed: "\(rows) rows", suggestion: nil))
            }
            for (r, row) in matrix.enumerated() {
                do throws(ParameterError) {
                    guard row.count == columns else {
                        throw ParameterError(node: jsonNumbers(row), problem: .wrongType(
                            expected: "a row of \(columns) numbers", found: jsonNumbers(row).excerpt))
                    }
                    try checkNumbers(row, in: range)
                } catch var error {
                    error.subpath = "[\(r)]" + error.subpath
                    throw error
                }
            }
        }
        p.checkValue = { (filter: F) throws(ParameterError) in try checkMatrix(filter[keyPath: keyPath]) }
        // Row after row.
        p.numbers = NumberAccess(get: { $0[keyPath: keyPath].flatMap { $0 } },
                                 set: { (filter: inout F, v: [Double]) throws(ParameterError) in
                                     let matrix = stride(from: 0, to: v.count, by: columns).map { Array(v[$0 ..< min($0 + columns, v.count)]) }
                                     try checkMatrix(matrix)
                                     filter[keyPath: keyPath] = matrix
                                 })
        return p
    }

    /// A .cube file, read (once per process) when the parameter is set; paths are relative to
    /// the chain file's folder unless absolute, and are kept as written.
    public static func cubeFile(_ name: String, _ keyPath: WritableKeyPath<F, CubeFile?> & Sendable,
                                help: String) -> Parameter {
        let read: @Sendable (inout F, JSONNode, ParameterContext) throws(ParameterError) -> Void = { filter, node, context throws(ParameterError) in
            guard case .string(let path) = node.value else {
                throw ParameterError(node: node, problem: .wrongType(expected: "a path to a .cube file", found: node.typeName))
            }
            guard context.readsFiles else { return }
            do throws(CubeLUTError) {
                filter[keyPath: keyPath] = try CubeFile(path, relativeTo: context.directory)
            } catch {
                // A file that cannot be opened: where it was looked for (a relative path
                // starts at the chain file's folder, not the working directory).
                let lookedFor = error.line == nil ? context.whereLookedFor(path) : nil
                throw ParameterError(node: node, problem: .lutFile(file: path, line: error.line,
                                                                   reason: error.reason + (lookedFor.map { " (\($0))" } ?? "")))
            }
        }
        var parameter = Parameter(name: name, help: help, kind: .file(extension: "cube"),
                                  get: { $0[keyPath: keyPath].map { JSONNode(.string($0.path)) } },
                                  set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                                      try read(&filter, node, ParameterContext())
                                  })
        parameter.setInContext = read
        parameter.required = true
        // A file set in code was read when it was set: only its presence is checked.
        parameter.isGiven = { $0[keyPath: keyPath] != nil }
        return parameter
    }
}

func jsonNumbers(_ values: [Double]) -> JSONNode {
    JSONNode(.array(values.map { JSONNode(.number($0)) }))
}

/// An array of exactly `count` numbers in `range`; `what` names it in messages.
func readNumbers(_ node: JSONNode, count: Int, in range: ClosedRange<Double>, what: String) throws(ParameterError) -> [Double] {
    guard case .array(let items) = node.value, items.count == count else {
        throw ParameterError(node: node, problem: .wrongType(expected: what, found: node.excerpt))
    }
    var values: [Double] = []
    for (i, item) in items.enumerated() {
        do throws(ParameterError) { values.append(try readNumber(item, in: range)) } catch var error {
            error.subpath = "[\(i)]"
            throw error
        }
    }
    return values
}

/// Each number finite and in `range` (numbers set in code); a refusal names its position (`[1]`).
@discardableResult
func checkNumbers(_ values: [Double], in range: ClosedRange<Double>) throws(ParameterError) -> [Double] {
    for (i, v) in values.enumerated() {
        do throws(ParameterError) { _ = try checkNumber(v, in: range) } catch var error {
            error.subpath = "[\(i)]"
            throw error
        }
    }
    return values
}

/// What reading a parameter may need beyond its value: the folder that relative file paths
/// start from (the chain file's).
public struct ParameterContext: Sendable {
    public var directory: String
    /// False when values are only checked (a filter already holding its file is validated):
    /// file parameters then check their JSON type but do not read the file again.
    public var readsFiles: Bool

    public init(directory: String = ".", readsFiles: Bool = true) {
        self.directory = directory
        self.readsFiles = readsFiles
    }

    /// The context of a chain file at `chainFile`: its folder.
    public init(chainFile: String) {
        guard let slash = chainFile.lastIndex(of: "/") else { self.init(); return }
        self.init(directory: slash == chainFile.startIndex ? "/" : String(chainFile[..<slash]))
    }
}

/// A colour as red, green and blue.
public struct ColorRGB: Sendable, Hashable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(_ red: Double, _ green: Double, _ blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// 0.2126 r + 0.7152 g + 0.0722 b.
    public var luma: Double { 0.2126 * red + 0.7152 * green + 0.0722 * blue }
}

/// A position in an image as fractions of its width (x) and height (y); (0, 0) is the top left.
public struct ImagePoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}
