import Testing
@testable import FilterChain

/// Rings are addressed by absolute row: work that spans rows is cut where a ring wraps, a
/// span that would cross the end cannot be read, and (debug builds) a row the ring no longer
/// holds, or does not hold yet, stops the process with the ring's name, the row and the rows
/// held.
@Suite struct PlaneBufferTests {
    @Test func runsAreCutWhereAnyRingWraps() {
        let a = PlaneBuffer(capacity: 6, stride: 8, opaque: true, name: "a")
        let b = PlaneBuffer(capacity: 4, stride: 8, opaque: true, name: "b")
        #expect(PlaneBuffer.runs(3..<11, in: [a]) == [3..<6, 6..<11])
        #expect(PlaneBuffer.runs(3..<11, in: [a, b]) == [3..<4, 4..<6, 6..<8, 8..<11])
        #expect(PlaneBuffer.runs(5..<5, in: [a, b]).isEmpty)
        // Every run lies in consecutive slots of both.
        for run in PlaneBuffer.runs(0..<40, in: [a, b]) {
            #expect(run.lowerBound % 6 + run.count <= 6 && run.lowerBound % 4 + run.count <= 4)
        }
    }

    @Test func rowsAreWhereTheirNumberSays() {
        let ring = PlaneBuffer(capacity: 5, stride: 8, opaque: false, name: "ring")
        ring.hold(0..<5)
        for y in 0..<5 { ring.row(1, y)[0] = Float(y) }
        ring.hold(5..<8)
        for y in 5..<8 { ring.row(1, y)[0] = Float(y) }
        for y in 3..<8 { #expect(ring.row(1, y)[0] == Float(y)) }
        #expect(ring.pixels(3, rows: 2).green[8] == 4, "row 4 follows row 3 in the span")
    }

    @Test func aSpanAcrossTheEndStops() async {
        await #expect(processExitsWith: .failure) {
            let ring = PlaneBuffer(capacity: 5, stride: 8, opaque: true, name: "ring")
            ring.hold(0..<8)
            _ = ring.pixels(3, rows: 3)
        }
    }

    #if DEBUG
    @Test func aRowNoLongerHeldStops() async {
        await #expect(processExitsWith: .failure) {
            let ring = PlaneBuffer(capacity: 4, stride: 8, opaque: true, name: "ring")
            ring.hold(0..<6)
            _ = ring.row(0, 1)  // overwritten by row 5
        }
    }

    @Test func aRowNotYetWrittenStops() async {
        await #expect(processExitsWith: .failure) {
            let ring = PlaneBuffer(capacity: 4, stride: 8, opaque: true, name: "ring")
            ring.hold(0..<2)
            _ = ring.row(0, 2)
        }
    }
    #endif
}
