import Dispatch
import Synchronization
import Testing
@testable import FilterChain

/// The pool and task groups on their own (CI also runs these under ThreadSanitizer).
@Suite struct WorkerPoolTests {
    /// Tasks that add tasks, from groups waited on by several threads at once: every task
    /// runs exactly once and every wait returns after all of its group's tasks.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .acquiring) }
    }

    @Test(arguments: [1, 2, 4])
    func everyTaskRunsOnceWhateverTheThreads(threads: Int) throws {
        let pool = WorkerPool(threads: threads)
        defer { pool.shutdown() }
        let groups = 4, perGroup = 200
        let counters = (0..<groups).map { _ in Counter() }
        let totals = Mutex([Int](repeating: -1, count: groups))
        DispatchQueue.concurrentPerform(iterations: groups) { g in
            let group = TaskGroup(pool: pool)
            for i in 0..<perGroup {
                group.submit(WorkerPool.Priority(order: g, lane: i % 3, rank: i)) {
                    counters[g].add()
                    if i % 10 == 0 {
                        group.submit(WorkerPool.Priority(order: g, lane: 0, rank: i)) { counters[g].add() }
                    }
                }
            }
            let done = (try? group.wait()) != nil
            let count = counters[g].count
            totals.withLock { $0[g] = done ? count : -2 }
        }
        #expect(totals.withLock { $0 } == Array(repeating: perGroup + perGroup / 10, count: groups))
    }

    /// The first error a task throws is what wait throws; the other tasks still run.
    @Test func theFirstErrorIsKept() {
        struct Failed: Error, Equatable { var n: Int }
        let pool = WorkerPool(threads: 2)
        defer { pool.shutdown() }
        let group = TaskGroup(pool: pool)
        let ran = Counter()
        for i in 0..<50 {
            group.submit(WorkerPool.Priority(order: 0, lane: 0, rank: i)) {
                ran.add()
                if i == 7 || i == 30 { throw Failed(n: i) }
            }
        }
        #expect(throws: Failed.self) { try group.wait() }
        #expect(ran.count == 50)
        // The group can be used again, with no error left over.
        group.submit(WorkerPool.Priority(order: 0, lane: 0, rank: 0)) {}
        #expect(throws: Never.self) { try group.wait() }
    }
}
