package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/session"
)

// Scenario statuses.
const (
	StatusPass    = "pass"
	StatusFail    = "fail"
	StatusPending = "pending" // a golden proposal waits for review
	StatusError   = "error"   // the scenario could not be replayed
)

// Scenario is the result of one scenario, as the report shows it. Any
// field may be empty; a scenario whose status is not pass and which has
// both Recorded and Replayed logs is shown golden and replay side by side.
type Scenario struct {
	Name, Dir string
	// Status is StatusPass, StatusFail, StatusPending or StatusError.
	Status string
	// Recorded holds the fixture's logs (the golden), Replayed this run's;
	// both in lineage order (they are ordered again if they are not).
	Recorded, Replayed []*session.Log
	// GoldenTranscript is transcript.golden; ReplayTranscript is the
	// transcript of this run.
	GoldenTranscript, ReplayTranscript string
	// Problems are the failure lines: drift, differences, consumption.
	Problems []string
	// FixCommand is the command that fixes or accepts the change.
	FixCommand string
}

// Write renders one self-contained HTML page of the scenarios to w: a
// status summary, then every scenario with its agent tree, failing ones
// expanded, golden and replay side by side with the first divergence
// marked. The page loads nothing: styles and script are inline. It fails
// only when w does.
func Write(w io.Writer, title string, scenarios []Scenario) error {
	p := &page{Title: title, CSS: template.CSS(styleCSS), JS: template.JS(scriptJS)}
	counts := map[string]int{}
	for i := range scenarios {
		sv := buildScenario(i+1, &scenarios[i])
		counts[sv.StatusClass()]++
		p.Scenarios = append(p.Scenarios, sv)
	}
	for _, st := range []string{StatusFail, StatusPending, StatusError, StatusPass, "unknown"} {
		if counts[st] > 0 {
			p.Counts = append(p.Counts, count{Status: st, N: counts[st]})
		}
	}
	if err := pageTemplate().Execute(w, p); err != nil {
		return fmt.Errorf("report: writing the page: %w", err)
	}
	return nil
}

//go:embed page.tmpl
var pageTmpl string

//go:embed style.css
var styleCSS string

//go:embed script.js
var scriptJS string

// pageTemplate is parsed when a page is first written, not when the
// package is loaded: every agentsnap command would pay for it.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageTmpl))
})

type page struct {
	Title     string
	Counts    []count
	Scenarios []*scenarioView
	CSS       template.CSS
	JS        template.JS
}

type count struct {
	Status string
	N      int
}

// scenarioView is one scenario ready to display: a single tree, or pairs
// of golden and replay sessions.
type scenarioView struct {
	*Scenario
	Anchor     string
	Open       bool
	Tree       *tree       // the single view; nil when Pairs are shown
	TreeSide   string      // which run the single view shows
	Golden     *tree       // compare view
	Replay     *tree       // compare view
	Pairs      []*pairView // compare view
	Lines      []*lineRow  // transcripts side by side
	LinesDiff  bool
	Divergence string // the first divergence's anchor, or ""
	Notes      []string
}

// StatusClass is the status if it is a known one, else "unknown".
func (s *scenarioView) StatusClass() string {
	switch s.Status {
	case StatusPass, StatusFail, StatusPending, StatusError:
		return s.Status
	}
	return "unknown"
}

// FirstProblem is the first line of the first problem, for the summary.
func (s *scenarioView) FirstProblem() string {
	if len(s.Problems) == 0 {
		return ""
	}
	line, _, _ := strings.Cut(s.Problems[0], "\n")
	return line
}

