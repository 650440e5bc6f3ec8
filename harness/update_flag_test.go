package harness_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/sebdah/goldie/v2"
)

// A test binary may hold golden tests of its own beside agentsnap's: one
// -update rewrites both, so the harness reads the flag and leaves it as
// it was given.
func TestUpdateLeavesTheFlagToTheBinarysOtherGoldenTests(t *testing.T) {
	f := flag.Lookup("update")
	if f == nil {
		t.Fatal("no -update flag in a test binary that links the harness")
	}
	old := f.Value.String()
	t.Cleanup(func() {
		_ = f.Value.Set(old)
		harness.RereadUpdate()
	})
	if err := f.Value.Set("true"); err != nil {
		t.Fatal(err)
	}
	harness.RereadUpdate()
	if !harness.UpdateRequested() {
		t.Fatal("UpdateRequested under -update: false")
	}
	if got := f.Value.String(); got != "true" {
		t.Fatalf("-update after the harness read it: %s, want true", got)
	}
	dir := t.TempDir()
	goldie.New(t, goldie.WithFixtureDir(dir)).Assert(t, "mine", []byte("the package's own golden\n"))
	b, err := os.ReadFile(filepath.Join(dir, "mine.golden"))
	if err != nil || string(b) != "the package's own golden\n" {
		t.Fatalf("the package's own golden under -update: %q, %v; want it written", b, err)
	}
}
