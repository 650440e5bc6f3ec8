package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/internal/termtext"
	"github.com/agentsnap/agentsnap/judge"
)

// Options tune a replay; see judge.Options. Runtime is required: the
// agent under test.
type Options = judge.Options

// Outcome is a replay's verdict; see judge.Outcome.
type Outcome = judge.Outcome

// Discover returns the scenario folders under root; see fixture.Discover.
// A root that does not exist is an error that says how to scaffold the
// first scenario there: a new module's test runs before it has one.
func Discover(root string) ([]string, error) {
	dirs, err := fixture.Discover(root)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Lstat(root); errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w; no scenario is recorded there yet: scaffold one with go tool agentsnap new CATEGORY/NAME --fixtures %s", err, root)
		}
	}
	return dirs, err
}

// Name returns CATEGORY/NAME for a fixture folder.
func Name(dir string) string { return fixture.Name(dir) }

// Run loads and replays the fixture in dir for a test: it fails the test if
// the fixture cannot load or the replay cannot run, and reports the replay
// driver's consumption check at cleanup unless an assertion judged the
// outcome (Ginkgo's GinkgoTB() maps Cleanup to DeferCleanup). When -record
// (or AGENTSNAP_RECORD) matches the scenario's CATEGORY/NAME, it records
// the scenario first with the runtime under test. It does not judge the
// outcome: pass it to AssertReplay and AssertGolden, or to the Gomega
// matchers.
func Run(t testing.TB, dir string, opts Options) *Outcome {
	t.Helper()
	secrets := secret.FromEnv(os.Getenv)
	t = redacting(t, secrets)
	if opts.Runtime == nil {
		t.Fatalf("harness: Run(%s): Options.Runtime is nil: pass the runtime under test, harness.Options{Runtime: ...}", dir)
		return nil
	}
	if err := recordIfAsked(t, dir, opts.Runtime); err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	opts = forTest(t, opts)
	fx, err := fixture.Load(dir)
	if err != nil {
		t.Fatalf("%v", recordHint(dir, err, opts))
		return nil
	}
	ctx, cancel := testContext(t)
	defer cancel()
	// The replay's context carries the set, so the wire layer adds what
	// the agent sends as a credential (see redact.go).
	ctx = secret.NewContext(ctx, secrets)
	out, err := judge.Replay(ctx, fx, opts)
	if err != nil {
		t.Fatalf("%v", recordHint(dir, err, opts))
		return nil
	}
	r := &run{secrets: secrets}
	runs.Store(out, r)
	t.Cleanup(func() {
		// Forgotten with the test: a suite runs thousands of replays in one
		// process, and each outcome holds its logs.
		defer runs.Delete(out)
		// The consumption check runs at teardown whatever the test did; an
		// outcome already judged (AssertReplay, MatchRecording) reported it.
		if !r.judged.Load() && out.Consumption != nil {
			t.Errorf("%s", termtext.Lines(out.Consumption.Error()))
		}
	})
	return out
}

// runs holds what the harness keeps of each outcome Run made, until its
// test's cleanup. Only Run adds to it: an assertion on an outcome whose
// test already ended (one shared across subtests) finds nothing to mark,
// and adds nothing that would stay for the life of the process.
var runs sync.Map // *Outcome -> *run

type run struct {
	// secrets is the set the replay ran with: the credentials the agent
	// sent are known only to it (see redact.go).
	secrets *secret.Set
	// judged says an assertion (AssertReplay, MatchRecording) judged the
	// outcome, and so reported the consumption check.
	judged atomic.Bool
	// reported says AssertReplay failed the test with the outcome's
	// report: a refusal to update the golden need not repeat it.
	reported atomic.Bool
}

// markJudged notes that an assertion judged o, if its test still runs.
func markJudged(o *Outcome) {
	if r, ok := runs.Load(o); ok {
		r.(*run).judged.Store(true)
	}
}

// AssertReplay fails t with the outcome's report unless the replay matched
// the recording.
func AssertReplay(t testing.TB, o *Outcome) {
	t.Helper()
	t = redacting(t, secretsOf(o))
	markJudged(o)
	if !o.Passed() {
		t.Errorf("%s", termtext.Lines(o.Report()))
		if r, ok := runs.Load(o); ok {
			r.(*run).reported.Store(true)
		}
	}
}

// reportShown reports whether AssertReplay failed o's test with its report.
func reportShown(o *Outcome) bool {
	r, ok := runs.Load(o)
	return ok && r.(*run).reported.Load()
}

// AssertGolden compares the replayed transcript with transcript.golden
// through goldie, or rewrites it when -update (or GOLDIE_UPDATE,
// AGENTSNAP_UPDATE) asks and the replay matched. The failure shows
// [diff -golden +replay] and the command that updates the golden.
func AssertGolden(t testing.TB, o *Outcome) {
	t.Helper()
	t = redacting(t, secretsOf(o))
	res := checkGolden(t, o)
	if res.Message != "" {
		t.Errorf("%s", termtext.Lines(res.Message))
	}
	logUpdate(t, res)
}

// Check replays dir and asserts both comparisons: the one call a plain
// go test needs per scenario.
func Check(t testing.TB, dir string, opts Options) *Outcome {
	t.Helper()
	o := Run(t, dir, opts)
	if o == nil {
		return nil
	}
	AssertReplay(t, o)
	AssertGolden(t, o)
	return o
}

// forTest fills what a test's replay takes from the test: its log, the
// commands its messages give, -schedule-seed.
func forTest(t testing.TB, opts Options) Options {
	if opts.Logf == nil {
		opts.Logf = engineLogf(t)
	}
	if opts.Hints.Test == nil {
		opts.Hints.Test = rerun(t)
	}
	if s := scheduleSeed(); s != 0 && opts.OnlySeed == 0 {
		opts.OnlySeed = s
	}
	return opts
}

// testContext is the context of a test's replay: the test's, ending a
// twentieth of the time left before the test binary's own deadline (go
// test -timeout), so a replay that cannot go on fails saying what it waits
// for rather than in the binary's panic.
func testContext(t testing.TB) (context.Context, context.CancelFunc) {
	ctx := t.Context()
	if d, ok := unwrapped(t).(interface{ Deadline() (time.Time, bool) }); ok {
		if at, ok := d.Deadline(); ok {
			return context.WithDeadline(ctx, at.Add(-time.Until(at)/20))
		}
	}
	return context.WithCancel(ctx)
}
