// Package docs is the course's reference pages (README.md, concepts.md,
// comparison.md, troubleshooting.md and the pictures under pictures/).
//
// It holds no code a learner needs. Its only Go file besides this one is
// links_test.go, which walks every Markdown file of the repository and checks
// that each relative link points to a file or directory that exists, and each
// #anchor to a heading of the file it names:
//
//	go test ./docs
package docs
