package harness

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/textdiff"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/sebdah/goldie/v2"
)

// Update policy. Goldie's -update flag (and its GOLDIE_UPDATE variable) and
// AGENTSNAP_UPDATE ask for goldens to be rewritten from the replay. The
// harness takes the flag over from goldie, so that it alone writes: only
// goldens, only when the replay itself matched the recording, atomically,
// and never under CI unless forced.
var (
	takeOver   sync.Once
	updateFlag bool // goldie's -update, as this process was started with
)

// UpdateRequested reports whether this run was asked to rewrite goldens:
// -update as the test binary was started, or AGENTSNAP_UPDATE as it is
// set now.
func UpdateRequested() bool {
	takeOver.Do(func() {
		if f := flag.Lookup("update"); f != nil {
			updateFlag = f.Value.String() == "true"
			// From here on goldie only compares; the harness writes.
			_ = f.Value.Set("false")
		}
	})
	return updateFlag || truthy(os.Getenv("AGENTSNAP_UPDATE"))
}

// UpdateRefusal returns why an update must not happen here, or "".
func UpdateRefusal() string {
	if ci, refused := ciRefusesWrites(); refused {
		return fmt.Sprintf("refusing to update goldens with CI=%s: CI checks goldens, it does not write them; update locally, or set AGENTSNAP_FORCE_UPDATE=1 to force", ci)
	}
	return ""
}

