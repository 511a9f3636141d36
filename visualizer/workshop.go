//go:build workshop

package main

// workshop: this build runs the learner's lock (go run -tags workshop
// -overlay … ./visualizer, as make exercise CH=NN VISUAL=1 does). The header
// says "your lock", and an unfinished TODO(workshop) step ends the view
// with its message and a pointer to the chapter's tests.
const workshop = true
