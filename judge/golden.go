package judge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/sessiontext"
	"github.com/agentsnap/agentsnap/internal/textdiff"
	"github.com/agentsnap/agentsnap/scenario"
)

// UpdateRefusal returns why an update must not happen here, or "".
func UpdateRefusal() string {
	if ci, refused := fixture.WritesRefused(); refused {
		return fmt.Sprintf("refusing to update goldens with CI=%s: CI checks goldens, it does not write them; update locally, or set AGENTSNAP_FORCE_UPDATE=1 to force", ci)
	}
	return ""
}

// UpdateCommand returns the command that rewrites o's golden from a
// replay, in the form that works where the user is (the test that ran
// it, or the CLI).
func UpdateCommand(o *Outcome) string { return o.commands.update(o.Fixture) }

// RecordCommand returns the command that re-records o's fixture, in the
// form that works where the user is, for the runtime and the source (a
// playbook, a live model) that recorded it.
func RecordCommand(o *Outcome) string {
	if o.prepared != nil && o.prepared.record != nil {
		return o.prepared.record() // made once for the fixture's replays and their reports
	}
	return o.commands.record(o.Fixture)
}

// RecordCommandFor returns the command that re-records the scenario in
// dir with opts (its Runtime and Hints: where the user is), for a fixture
// that does not load: it reads what it can of scenario.json (which
// runtime recorded it, from which source).
func RecordCommandFor(dir string, opts Options) string {
	fx := &fixture.Fixture{Dir: dir, Name: fixture.Name(dir), Scenario: &scenario.Scenario{}}
	if sc, err := scenario.Load(dir); err == nil {
		fx.Scenario = sc
	}
	return opts.commands().record(fx)
}

// GoldenResult is the golden step's verdict.
type GoldenResult struct {
	Path    string
	Updated bool   // the golden was written (added or changed)
	Message string // why it failed, with the diff and the fixing command; "" on success
	// Pending is the golden proposal (Path + ProposalSuffix) this
	// comparison wrote or kept, for "agentsnap review"; "" when none.
	Pending string
	// Warnings say what an update did that is likely a mistake: it
	// removed a session of the golden that the replay no longer has,
	// changed a child's mode (spawn, fork) or a fork's seed, which
	// "agentsnap review --accept" does only with --force.
	Warnings []string
}

// UpdateGolden rewrites o's transcript.golden from its replay, atomically —
// only when the replay matched its recording, and under CI only with
// AGENTSNAP_FORCE_UPDATE=1 — and says whether it wrote. A proposal beside
// the golden is settled by the update and removed. It is what a test's
// -update does per scenario, and what "agentsnap check --update" calls.
func UpdateGolden(o *Outcome) GoldenResult {
	fx := o.Fixture
	res := GoldenResult{Path: fx.Golden}
	if why := UpdateRefusal(); why != "" {
		res.Message = "judge: " + why
		return res
	}
	if o.rulesOnly() {
		res.Message = fmt.Sprintf("judge: not updating %s: the recording breaks its rules, and goldens are only rewritten from a recording that keeps them:\n%s", fx.Golden, o.Report())
		return res
	}
	if !o.Passed() {
		res.Message = fmt.Sprintf("judge: not updating %s: the replay itself fails, and goldens are only rewritten from a replay that matches its recording:\n%s", fx.Golden, o.Report())
		return res
	}
	old, err := os.ReadFile(fx.Golden)
	exists := err == nil
	if !exists || string(old) != o.Transcript {
		if why := o.holdsSecret(fx.Golden); why != "" {
			res.Message = why
			return res
		}
		if err := atomicfile.WriteFile(fx.Golden, []byte(o.Transcript), 0o644); err != nil {
			res.Message = fmt.Sprintf("judge: updating %s: %v", fx.Golden, err)
			if why := GoldenUnreadable(fx.Golden); why != "" {
				res.Message += fmt.Sprintf(" (%s): move it away, then update again", why)
			}
			return res
		}
		goldens.wrote(fx.Golden, !exists)
		res.Updated = true
		for _, name := range sessiontext.Dropped(string(old), o.Transcript) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the session is in the golden but not in the replay: the agent no longer starts it, and the update removed it from %s (agentsnap review --accept does that only with --force); if the agent should still start it, restore the golden from version control and fix the agent", name, fx.Golden))
		}
		for _, p := range sessiontext.Recreated(string(old), o.Transcript) {
			g, r := &p[0], &p[1]
			if g.Mode != r.Mode {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the child was a %s and the replay makes it a %s (%q); the update wrote that to %s (agentsnap review --accept does that only with --force); if it should still be a %s, restore the golden from version control and fix the agent", g.Name(), g.Made(), r.Made(), r.Header, fx.Golden, g.Made()))
			}
			if !sessiontext.SameSeed(g, r) {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the fork seed changed from %s to %s; the update wrote that to %s (agentsnap review --accept does that only with --force); if the child should still inherit what it did, restore the golden from version control and fix the agent", g.Name(), g.Inherited(), r.Inherited(), fx.Golden))
			}
		}
	}
	if err := withdrawProposal(fx.Golden); err != nil {
		res.Message = err.Error()
	}
	return res
}

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
		fmt.Fprintf(&b, "  (replays that differ from their golden; accept or reject them with: %s)\n", commands{}.tool("review", commonFolder(pending)))
	}
	if unfiltered {
		for _, p := range obsoleteGoldens(roots, goldens.seen) {
			fmt.Fprintf(&b, "golden obsolete: %s (no scenario checks it; delete it or add its scenario back)\n", p)
		}
	}
	return b.String()
}

