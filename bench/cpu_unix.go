//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used so far, user and system
// (getrusage RUSAGE_SELF: every thread of the bench, the Go runtime's
// included, and none of the server's, which is another process). The
// difference over a window is what the clients in the bench cost.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
