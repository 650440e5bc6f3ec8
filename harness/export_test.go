package harness

import (
	"os"
	"sync"
)

// SetUpdate forces the update request for a test, AGENTSNAP_UPDATE
// unset, and returns the restore.
func SetUpdate(v bool) func() {
	UpdateRequested()
	old := updateFlag
	env, set := os.LookupEnv("AGENTSNAP_UPDATE")
	updateFlag = v
	os.Unsetenv("AGENTSNAP_UPDATE")
	return func() {
		updateFlag = old
		if set {
			os.Setenv("AGENTSNAP_UPDATE", env)
		}
	}
}

// RereadUpdate makes the next UpdateRequested read -update again, as a
// test binary's first call does.
func RereadUpdate() { readUpdate = sync.Once{} }

// DeclaresTool is declaresTool.
var DeclaresTool = declaresTool

// SetGinkgoTool makes the module under test have the ginkgo tool or not,
// and returns the restore.
func SetGinkgoTool(has bool) func() {
	old := ginkgoTool
	ginkgoTool = func() bool { return has }
	return func() { ginkgoTool = old }
}

// GinkgoFocus is ginkgoFocus.
var GinkgoFocus = ginkgoFocus

// Held reports whether the harness still holds o (whether it was judged,
// its replay's secrets).
func Held(o *Outcome) bool {
	_, ok := runs.Load(o)
	return ok
}