// ciRefusesWrites reports whether CI is set (returning its value) and
// AGENTSNAP_FORCE_UPDATE is not: CI then writes no fixture file, no
// recording, golden or proposal.
func ciRefusesWrites() (ci string, refused bool) {
	ci = os.Getenv("CI")
	return ci, truthy(ci) && !truthy(os.Getenv("AGENTSNAP_FORCE_UPDATE"))
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// UpdateCommand returns the command that rewrites o's golden from a
// replay, in the form that works where the user is (the test that ran
// it, or the CLI).
func UpdateCommand(o *Outcome) string { return o.commands.update(o.Fixture) }

// updateCommand is UpdateCommand for a golden compared under test t.
func updateCommand(o *Outcome, t testing.TB) string {
	c := o.commands
	if c.tb == nil && !c.cli {
		c.tb = t
	}
	return c.update(o.Fixture)
}

// GoldenResult is the golden step's verdict.
type GoldenResult struct {
	Path    string
	Updated bool   // the golden was written (added or changed)
	Message string // why it failed, with the diff and the fixing command; "" on success
	// Pending is the golden proposal (Path + ProposalSuffix) this
	// comparison wrote or kept, for "agentsnap review"; "" when none.
	Pending string
}

// checkGolden compares (or, when asked and allowed, updates) the transcript
// golden of o. Comparison goes through goldie with t. A transcript that
// differs leaves a proposal beside the golden (see settleProposal).
func checkGolden(t testing.TB, o *Outcome) GoldenResult {
	fx := o.Fixture
	res := GoldenResult{Path: fx.Golden}
	if UpdateRequested() {
		return UpdateGolden(o)
	}
	if _, err := os.Stat(fx.Golden); err != nil {
		pending, problem := settleProposal(o, true)
		res.Pending = pending
		res.Message = fmt.Sprintf("harness: %s is missing; create it from the replay with:\n  %s\nand review it before committing\n%s", fx.Golden, updateCommand(o, t), proposalNote(o, pending, problem))
		return res
	}
	shim := &captureTB{TB: t}
	var diff string // goldie asks for the diff once; the message reuses it
	g := goldie.New(shim,
		goldie.WithFixtureDir(fx.Dir),
		goldie.WithNameSuffix(filepath.Ext(scenario.GoldenFile)),
		goldie.WithDiffFn(func(actual, expected string) string {
			diff = textdiff.Unified(expected, actual, 3)
			return diff
		}),
	)
	g.Assert(shim, strings.TrimSuffix(scenario.GoldenFile, filepath.Ext(scenario.GoldenFile)), []byte(o.Transcript))
	differs := len(shim.errs) > 0
	pending, problem := settleProposal(o, differs)
	res.Pending = pending
	if differs {
		res.Message = fmt.Sprintf("%s: the transcript differs from %s\n%s\nIf the change is intended, update the golden with:\n  %s\n%s",
			fx.Name, fx.Golden, diff, updateCommand(o, t), proposalNote(o, pending, problem))
	} else if problem != "" {
		res.Message = problem
	}
	return res
}

// UpdateGolden rewrites o's transcript.golden from its replay, atomically —
// only when the replay matched its recording, and under CI only with
// AGENTSNAP_FORCE_UPDATE=1 — and says whether it wrote. A proposal beside
// the golden is settled by the update and removed. It is what -update does
// per scenario, and what "agentsnap check --update" calls.
func UpdateGolden(o *Outcome) GoldenResult {
	fx := o.Fixture
	res := GoldenResult{Path: fx.Golden}
	if why := UpdateRefusal(); why != "" {
		res.Message = "harness: " + why
		return res
	}
	if !o.Passed() {
		res.Message = fmt.Sprintf("harness: not updating %s: the replay itself fails, and goldens are only rewritten from a replay that matches its recording:\n%s", fx.Golden, o.Report())
		return res
	}
	old, err := os.ReadFile(fx.Golden)
	exists := err == nil
	if !exists || string(old) != o.Transcript {
		if err := atomicfile.WriteFile(fx.Golden, []byte(o.Transcript), 0o644); err != nil {
			res.Message = fmt.Sprintf("harness: updating %s: %v", fx.Golden, err)
			return res
		}
		goldens.wrote(fx.Golden, !exists)
		res.Updated = true
	}
	if err := withdrawProposal(fx.Golden); err != nil {
		res.Message = err.Error()
	}
	return res
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

// goldenTracker records which goldens a run checked and wrote.
type goldenTracker struct {
	mu      sync.Mutex
	seen    map[string]bool
	added   []string
	changed []string
	pending []string // proposals written
}

var goldens = &goldenTracker{seen: map[string]bool{}}

func (g *goldenTracker) checked(path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen[filepath.Clean(path)] = true
}

func (g *goldenTracker) wrote(path string, added bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if added {
		g.added = append(g.added, path)
	} else {
		g.changed = append(g.changed, path)
	}
}

func (g *goldenTracker) proposed(path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !slices.Contains(g.pending, path) {
		g.pending = append(g.pending, path)
	}
}

// GoldenSummary describes the goldens this process added and changed, the
// golden proposals waiting for review (those this process wrote and any
// under roots) and, when unfiltered is true (every scenario under roots
// ran), the golden files under roots that no scenario checked: obsolete
// ones. It returns "" when there is nothing to say.
func GoldenSummary(unfiltered bool, roots ...string) string {
	goldens.mu.Lock()
	defer goldens.mu.Unlock()
	var b strings.Builder
	for _, p := range goldens.added {
		fmt.Fprintf(&b, "golden added:    %s\n", p)
	}
	for _, p := range goldens.changed {
		fmt.Fprintf(&b, "golden changed:  %s\n", p)
	}
	if pending := pendingProposals(roots); len(pending) > 0 {
		for _, p := range pending {
			fmt.Fprintf(&b, "golden pending:  %s\n", p)
		}
		fmt.Fprintf(&b, "  (replays that differ from their golden; accept or reject them with: %s)\n", commands{cli: true}.tool("review", commonFolder(pending)))
	}
	if unfiltered {
		for _, p := range obsoleteGoldens(roots, goldens.seen) {
			fmt.Fprintf(&b, "golden obsolete: %s (no scenario checks it; delete it or add its scenario back)\n", p)
		}
	}
	return b.String()
}

func obsoleteGoldens(roots []string, seen map[string]bool) []string {
	return findFiles(roots, func(path string) bool {
		return strings.HasSuffix(path, ".golden") && !seen[filepath.Clean(path)]
	})
}

// CompareGolden compares o's transcript with transcript.golden without a
// test (the CLI's check). It never writes the golden; like the suites'
// comparison it keeps the proposal beside it in step (see
// settleProposal). DiffGolden is the same comparison without that.
func CompareGolden(o *Outcome) GoldenResult { return compareGolden(o, true) }

// DiffGolden compares o's transcript with transcript.golden and writes
// nothing at all, for viewers such as "agentsnap report"; its message
// names a proposal already beside the golden.
func DiffGolden(o *Outcome) GoldenResult { return compareGolden(o, false) }

func compareGolden(o *Outcome, propose bool) GoldenResult {
	fx := o.Fixture
	res := GoldenResult{Path: fx.Golden}
	old, err := os.ReadFile(fx.Golden)
	differs := err != nil || string(old) != o.Transcript
	var pending, problem string
	switch {
	case propose:
		pending, problem = settleProposal(o, differs)
	case differs && o.Passed():
		// A viewer names the proposal an earlier comparison left.
		if _, err := os.Stat(ProposalPath(fx.Golden)); err == nil {
			pending = ProposalPath(fx.Golden)
		}
	}
	res.Pending = pending
	note := strings.TrimSuffix(proposalNote(o, pending, problem), "\n")
	if !differs {
		res.Message = note
	}
	switch {
	case err != nil:
		res.Message = fmt.Sprintf("%s is missing; create it from the replay with:\n  %s", fx.Golden, UpdateCommand(o))
	case differs:
		res.Message = fmt.Sprintf("the transcript differs from %s\n%s\nIf the change is intended, update the golden with:\n  %s",
			fx.Golden, textdiff.Unified(string(old), o.Transcript, 3), UpdateCommand(o))
	}
	if differs && note != "" {
		res.Message += "\n" + note
	}
	return res
}
