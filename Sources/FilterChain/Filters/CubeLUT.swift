#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a .cube file was refused: the line in it (nil: the whole file) and the reason.
public struct CubeLUTError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int?
    public var reason: String

    public init(line: Int?, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { (line.map { "line \($0): " } ?? "") + reason }
}

/// A colour lookup table from an Adobe/Resolve .cube file: a 1D table, a 3D table, or both
/// (Resolve's shaper form: the 1D table applies first). Read once per process per file
/// (`load`); evaluated eight pixels at a time without allocation.
public final class CubeLUT: Sendable {
    /// The file's TITLE, if any.
    public let title: String?
    /// The 1D table (applied first), if any.
    public let shaper: Table1D?
    /// The 3D table, if any.
    public let cube: Table3D?

    /// A 1D table: for each channel, `size` values over the domain.
    public struct Table1D: Sendable {
        public let size: Int
        public let domainMin: SIMD3<Double>
        public let domainMax: SIMD3<Double>
        /// Red's `size` values, then green's, then blue's.
        public let values: [Float]
        /// Per channel: the domain's minimum and (size - 1) / (max - min), in float.
        let low: SIMD3<Float>, scale: SIMD3<Float>

        init(size: Int, domainMin: SIMD3<Double>, domainMax: SIMD3<Double>, values: [Float]) {
            self.size = size
            self.domainMin = domainMin
            self.domainMax = domainMax
            self.values = values
            low = SIMD3<Float>(domainMin)
            scale = SIMD3<Float>(Double(size - 1) / (domainMax - domainMin))
        }
    }

    /// A 3D table of `size`^3 colours, red changing fastest, then green, then blue. A copy
    /// keeps the table's memory alive (`Storage`), however long the LUT lives.
    /// (@unchecked Sendable: the entries at `storage` are written before the table is made, and
    /// only read after.)
    public struct Table3D: @unchecked Sendable {
        public let size: Int
        public let domainMin: SIMD3<Double>
        public let domainMax: SIMD3<Double>
        /// Entry i (r + g N + b N^2) at values[4 i ..< 4 i + 3], the fourth float 0: one
        /// aligned SIMD4 load per corner.
        let storage: UnsafeMutablePointer<Float>
        /// Owns `storage` (freed when the last copy of the table goes).
        private let owner: Storage
        /// Per channel: the domain's minimum and (size - 1) / (max - min), in float.
        let low: SIMD3<Float>, scale: SIMD3<Float>

        /// The memory of a table's entries, freed with its last reference. (@unchecked Sendable:
        /// the entries are written once, before the table is made, and only read after.)
        final class Storage: @unchecked Sendable {
            let pointer: UnsafeMutablePointer<Float>
            init(_ pointer: UnsafeMutablePointer<Float>) { self.pointer = pointer }
            deinit { pointer.deallocate() }
        }

        /// A table of the entries at `storage`, which it then owns.
        init(size: Int, domainMin: SIMD3<Double>, domainMax: SIMD3<Double>, storage: UnsafeMutablePointer<Float>) {
            self.size = size
            self.domainMin = domainMin
            self.domainMax = domainMax
            self.storage = storage
            owner = Storage(storage)
            low = SIMD3<Float>(domainMin)
            scale = SIMD3<Float>(Double(size - 1) / (domainMax - domainMin))
        }

        /// The colour at table position (r, g, b).
        public func entry(_ r: Int, _ g: Int, _ b: Int) -> SIMD3<Float> {
            let p = storage + 4 * (r + size * (g + size * b))
            return SIMD3(p[0], p[1], p[2])
        }
    }

    init(title: String?, shaper: Table1D?, cube: Table3D?) {
        self.title = title
        self.shaper = shaper
        self.cube = cube
    }

    // MARK: - Loading, once per process

    private static let monitor = Monitor()
    nonisolated(unsafe) private static var loaded: [String: (stamp: FileStamp, lut: CubeLUT)] = [:]

    /// The LUT in the file at `path` (as opened: relative to the working directory or
    /// absolute). Each file is parsed once per process; it is read again only when its size
    /// or modification time changes (a long-running editor sees edits).
    public static func load(_ path: String) throws(CubeLUTError) -> CubeLUT {
        let stamp = FileStamp(path)
        if let stamp, let hit = monitor.locked({ loaded[path] }), hit.stamp == stamp { return hit.lut }
        let bytes: [UInt8]
        do throws(Chain.ReadError) { bytes = try Chain.readFile(path) } catch { throw CubeLUTError(line: nil, error.why) }
        let lut = try CubeLUT(parsing: bytes)
        if let stamp { monitor.locked { loaded[path] = (stamp, lut) } }
        return lut
    }