func obsoleteGoldens(roots []string, seen map[string]bool) []string {
	return fixture.Files(roots, func(path string) bool {
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
	old, err := o.Fixture.GoldenText() // as fixture.Load read it, checking the logs
	differs := err != nil || string(old) != o.Transcript
	diff := ""
	if err == nil && differs {
		diff = textdiff.Unified(string(old), o.Transcript, 3)
	}
	return o.redactGolden(settle(o, err != nil, differs, diff, propose))
}

// redactGolden returns res with the replay's secrets gone from its
// message, as from Report: the diff quotes the replayed transcript, in
// which an agent that wrote a key into a message shows it, and a user's
// test prints the message itself (the harness's assertions redact with
// the replay's secrets only while the test that ran it runs).
func (o *Outcome) redactGolden(res GoldenResult) GoldenResult {
	res.Message = o.secrets.Redact(res.Message)
	return res
}

// invisibleDifference says how golden differs from transcript when a
// diff cannot show it — only in its line endings, or in a byte order mark
// in front — else "". Both come from tools, not from the agent: a
// checkout that converts line endings, an editor that marks UTF-8.
func invisibleDifference(golden, transcript string) string {
	bom := strings.HasPrefix(golden, "\uFEFF")
	g := strings.TrimPrefix(golden, "\uFEFF")
	crlf := strings.Contains(g, "\r\n")
	if !bom && !crlf || strings.ReplaceAll(g, "\r\n", "\n") != transcript {
		return ""
	}
	var why []string
	if crlf {
		why = append(why, "its lines end in CRLF, the transcript's in LF (a checkout that converts line endings, git's core.autocrlf? keep goldens in LF: add \"*.golden text eol=lf\" to .gitattributes and check them out again)")
	}
	if bom {
		why = append(why, "it starts with a byte order mark (U+FEFF) an editor added (remove it)")
	}
	return " only where the diff cannot show it: " + strings.Join(why, "; and ")
}

// GoldenUnreadable says why the golden at path is there but is no file
// this process can read — a folder, or a file it may not open — or ""
// when it is a readable file or is missing. A comparison that could not
// read the golden must not call it missing: the update it suggests would
// fail on a folder, and would silently replace a file the user cannot
// read.
func GoldenUnreadable(path string) string {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return err.Error()
	case st.IsDir():
		return "it is a folder, not a file"
	}
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	f.Close()
	return ""
}

// SettleGolden finishes a comparison of o's transcript with its golden
// made elsewhere — a test's, through goldie — that found it missing or
// differing, with diff ([diff -golden +replay]): it keeps the proposal
// beside the golden in step, as CompareGolden does, and returns the
// verdict, whose message ends with the command that updates the golden.
func SettleGolden(o *Outcome, missing, differs bool, diff string) GoldenResult {
	return o.redactGolden(settle(o, missing, missing || differs, diff, true))
}

func settle(o *Outcome, missing, differs bool, diff string, propose bool) GoldenResult {
	fx := o.Fixture
	res := GoldenResult{Path: fx.Golden}
	if missing {
		if why := GoldenUnreadable(fx.Golden); why != "" {
			// No proposal: neither review nor an update could replace it.
			// An update writes goldens only from a replay that matched its
			// recording: else the re-recording makes it (see below).
			if o.commands.Fresh != "" {
				res.Message = fmt.Sprintf("%s: %s cannot be read, though it was written moments ago: %s; %s", fx.Name, fx.Golden, why, o.commands.Fresh)
				return res
			}
			how := "create it from the replay with:\n  " + UpdateCommand(o)
			if !o.Passed() {
				how = "re-record the scenario (the replay itself does not match its recording, and an update writes goldens only from a replay that does):\n  " + RecordCommand(o)
			}
			res.Message = fmt.Sprintf("%s: %s cannot be read: %s; restore it from version control (or make it readable), or move it away and %s\nand review it before committing",
				fx.Name, fx.Golden, why, how)
			return res
		}
	}
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
	if o.commands.Fresh != "" && differs {
		// Recorded moments ago, the golden is what the runtime wrote:
		// neither an update nor a review of the proposal is the fix.
		note = ""
	}
	if !differs {
		res.Message = note
	}
	switch {
	case differs && !o.Passed():
		// An update writes goldens only from a replay that matched its
		// recording: the command that works is the re-recording, whose
		// transcript then waits beside the golden for review.
		head := fmt.Sprintf("%s: the transcript differs from %s\n%s\n", fx.Name, fx.Golden, diff)
		if missing {
			head = fmt.Sprintf("%s: %s is missing\n", fx.Name, fx.Golden)
		}
		res.Message = fmt.Sprintf("%s(no golden proposal written: the replay itself does not match its recording, and an update writes goldens only from a replay that does)\n%s",
			head, o.recordAdvice(RecordCommand(o)))
		return res
	case o.commands.Fresh != "" && missing:
		res.Message = fmt.Sprintf("%s: %s is missing, though it was recorded moments ago; %s", fx.Name, fx.Golden, o.commands.Fresh)
	case o.commands.Fresh != "" && differs:
		res.Message = fmt.Sprintf("%s: the transcript differs from %s\n%s\n%s", fx.Name, fx.Golden, diff, o.commands.Fresh)
	case missing:
		res.Message = fmt.Sprintf("%s: %s is missing; create it from the replay with:\n  %s\nand review it before committing", fx.Name, fx.Golden, UpdateCommand(o))
	case differs:
		only := ""
		if b, err := fx.GoldenText(); err == nil {
			only = invisibleDifference(string(b), o.Transcript)
		}
		res.Message = fmt.Sprintf("%s: the transcript differs from %s%s\n%s\nIf the change is intended, update the golden with:\n  %s",
			fx.Name, fx.Golden, only, diff, UpdateCommand(o))
	}
	if differs && note != "" {
		res.Message += "\n" + note
	}
	return res
}

// holdsSecret says why o's transcript may not be written to path, a
// golden or its proposal: it holds a value of the replay's secret set (a
// key of the shell or of the agent), and a golden is committed. A replay
// writes it only when it matches its recording, whose logs were checked
// for the recording's secrets; this is for a key the recording's shell
// did not have, or an agent that prints one. "" when it holds none.
func (o *Outcome) holdsSecret(path string) string {
	source, at, ok := o.secrets.FindString(o.Transcript)
	if !ok {
		return ""
	}
	line := 1 + strings.Count(o.Transcript[:at], "\n")
	return fmt.Sprintf("judge: not writing %s: line %d of the replay's transcript holds the value of %s, a credential, and a golden is committed; "+
		"keep it out of the scenario and of what the agent writes, then re-record the scenario (if %s holds no secret, unset it for this run)", path, line, source, source)
}
