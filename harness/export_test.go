package harness

// SetUpdate forces the update request for a test and returns the restore.
func SetUpdate(v bool) func() {
	UpdateRequested()
	old := updateWanted
	updateWanted = v
	return func() { updateWanted = old }
}
