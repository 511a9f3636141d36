// Package interop holds tests, and no code: Apache Curator, the Java
// library whose recipes lockstep's locks follow, contends with them on the
// same znodes. A Curator InterProcessMutex and a chapter 04 mutex share one
// lock, an InterProcessReadWriteLock and chapter 05's lock one queue, a
// LeaderLatch and chapter 07's Election one election, an
// InterProcessSemaphoreV2 and chapter 09's semaphore one set of leases.
// README.md says what each test proves and what the tests found.
package interop
