package harness

import (
	"testing"
)

// Run loads and replays the fixture in dir for a test: it fails the test if
// the fixture cannot load or the replay cannot run, and registers the replay
// driver's consumption check to run at cleanup (Ginkgo's GinkgoTB() maps
// Cleanup to DeferCleanup). When -record (or AGENTSNAP_RECORD) matches the
// scenario's CATEGORY/NAME, it records the scenario first with the runtime
// under test; see recordFlag. It does not judge the outcome: pass it to
// AssertReplay and AssertGolden, or to the Gomega matchers.
func Run(t testing.TB, dir string, opts ...Options) *Outcome {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if err := recordIfAsked(t, dir, o.runtime()); err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	fx, err := LoadFixture(dir)
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	o.tb = t
	ctx, cancel := testContext(t)
	defer cancel()
	out, err := Replay(ctx, fx, o)
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	t.Cleanup(func() {
		// The consumption check runs at teardown whatever the test did; an
		// outcome already judged (AssertReplay, MatchRecording) reported it.
		if out.judged {
			return
		}
		if err := out.driver.Check(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return out
}

// AssertReplay fails t with the outcome's report unless the replay matched
// the recording.
func AssertReplay(t testing.TB, o *Outcome) {
	t.Helper()
	o.judged = true
	if !o.Passed() {
		t.Errorf("%s", o.Report())
	}
}

// AssertGolden compares the replayed transcript with transcript.golden
// through goldie, or rewrites it when -update (or GOLDIE_UPDATE,
// AGENTSNAP_UPDATE) asks and the replay matched. The failure shows
// [diff -golden +replay] and the command that updates the golden.
func AssertGolden(t testing.TB, o *Outcome) {
	t.Helper()
	res := checkGolden(t, o)
	if res.Message != "" {
		t.Errorf("%s", res.Message)
	}
	if res.Updated {
		t.Logf("harness: updated %s", res.Path)
	}
}

// Check replays dir and asserts both comparisons: the one call a plain
// go test needs per scenario.
func Check(t testing.TB, dir string, opts ...Options) *Outcome {
	t.Helper()
	o := Run(t, dir, opts...)
	if o == nil {
		return nil
	}
	AssertReplay(t, o)
	AssertGolden(t, o)
	return o
}
