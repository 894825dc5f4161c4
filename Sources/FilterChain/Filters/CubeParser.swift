/// Reads .cube text (Adobe Cube LUT 1.0, with Resolve's LUT_1D/3D_INPUT_RANGE and shaper
/// form) line by line; every refusal names its line.
struct CubeParser {
    var title: (String, line: Int)?
    var size1D: (Int, line: Int)?
    var size3D: (Int, line: Int)?
    var domainMin: (SIMD3<Double>, line: Int)?
    var domainMax: (SIMD3<Double>, line: Int)?
    var range1D: (SIMD2<Double>, line: Int)?
    var range3D: (SIMD2<Double>, line: Int)?
    /// Data rows, three floats each, in file order.
    var data: [Float] = []
    var firstDataLine: Int?
    var lastLine = 0

    static let keywords = ["TITLE", "LUT_1D_SIZE", "LUT_3D_SIZE", "DOMAIN_MIN", "DOMAIN_MAX",
                           "LUT_1D_INPUT_RANGE", "LUT_3D_INPUT_RANGE"]

    mutating func parse(_ bytes: [UInt8]) throws(CubeLUTError) {
        var start = 0
        var line = 0
        while start < bytes.count {
            line += 1
            var end = start
            while end < bytes.count && bytes[end] != 10 { end += 1 }
            try parseLine(bytes[start..<end], line: line)
            start = end + 1
        }
        lastLine = line
    }

    private mutating func parseLine(_ raw: ArraySlice<UInt8>, line: Int) throws(CubeLUTError) {
        var text = raw
        if text.last == 13 { text = text.dropLast() }
        // Data rows after the first, in the plain form nearly every file uses, without making
        // strings; anything else (and every error) goes the general way below.
        if firstDataLine != nil, data.count < 3 * expectedRows, let (r, g, b) = CubeParser.plainRow(text),
           Float(r).isFinite, Float(g).isFinite, Float(b).isFinite {
            data.append(Float(r))
            data.append(Float(g))
            data.append(Float(b))
            return
        }
        let tokens = CubeParser.tokens(text)
        guard let first = tokens.first, !first.hasPrefix("#") else { return }
        if CubeParser.keywords.contains(first) {
            guard firstDataLine == nil else {
                throw CubeLUTError(line: line, "\(first) after the data; keywords come before the data")
            }
            try keyword(first, Array(tokens.dropFirst().prefix { !$0.hasPrefix("#") }), text: text, line: line)
            return
        }
        let values = Array(tokens.prefix { !$0.hasPrefix("#") })
        if let c = first.unicodeScalars.first, c.properties.isUppercase, Double(first) == nil {
            throw CubeLUTError(line: line, "unknown keyword '\(first)' (known: \(CubeParser.keywords.joined(separator: ", ")))")
        }
        if firstDataLine == nil {
            firstDataLine = line
            guard size1D != nil || size3D != nil else {
                throw CubeLUTError(line: line, "data before LUT_3D_SIZE or LUT_1D_SIZE")
            }
            data.reserveCapacity(3 * expectedRows)
        }
        guard values.count == 3 else {
            throw CubeLUTError(line: line, "expected 3 numbers, found \(values.count)")
        }
        guard data.count < 3 * expectedRows else {
            throw CubeLUTError(line: line, "more data rows than the sizes give (\(sizeText): \(expectedRows) rows)")
        }
        for v in values { data.append(Float(try CubeParser.number(v, line: line))) }
    }