    /// Size and modification time: what tells a changed file.
    struct FileStamp: Equatable {
        var size: Int64, seconds: Int, nanoseconds: Int

        init?(_ path: String) {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            size = Int64(st.st_size)
            #if canImport(Darwin)
            seconds = Int(st.st_mtimespec.tv_sec); nanoseconds = Int(st.st_mtimespec.tv_nsec)
            #else
            seconds = Int(st.st_mtim.tv_sec); nanoseconds = Int(st.st_mtim.tv_nsec)
            #endif
        }
    }

    // MARK: - Parsing

    /// Parses .cube text: keywords in any order before the data, `#` comments, blank lines,
    /// CRLF, no final newline; every problem with its line.
    public convenience init(parsing bytes: [UInt8]) throws(CubeLUTError) {
        var parser = CubeParser()
        try parser.parse(bytes)
        let (title, shaper, cube) = try parser.tables()
        self.init(title: title, shaper: shaper, cube: cube)
    }

    // MARK: - Evaluation

    /// Replaces each colour by c + intensity (LUT(c) - c), `count` (a multiple of 8) pixels.
    func apply(_ p: PlanarPixels, count: Int, intensity: Float) {
        // Which tables there are is settled once, not per eight pixels.
        if let shaper, let cube {
            Self.blend(p, count: count, intensity: intensity, ShapedTable(shaper: shaper, cube: cube))
        } else if let cube {
            Self.blend(p, count: count, intensity: intensity, cube)
        } else if let shaper {
            Self.blend(p, count: count, intensity: intensity, shaper)
        }
    }

    /// c + intensity (table(c) - c) for `count` pixels, eight at a time. One function per
    /// kind of table, with the lookup inlined into its loop (kept apart: in one function the
    /// three would exceed what the optimiser inlines into a single caller).
    @inline(never)
    private static func blend(_ p: PlanarPixels, count: Int, intensity: Float, _ table: some EightColourTable) {
        let t = SIMD8<Float>(repeating: intensity)
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: Table3D.scratchLanes) { lanes in
            let scratch = UnsafeMutableRawPointer(lanes.baseAddress!)
            var i = 0
            while i < count {
                let r0 = UnsafeRawPointer(p.red + i).load(as: SIMD8<Float>.self)
                let g0 = UnsafeRawPointer(p.green + i).load(as: SIMD8<Float>.self)
                let b0 = UnsafeRawPointer(p.blue + i).load(as: SIMD8<Float>.self)
                let (r, g, b) = table.lookup(r0, g0, b0, scratch: scratch)
                UnsafeMutableRawPointer(p.red + i).storeBytes(of: r0 + t * (r - r0), as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(p.green + i).storeBytes(of: g0 + t * (g - g0), as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(p.blue + i).storeBytes(of: b0 + t * (b - b0), as: SIMD8<Float>.self)
                i &+= 8
            }
        }
    }
}

/// A table as `CubeLUT.apply` evaluates it: eight colours in, eight out, with `scratch`
/// (`CubeLUT.Table3D.scratchLanes` SIMD8 lanes) to work in.
protocol EightColourTable {
    func lookup(_ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>, scratch: UnsafeMutableRawPointer) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
}

/// Resolve's shaper form: the 1D table, then the 3D one.
struct ShapedTable: EightColourTable {
    let shaper: CubeLUT.Table1D
    let cube: CubeLUT.Table3D

    @inline(always)
    func lookup(_ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>, scratch: UnsafeMutableRawPointer) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let (r1, g1, b1) = shaper.lookup(r, g, b, scratch: scratch)
        return cube.lookup(r1, g1, b1, scratch: scratch)
    }
}

