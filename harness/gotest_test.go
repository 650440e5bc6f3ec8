package harness_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
)

// The harness is usable from a plain go test: these use *testing.T, not Ginkgo.

func TestCheckPassesAFixtureFromPlainGoTest(t *testing.T) {
	o := harness.Check(t, filepath.Join("..", "fixtures", "spawn", "one-child"), harness.Options{Runtime: agent.Reference})
	if o == nil || !o.Passed() || o.Calls != 3 {
		t.Fatalf("Check of an untouched fixture: %+v", o)
	}
}

// captured is a testing.TB that keeps what the harness reports instead of
// failing, so a test can show the assertions do fail.
type captured struct {
	testing.TB
	errs []string
}

func (c *captured) Helper() {}
func (c *captured) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func TestAssertReplayAndAssertGoldenFailWithWhatToDo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spawn", "one-child")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "spawn", "one-child"))); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(dir, fixture.GoldenFile)
	b, _ := os.ReadFile(golden)
	if err := os.WriteFile(golden, []byte(strings.Replace(string(b), "Jupiter", "Saturn", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	child := filepath.Join(dir, "session.1.jsonl")
	b, _ = os.ReadFile(child)
	if err := os.WriteFile(child, []byte(strings.Replace(string(b), "largest", "smallest", 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	c := &captured{TB: t}
	o := harness.Run(c, dir, harness.Options{Runtime: agent.Reference})
	harness.AssertReplay(c, o)
	if len(c.errs) != 1 || !strings.Contains(c.errs[0], "re-record the scenario:\n  go tool agentsnap record "+dir) {
		t.Fatalf("AssertReplay on a changed log reported %q", c.errs)
	}
	c.errs = nil
	// The replay does not match its recording, so -update would refuse:
	// the golden's failure names the re-recording too.
	harness.AssertGolden(c, o)
	if len(c.errs) != 1 || !strings.Contains(c.errs[0], "[diff -golden +replay]") || !strings.Contains(c.errs[0], "If the change is intended, re-record the scenario:\n  go tool agentsnap record "+dir) {
		t.Fatalf("AssertGolden on a changed golden reported %q", c.errs)
	}
}

func TestRunChecksConsumptionAtTeardownWhenNothingElseDid(t *testing.T) {
	dir := unconsumedFixture(t)
	c := &captured{TB: t}
	t.Run("replay", func(t *testing.T) {
		c.TB = t
		harness.Run(c, dir, harness.Options{Runtime: agent.Reference}) // no assertion: only the teardown check
	})
	if len(c.errs) != 1 || !strings.Contains(c.errs[0], "recording not consumed") {
		t.Fatalf("teardown reported %q, want the consumption check", c.errs)
	}
}

func TestAnOutcomeIsForgottenWithItsTest(t *testing.T) {
	var o *harness.Outcome
	t.Run("replay", func(t *testing.T) {
		o = harness.Check(t, filepath.Join("..", "fixtures", "spawn", "one-child"), harness.Options{Runtime: agent.Reference})
		if !harness.Held(o) {
			t.Fatal("the outcome is not held while its test runs: this test checks nothing")
		}
	})
	if harness.Held(o) {
		t.Fatal("the harness still holds the outcome (its logs) after its test ended")
	}
}

// An outcome shared across subtests is judged after the test that ran it
// ended: the assertion judges it and holds nothing for the rest of the
// process.
func TestAnOutcomeJudgedAfterItsTestIsNotHeld(t *testing.T) {
	var o *harness.Outcome
	t.Run("replay", func(t *testing.T) {
		o = harness.Run(t, filepath.Join("..", "fixtures", "spawn", "one-child"), harness.Options{Runtime: agent.Reference})
	})
	if o == nil || harness.Held(o) {
		t.Fatal("the outcome is not made, or still held after its test ended: this test checks nothing")
	}
	t.Run("AssertReplay", func(t *testing.T) {
		harness.AssertReplay(t, o)
		if harness.Held(o) {
			t.Error("AssertReplay holds an outcome whose test ended: it stays for the life of the process")
		}
	})
	t.Run("MatchRecording", func(t *testing.T) {
		if ok, err := harness.MatchRecording().Match(o); !ok || err != nil {
			t.Errorf("MatchRecording of a replay that matches: %v, %v", ok, err)
		}
		if harness.Held(o) {
			t.Error("MatchRecording holds an outcome whose test ended: it stays for the life of the process")
		}
	})
}
