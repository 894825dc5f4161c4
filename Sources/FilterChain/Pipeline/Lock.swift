#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex with a condition variable (pthread), for the pipeline's own bookkeeping.
final class Monitor: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    @inline(__always)
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    /// Waits (with the lock held) until signalled.
    func wait() { pthread_cond_wait(&condition, &mutex) }
    func broadcast() { pthread_cond_broadcast(&condition) }
    func signal() { pthread_cond_signal(&condition) }
}