/// Position in a table of `size` entries: x clamped to [0, size - 1] (NaN to 0), split into
/// the lower index (at most size - 2) and the fraction, without a checked conversion.
@inline(__always)
func tablePosition(_ v: SIMD8<Float>, low: Float, scale: Float, size: Int) -> (index: SIMD8<Int32>, fraction: SIMD8<Float>) {
    let top = Float(size - 1)
    var x = (v - SIMD8(repeating: low)) * SIMD8(repeating: scale)
    x = x.replacing(with: 0, where: .!(x .> 0))
    x = x.replacing(with: top, where: x .> top)
    // Adding 2^23 leaves round-to-nearest(x) in the low mantissa bits; step down where it rounded up.
    let rounded = x + SIMD8(repeating: 8_388_608)
    var index = unsafeBitCast(rounded, to: SIMD8<Int32>.self) & SIMD8(repeating: 0x7F_FFFF)
    var floorX = rounded - SIMD8(repeating: 8_388_608)
    let over = floorX .> x
    index.replace(with: index &- 1, where: over)
    floorX.replace(with: floorX - 1, where: over)
    let last = Int32(size - 2)
    let atTop = index .> SIMD8(repeating: last)
    index.replace(with: last, where: atTop)
    floorX.replace(with: Float(last), where: atTop)
    return (index, x - floorX)
}

extension CubeLUT.Table1D: EightColourTable {
    /// Each channel through its own table.
    @inline(always)
    func lookup(_ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>, scratch: UnsafeMutableRawPointer) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        (lookup(r, channel: 0), lookup(g, channel: 1), lookup(b, channel: 2))
    }

    /// Linear interpolation in one channel's table.
    @inline(__always)
    func lookup(_ v: SIMD8<Float>, channel: Int) -> SIMD8<Float> {
        let (index, f) = tablePosition(v, low: low[channel], scale: scale[channel], size: size)
        return values.withUnsafeBufferPointer { buffer in
            let t = buffer.baseAddress! + channel * size
            var a = SIMD8<Float>(), b = SIMD8<Float>()
            for k in 0..<8 {
                let j = Int(index[k])
                a[k] = t[j]
                b[k] = t[j &+ 1]
            }
            return a + f * (b - a)
        }
    }
}

extension CubeLUT.Table3D: EightColourTable {
    /// SIMD8 lanes of scratch `lookup` needs: three corner offsets, four weights, eight SIMD4 results.
    static let scratchLanes = 11

