package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/textdiff"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/sebdah/goldie/v2"
)

// checkGolden compares (or, when asked and allowed, updates) the transcript
// golden of o. Comparison goes through goldie with t. A transcript that
// differs leaves a proposal beside the golden (see settleProposal).
func checkGolden(t testing.TB, o *Outcome) judge.GoldenResult {
	fx := o.Fixture
	if UpdateRequested() {
		res := judge.UpdateGolden(o)
		if reportShown(o) {
			// The refusal of a replay that fails ends with its report,
			// which AssertReplay showed just before (Check).
			res.Message = strings.Replace(res.Message, ":\n"+o.Report(), "; its report is above", 1)
		}
		return res
	}
	if _, err := os.Stat(fx.Golden); err != nil || judge.GoldenUnreadable(fx.Golden) != "" {
		return judge.SettleGolden(o, true, true, "") // its message says why it cannot be read
	}
	shim := &captureTB{TB: t}
	var diff string // goldie asks for the diff once; the message reuses it
	g := goldie.New(shim,
		goldie.WithFixtureDir(fx.Dir),
		goldie.WithNameSuffix(filepath.Ext(fixture.GoldenFile)),
		goldie.WithDiffFn(func(actual, expected string) string {
			diff = textdiff.Unified(expected, actual, 3)
			return diff
		}),
	)
	g.Assert(shim, strings.TrimSuffix(fixture.GoldenFile, filepath.Ext(fixture.GoldenFile)), []byte(o.Transcript))
	return judge.SettleGolden(o, false, len(shim.errs) > 0, diff)
}

// logUpdate logs a golden that -update rewrote, and its warnings: the
// sessions the update removed, the children whose mode or fork seed it
// changed (see judge.GoldenResult.Warnings).
func logUpdate(t testing.TB, res judge.GoldenResult) {
	t.Helper()
	if res.Updated {
		t.Logf("harness: updated %s", res.Path)
	}
	for _, w := range res.Warnings {
		t.Logf("harness: warning: %s", w)
	}
}

// captureTB lets goldie report into a message instead of failing the test
// directly, so the harness can add the fixing command. Everything else goes
// to the real TB.
type captureTB struct {
	testing.TB
	errs []string
}

func (c *captureTB) Helper()           {}
func (c *captureTB) Error(args ...any) { c.errs = append(c.errs, fmt.Sprint(args...)) }
func (c *captureTB) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}
func (c *captureTB) Fatal(args ...any)                 { c.Error(args...) }
func (c *captureTB) Fatalf(format string, args ...any) { c.Errorf(format, args...) }
func (c *captureTB) FailNow()                          {}
func (c *captureTB) Fail()                             {}