    private mutating func keyword(_ name: String, _ args: [String], text: ArraySlice<UInt8>, line: Int) throws(CubeLUTError) {
        func once<T>(_ slot: (T, line: Int)?) throws(CubeLUTError) {
            if let slot { throw CubeLUTError(line: line, "\(name) repeated (first on line \(slot.line))") }
        }
        switch name {
        case "TITLE":
            try once(title)
            // The text between the first and the last double quote, as written.
            let s = String(decoding: text, as: UTF8.self)
            guard let open = s.firstIndex(of: "\""), let close = s.lastIndex(of: "\""), open < close else {
                throw CubeLUTError(line: line, "TITLE needs its text in double quotes, like TITLE \"Film look\"")
            }
            title = (String(s[s.index(after: open)..<close]), line)
        case "LUT_1D_SIZE":
            try once(size1D)
            size1D = (try CubeParser.size(name, args, allowed: 2...65536, line: line), line)
        case "LUT_3D_SIZE":
            try once(size3D)
            size3D = (try CubeParser.size(name, args, allowed: 2...256, line: line), line)
        case "DOMAIN_MIN", "DOMAIN_MAX":
            try once(name == "DOMAIN_MIN" ? domainMin : domainMax)
            guard args.count == 3 else { throw CubeLUTError(line: line, "\(name) needs 3 numbers, found \(args.count)") }
            var v = SIMD3<Double>()
            for i in 0..<3 { v[i] = try CubeParser.number(args[i], line: line) }
            if name == "DOMAIN_MIN" { domainMin = (v, line) } else { domainMax = (v, line) }
        default: // LUT_1D_INPUT_RANGE, LUT_3D_INPUT_RANGE
            try once(name == "LUT_1D_INPUT_RANGE" ? range1D : range3D)
            guard args.count == 2 else { throw CubeLUTError(line: line, "\(name) needs 2 numbers, found \(args.count)") }
            let v = SIMD2(try CubeParser.number(args[0], line: line), try CubeParser.number(args[1], line: line))
            guard v[0] < v[1] else {
                throw CubeLUTError(line: line, "\(name) \(args[0]) \(args[1]): the minimum must be below the maximum")
            }
            if name == "LUT_1D_INPUT_RANGE" { range1D = (v, line) } else { range3D = (v, line) }
        }
    }

    var expectedRows: Int {
        (size1D?.0 ?? 0) + (size3D.map { $0.0 * $0.0 * $0.0 } ?? 0)
    }

    var sizeText: String {
        [size1D.map { "LUT_1D_SIZE \($0.0)" }, size3D.map { "LUT_3D_SIZE \($0.0)" }].compactMap { $0 }.joined(separator: " and ")
    }

    /// The tables, once the whole file is read.
    func tables() throws(CubeLUTError) -> (String?, CubeLUT.Table1D?, CubeLUT.Table3D?) {
        guard size1D != nil || size3D != nil else {
            throw CubeLUTError(line: nil, "no LUT_3D_SIZE or LUT_1D_SIZE")
        }
        guard data.count == 3 * expectedRows else {
            throw CubeLUTError(line: lastLine, "expected \(expectedRows) data rows (\(sizeText)), found \(data.count / 3)")
        }
        for (range, size, name) in [(range1D, size1D, "LUT_1D"), (range3D, size3D, "LUT_3D")] {
            if let range, size == nil {
                throw CubeLUTError(line: range.line, "\(name)_INPUT_RANGE without \(name)_SIZE")
            }
            if let range, let domain = domainMin ?? domainMax {
                throw CubeLUTError(line: max(range.line, domain.line),
                                   "the domain is given twice: by DOMAIN_MIN/DOMAIN_MAX (line \(min(range.line, domain.line))) and \(name)_INPUT_RANGE")
            }
        }
        let low = domainMin?.0 ?? SIMD3(repeating: 0), high = domainMax?.0 ?? SIMD3(repeating: 1)
        for (i, channel) in ["red", "green", "blue"].enumerated() where !(low[i] < high[i]) {
            throw CubeLUTError(line: domainMax?.line ?? domainMin?.line,
                               "DOMAIN_MIN \(low[i]) is not below DOMAIN_MAX \(high[i]) on \(channel)")
        }
        func domain(_ range: (SIMD2<Double>, line: Int)?) -> (SIMD3<Double>, SIMD3<Double>) {
            guard let range else { return (low, high) }
            return (SIMD3(repeating: range.0[0]), SIMD3(repeating: range.0[1]))
        }
        var shaper: CubeLUT.Table1D?
        var rows1D = 0
        if let (n, _) = size1D {
            let (lo, hi) = domain(range1D)
            var planar = [Float](repeating: 0, count: 3 * n)
            for i in 0..<n {
                for c in 0..<3 { planar[c * n + i] = data[3 * i + c] }
            }
            shaper = CubeLUT.Table1D(size: n, domainMin: lo, domainMax: hi, values: planar)
            rows1D = n
        }
        var cube: CubeLUT.Table3D?
        if let (n, _) = size3D {
            let (lo, hi) = domain(range3D)
            let count = n * n * n
            let storage = UnsafeMutablePointer<Float>.allocate(capacity: 4 * count)
            for i in 0..<count {
                let d = 3 * (rows1D + i)
                storage[4 * i] = data[d]
                storage[4 * i + 1] = data[d + 1]
                storage[4 * i + 2] = data[d + 2]
                storage[4 * i + 3] = 0
            }
            cube = CubeLUT.Table3D(size: n, domainMin: lo, domainMax: hi, storage: storage)
        }
        return (title?.0, shaper, cube)
    }

