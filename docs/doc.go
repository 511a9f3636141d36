// Package docs is the course's reference pages (README.md, concepts.md,
// comparison.md, troubleshooting.md and the pictures under pictures/).
//
// It holds no code a learner needs, only tests of the repository as a whole.
// links_test.go walks every Markdown file of the repository and checks that
// each relative link points to a file or directory that exists, and each
// #anchor to a heading of the file it names; deps_test.go checks that no
// chapter links a test, fault-injection or container library:
//
//	go test ./docs
package docs
