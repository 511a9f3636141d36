// Package apicheck holds the test that reads the lock packages' public API
// as a user outside the module reads it, with go doc: it must name nothing
// of internal/, which such a user can neither import nor write.
package apicheck