    static func tokens(_ text: ArraySlice<UInt8>) -> [String] {
        var tokens: [String] = []
        var i = text.startIndex
        while i < text.endIndex {
            while i < text.endIndex && (text[i] == 32 || text[i] == 9) { i += 1 }
            let start = i
            while i < text.endIndex && text[i] != 32 && text[i] != 9 { i += 1 }
            if i > start { tokens.append(String(decoding: text[start..<i], as: UTF8.self)) }
        }
        return tokens
    }

    /// Three numbers separated by spaces or tabs, each [+-]digits[.digits][(e|E)[+-]digits]
    /// with at most 18 digits and a value Double(String) would give exactly: a whole number
    /// below 2^53 times or divided by a power of ten up to 10^22, both exact in Double, so
    /// the one rounding is the correct one (Clinger's fast path). Nil for anything else.
    static func plainRow(_ text: ArraySlice<UInt8>) -> (Double, Double, Double)? {
        var i = text.startIndex
        let end = text.endIndex
        func skipBlanks() { while i < end && (text[i] == 32 || text[i] == 9) { i += 1 } }
        func digits(_ value: inout UInt64, _ count: inout Int) {
            while i < end, text[i] &- 48 < 10 {
                value = value &* 10 &+ UInt64(text[i] &- 48)
                count += 1
                i += 1
            }
        }
        func number() -> Double? {
            var negative = false
            if i < end && (text[i] == 45 || text[i] == 43) { negative = text[i] == 45; i += 1 }
            var w: UInt64 = 0, whole = 0, fraction = 0
            digits(&w, &whole)
            guard whole > 0 else { return nil }
            if i < end && text[i] == 46 {
                i += 1
                digits(&w, &fraction)
                guard fraction > 0 else { return nil }
            }
            guard whole + fraction <= 18 else { return nil }
            var e10 = -fraction
            if i < end && (text[i] == 101 || text[i] == 69) {
                i += 1
                var negativeExponent = false
                if i < end && (text[i] == 45 || text[i] == 43) { negativeExponent = text[i] == 45; i += 1 }
                var e: UInt64 = 0, count = 0
                digits(&e, &count)
                guard count > 0 && count <= 4 else { return nil }
                e10 += negativeExponent ? -Int(e) : Int(e)
            }
            guard i == end || text[i] == 32 || text[i] == 9 else { return nil }
            var v: Double
            if w == 0 {
                v = 0
            } else {
                guard w <= 1 << 53, e10 >= -22 && e10 <= 22 else { return nil }
                v = e10 >= 0 ? Double(w) * powersOfTen[e10] : Double(w) / powersOfTen[-e10]
            }
            return negative ? -v : v
        }
        skipBlanks()
        guard let r = number() else { return nil }
        skipBlanks()
        guard let g = number() else { return nil }
        skipBlanks()
        guard let b = number() else { return nil }
        skipBlanks()
        return i == end ? (r, g, b) : nil
    }

    /// 10^0 ... 10^22, each exact in Double.
    static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                                        1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    static func number(_ token: String, line: Int) throws(CubeLUTError) -> Double {
        guard let v = Double(token) else { throw CubeLUTError(line: line, "'\(token)' is not a number") }
        guard v.isFinite else { throw CubeLUTError(line: line, "'\(token)' is not a finite number") }
        // Tables hold 32-bit floats: beyond their range a value would become infinite.
        guard Float(v).isFinite else {
            throw CubeLUTError(line: line, "'\(token)' is too large (beyond ±3.4e38, the range of the table's numbers)")
        }
        return v
    }

    static func size(_ name: String, _ args: [String], allowed: ClosedRange<Int>, line: Int) throws(CubeLUTError) -> Int {
        guard args.count == 1, let n = Int(args[0]) else {
            throw CubeLUTError(line: line, "\(name) needs one whole number, found '\(args.joined(separator: " "))'")
        }
        guard allowed.contains(n) else {
            throw CubeLUTError(line: line, "\(name) \(n) is out of range; allowed \(allowed.lowerBound)...\(allowed.upperBound)")
        }
        return n
    }
}
