//go:build !unix

package main

import "time"

// processCPU is not measured where getrusage does not exist: the CPU
// column then shows "-".
func processCPU() (time.Duration, bool) { return 0, false }
