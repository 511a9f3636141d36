// Package reliability is the evidence that lockstep's locks are not toys.
// It holds no code a program would import: its tests take the locks of
// chapters 04 (seqlock), 05 (rwlock, write side), 06 (reentrant) and 07
// (leader) through the faults a real deployment meets — a ZooKeeper server
// failover, a client cut off from the network for a moment or for too
// long, a slow or lossy link, a holder process killed or frozen — and a
// soak that mixes them at random. Each test states what must hold
// (never two holders, no lost update, the holder told when it lost the
// lock, a stale write refused by fencing) and measures how long things
// took. README.md has the figures of the last run.
//
//	go test ./reliability/                          # the bounded default run
//	go test ./reliability/ -run Soak -soak 5m -v    # a longer soak
package reliability