func buildScenario(n int, sc *Scenario) *scenarioView {
	sv := &scenarioView{Scenario: sc, Anchor: "s" + strconv.Itoa(n)}
	sv.Open = sv.StatusClass() != StatusPass
	divID := sv.Anchor + "-first-divergence"
	if sv.Open && len(sc.Recorded) > 0 && len(sc.Replayed) > 0 {
		sv.Golden, sv.Replay = buildTree(sc.Recorded), buildTree(sc.Replayed)
		sv.Notes = appendNote(appendNote(nil, "golden: ", sv.Golden.Note), "replay: ", sv.Replay.Note)
		sv.Pairs = alignTrees(sv.Golden, sv.Replay)
		for _, p := range sv.Pairs {
			p.Anchor = sv.Anchor + "-" + slug(p.Label)
			if p.Replay == nil {
				// Replay labels are unique among the other pairs; golden
				// labels only among the golden-only ones.
				p.Anchor += "-golden"
			}
			for _, s := range []*sessionView{p.Golden, p.Replay} {
				if s != nil {
					s.Anchor = p.Anchor
				}
			}
		}
		if markFirstDivergence(sv.Pairs, divID) {
			sv.Divergence = divID
		}
	} else {
		logs, side := sc.Replayed, "replay"
		if len(logs) == 0 {
			logs, side = sc.Recorded, "golden (the fixture)"
		}
		if len(logs) > 0 {
			sv.Tree, sv.TreeSide = buildTree(logs), side
			sv.Notes = appendNote(nil, "", sv.Tree.Note)
			for _, s := range sv.Tree.Sessions {
				s.Anchor = sv.Anchor + "-" + slug(s.Label)
			}
		}
	}
	if sv.Open && (sc.GoldenTranscript != "" || sc.ReplayTranscript != "") {
		sv.Lines = alignLines(sc.GoldenTranscript, sc.ReplayTranscript)
		for _, l := range sv.Lines {
			if l.State != stateSame {
				sv.LinesDiff = true
				if sv.Divergence == "" {
					l.ID, sv.Divergence = divID, divID
				}
				break
			}
		}
	}
	return sv
}

func appendNote(notes []string, prefix, note string) []string {
	if note == "" {
		return notes
	}
	return append(notes, prefix+note)
}

// slug turns a session label into an id part: "session 2" -> "session-2".
func slug(label string) string {
	return strings.ReplaceAll(label, " ", "-")
}

// overviewRow is one session in the agent tree table. In the compare view
// a value that differs shows as "golden → replay".
type overviewRow struct {
	Label, Anchor string
	Level         int
	Mode, Via     string
	Depth, Seed   string
	Events, Calls string
	Tokens        string
	State         string
}

// Overview lists the sessions of the scenario for the agent tree table.
func (s *scenarioView) Overview() []overviewRow {
	var rows []overviewRow
	if s.Tree != nil {
		for _, v := range s.Tree.Sessions {
			rows = append(rows, overview(v, v, v.Anchor, stateSame))
		}
	}
	for _, p := range s.Pairs {
		g, r := p.Golden, p.Replay
		if g == nil {
			g = r
		}
		if r == nil {
			r = g
		}
		rows = append(rows, overview(g, r, p.Anchor, p.State))
	}
	return rows
}

func overview(g, r *sessionView, anchor, state string) overviewRow {
	both := func(f func(*sessionView) string) string {
		a, b := f(g), f(r)
		if a == b {
			return a
		}
		return a + " → " + b
	}
	return overviewRow{
		Label: r.Label, Anchor: anchor, Level: r.Level, State: state,
		Mode: both(func(s *sessionView) string { return orDash(s.Mode()) }),
		Via:  both(func(s *sessionView) string { return orDash(s.Header.ParentCallID) }),
		Depth: both(func(s *sessionView) string {
			if s.Header.ParentSession == "" && s.Header.DelegationDepth == 0 {
				return "0"
			}
			return strconv.Itoa(s.Header.DelegationDepth)
		}),
		Seed:   both(func(s *sessionView) string { return orDash(nonZero(s.Header.SeedLength)) }),
		Events: both(func(s *sessionView) string { return strconv.Itoa(s.Events) }),
		Calls:  both(func(s *sessionView) string { return strconv.Itoa(s.Calls) }),
		Tokens: both(func(s *sessionView) string { return orDash(s.Usage.String()) }),
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func nonZero(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// Title names the pair's session, with the golden's label when the
// replay numbers it differently.
func (p *pairView) Title() string {
	if p.Golden != nil && p.Replay != nil && p.Golden.Label != p.Replay.Label {
		return p.Replay.Label + " (golden: " + p.Golden.Label + ")"
	}
	return p.Label
}

// SeedSummary labels a pair's inherited prefix, naming both runs when
// they disagree.
func (p *pairView) SeedSummary() string {
	var g, r string
	if p.Golden != nil {
		g = p.Golden.SeedSummary
	}
	if p.Replay != nil {
		r = p.Replay.SeedSummary
	}
	switch {
	case g == r || r == "":
		return g
	case g == "":
		return r
	}
	return "golden " + g + "; replay " + r
}

// Totals is a tree's model calls and tokens, for the scenario header.
func (t *tree) Totals() string {
	s := fmt.Sprintf("%d sessions · %d model calls", len(t.Sessions), t.Calls)
	if u := t.Usage.String(); u != "" {
		s += " · tokens " + u
	}
	return s
}
