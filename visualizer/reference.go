//go:build !workshop

package main

// workshop is false: the chapters' reference locks (see workshop.go).
const workshop = false
