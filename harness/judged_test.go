package harness_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/harness"
)

// unconsumedFixture is spawn/one-child whose recorded child names another
// call: the replay never binds it, so the driver's check fails.
func unconsumedFixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "spawn", "one-child")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "spawn", "one-child"))); err != nil {
		t.Fatal(err)
	}
	child := filepath.Join(dir, "session.1.jsonl")
	b, _ := os.ReadFile(child)
	if err := os.WriteFile(child, []byte(strings.Replace(string(b), `"parentCallId":"call_spawn_1"`, `"parentCallId":"call_other"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A replay judged by AssertReplay or MatchRecording has had its driver's
// check reported: the teardown does not report it a second time.
func TestRunLeavesTheConsumptionCheckToAnAssertionThatMadeIt(t *testing.T) {
	dir := unconsumedFixture(t)
	c := &captured{TB: t}
	t.Run("AssertReplay", func(t *testing.T) {
		c.TB = t
		o := harness.Run(c, dir, harness.Options{Runtime: agent.Reference})
		harness.AssertReplay(c, o)
	})
	if len(c.errs) != 1 || !strings.Contains(c.errs[0], "recording not consumed") {
		t.Fatalf("AssertReplay and the teardown reported %q, want the report once", c.errs)
	}

	c.errs = nil
	t.Run("MatchRecording", func(t *testing.T) {
		c.TB = t
		o := harness.Run(c, dir, harness.Options{Runtime: agent.Reference})
		if ok, err := harness.MatchRecording().Match(o); ok || err != nil {
			t.Errorf("MatchRecording of an unconsumed recording: %v, %v", ok, err)
		}
	})
	if len(c.errs) != 0 {
		t.Fatalf("the teardown reported %q after MatchRecording judged the replay", c.errs)
	}
}
