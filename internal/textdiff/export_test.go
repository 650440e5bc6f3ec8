package textdiff

// SetMaxEdits lowers the edit budget for a test and returns the restore
// function.
func SetMaxEdits(n int) (restore func()) {
	old := maxEdits
	maxEdits = n
	return func() { maxEdits = old }
}
