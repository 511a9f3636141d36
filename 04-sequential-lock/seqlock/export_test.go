package seqlock

// KnownDirs is how many lock directories s remembers (Session.dirs), for
// the test that bounds it.
func KnownDirs(s *Session) int { return s.dirs.len() }