    /// Tetrahedral interpolation of eight colours: with the fractions sorted
    /// f_max >= f_mid >= f_min, the corners walked from c000 along the largest fraction's
    /// axis, then the middle one's, to c111:
    /// (1 - f_max) c000 + (f_max - f_mid) c_L + (f_mid - f_min) c_LM + f_min c111, which is
    /// the six cases.
    ///
    /// Positions, sorted fractions, corner offsets and weights are worked out for the eight
    /// pixels at once, without branches (photographs would mispredict them) and without
    /// integer multiplies (baseline x86-64 has none in SIMD); they go through `scratch`
    /// (`scratchLanes` SIMD8 lanes, 32-byte aligned) to a scalar loop that does only what is
    /// per pixel anyway: four SIMD4 corner loads and their weighted sum.
    @inline(always)
    func lookup(_ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>, scratch: UnsafeMutableRawPointer) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let top = Float(size &- 1), last = Float(size &- 2)
        let (pr, fr) = Self.position(r, low.x, scale.x, top: top, last: last)
        let (pg, fg) = Self.position(g, low.y, scale.y, top: top, last: last)
        let (pb, fb) = Self.position(b, low.z, scale.z, top: top, last: last)
        let n = Float(size), nn = n * n
        // The entry of c000: whole numbers below 2^24 (size <= 256), so exact in float. Read
        // from the mantissa after adding 2^23, in two halves as that only holds below 2^23.
        let twoTo23 = SIMD8<Float>(repeating: 8_388_608)
        var entry = pr + pg * n + pb * nn
        let high = entry .>= twoTo23
        entry.replace(with: entry - twoTo23, where: high)
        var corner = unsafeBitCast(entry + twoTo23, to: SIMD8<Int32>.self) & SIMD8(repeating: 0x7F_FFFF)
        corner.replace(with: corner | SIMD8(repeating: 0x80_0000), where: high)
        // The sorted fractions, and the axes of the largest and smallest: the largest looked
        // for in r, g, b order, the smallest in b, g, r order, so that with ties they are
        // still two different axes (equal fractions weigh their corner by 0 anyway).
        let fMax = lanesMax(fr, lanesMax(fg, fb)), fMin = lanesMin(fr, lanesMin(fg, fb))
        let fMid = (fr + fg + fb) - fMax - fMin
        // Steps in bytes (entries are 16 bytes) along r, g, b.
        let alongR = Int32(16), alongG = 16 &* Int32(truncatingIfNeeded: size), alongB = alongG &* Int32(truncatingIfNeeded: size)
        var first = SIMD8<Int32>(repeating: alongB)
        first.replace(with: alongG, where: fg .== fMax)
        first.replace(with: alongR, where: fr .== fMax)
        var second = SIMD8<Int32>(repeating: alongG &+ alongB)
        second.replace(with: alongR &+ alongB, where: fg .== fMin)
        second.replace(with: alongR &+ alongG, where: fb .== fMin)
        // Byte offsets of c000, c_L and c_LM; c111 is a fixed step on.
        let o0 = corner &<< 4
        scratch.storeBytes(of: o0, as: SIMD8<Int32>.self)
        scratch.storeBytes(of: o0 &+ first, toByteOffset: 32, as: SIMD8<Int32>.self)
        scratch.storeBytes(of: o0 &+ second, toByteOffset: 64, as: SIMD8<Int32>.self)
        scratch.storeBytes(of: 1 - fMax, toByteOffset: 96, as: SIMD8<Float>.self)
        scratch.storeBytes(of: fMax - fMid, toByteOffset: 128, as: SIMD8<Float>.self)
        scratch.storeBytes(of: fMid - fMin, toByteOffset: 160, as: SIMD8<Float>.self)
        scratch.storeBytes(of: fMin, toByteOffset: 192, as: SIMD8<Float>.self)
        let table = UnsafeRawPointer(storage)
        let step = Int(alongR &+ alongG &+ alongB)
        let offsets = UnsafeRawPointer(scratch).assumingMemoryBound(to: UInt32.self)
        let weights = UnsafeRawPointer(scratch + 96).assumingMemoryBound(to: Float.self)
        let results = scratch + 224
        for k in 0..<8 {
            let c = table + Int(offsets[k])
            let c0 = c.load(as: SIMD4<Float>.self)
            let c1 = table.load(fromByteOffset: Int(offsets[8 &+ k]), as: SIMD4<Float>.self)
            let c2 = table.load(fromByteOffset: Int(offsets[16 &+ k]), as: SIMD4<Float>.self)
            let c3 = c.load(fromByteOffset: step, as: SIMD4<Float>.self)
            let v = weights[k] * c0 + weights[8 &+ k] * c1 + weights[16 &+ k] * c2 + weights[24 &+ k] * c3
            // Whole (the fourth lane too), so that it is summed as one vector, not lane by lane.
            results.storeBytes(of: v, toByteOffset: k &* 16, as: SIMD4<Float>.self)
        }
        let v = UnsafeRawPointer(results).assumingMemoryBound(to: Float.self)
        return (SIMD8(v[0], v[4], v[8], v[12], v[16], v[20], v[24], v[28]),
                SIMD8(v[1], v[5], v[9], v[13], v[17], v[21], v[25], v[29]),
                SIMD8(v[2], v[6], v[10], v[14], v[18], v[22], v[26], v[30]))
    }

    /// Position along one axis for eight values: x clamped to [0, size - 1] (NaN to 0), the
    /// lower corner (at most size - 2, as a whole float) and the fraction past it.
    @inline(always)
    static func position(_ v: SIMD8<Float>, _ low: Float, _ scale: Float, top: Float, last: Float) -> (SIMD8<Float>, SIMD8<Float>) {
        var x = (v - low) * scale
        x.replace(with: 0, where: .!(x .> 0))
        x.replace(with: top, where: x .> top)
        // Adding and taking away 2^23 rounds to the nearest whole number; step down where it rounded up.
        let twoTo23 = SIMD8<Float>(repeating: 8_388_608)
        var corner = (x + twoTo23) - twoTo23
        corner.replace(with: corner - 1, where: corner .> x)
        corner.replace(with: last, where: corner .> last)
        return (corner, x - corner)
    }
}

/// A .cube file named by a chain: the path as written (kept when the chain is saved) and
/// its table.
public struct CubeFile: Sendable {
    /// As written in the chain file: relative to the chain file's folder, or absolute.
    public let path: String
    public let lut: CubeLUT

    /// Reads (or finds already read) the file at `path`, relative to `directory` unless absolute.
    public init(_ path: String, relativeTo directory: String = ".") throws(CubeLUTError) {
        self.path = path
        let resolved = path.hasPrefix("/") || directory.isEmpty || directory == "."
            ? path : (directory.hasSuffix("/") ? directory + path : directory + "/" + path)
        lut = try CubeLUT.load(resolved)
    }
}
