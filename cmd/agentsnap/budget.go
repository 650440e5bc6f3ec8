package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/columns"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// inspectPrices returns the prices of the scenario a log or a folder of
// logs belongs to: the scenario.json beside them, if any. Without prices,
// none says why for the usage table's heading: no scenario.json there, one
// that sets none, or one that cannot be read, when note says why.
func inspectPrices(path string) (prices budget.Prices, none, note string) {
	dir := path
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		dir = filepath.Dir(path)
	}
	if _, err := os.Stat(filepath.Join(dir, scenario.File)); err != nil {
		return nil, "no scenario.json beside the logs gives prices", ""
	}
	sc, err := scenario.Load(dir)
	if err != nil {
		return nil, "the scenario.json beside the logs could not be read", "cost not shown: " + err.Error()
	}
	return sc.Prices, "the scenario.json beside the logs sets no prices", ""
}

// printUsage prints the usage table of a tree: every session, the tree's
// total, and cost when the scenario has prices (none says why not).
func printUsage(w io.Writer, logs []*session.Log, prices budget.Prices, none, note string) {
	u, err := budget.Of(logs)
	if err != nil {
		fmt.Fprintf(w, "usage: %v\n", err)
		return
	}
	if prices != nil {
		fmt.Fprintln(w, "usage (tokens; cost per the scenario's prices):")
	} else {
		fmt.Fprintf(w, "usage (tokens; no cost: %s):\n", none)
	}
	for _, line := range u.Table(prices) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if _, err := u.Cost(prices); prices != nil && err != nil {
		fmt.Fprintf(w, "  cost: %s\n", strings.TrimPrefix(err.Error(), "budget: "))
	}
	for _, m := range u.Unread() {
		fmt.Fprintf(w, "  warning: not counted, as it could not be read: %s\n", printable(m))
	}
	if note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
}

// sessionUsage describes one session's usage for inspect's per-session block.
func sessionUsage(l *session.Log, prices budget.Prices) string {
	s := budget.OfSession(l)
	line := english.Count(len(s.Calls), "model call") + ", " + s.Tokens.String()
	if n := s.Unreported(); n > 0 {
		line += fmt.Sprintf(", %d without usage", n)
	}
	if prices != nil {
		if c, err := s.Cost(prices); err == nil {
			line += ", cost " + budget.FormatCost(c)
		} else {
			line += ", cost unknown (" + unpriced(s, prices) + ")"
		}
	}
	return line
}

// unpriced names the models of s that prices lack.
func unpriced(s *budget.Session, prices budget.Prices) string {
	seen := map[string]bool{}
	for _, c := range s.Calls {
		switch _, ok := prices[c.Model]; {
		case ok:
		case c.Model == "":
			seen["a call without request/header"] = true
		default:
			seen[strconv.Quote(c.Model)] = true
		}
	}
	return "no price for " + strings.Join(slices.Sorted(maps.Keys(seen)), ", ")
}

// growthCheck is check's --max-growth: each scenario's recorded usage
// against the same scenario in a baseline folder.
type growthCheck struct {
	max     float64
	root    string              // the baseline folder, resolved
	base    string              // what the scenarios' paths are relative to
	byName  map[string][]string // CATEGORY/NAME -> baseline scenario folders
	display string              // --baseline as given
}

// newGrowthCheck indexes the scenarios under the baseline folder.
func newGrowthCheck(e *env, baseline string, max float64) (*growthCheck, error) {
	root := e.path(baseline)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--baseline %s is not a folder; give a checkout of the branch to compare with (git worktree add ../base origin/main) or its fixtures folder", baseline)
	}
	dirs, err := scenarioDirs(root)
	if err != nil {
		return nil, err
	}
	g := &growthCheck{max: max, root: root, base: e.dir, byName: map[string][]string{}, display: baseline}
	if g.base == "" {
		g.base = "."
	}
	for _, d := range dirs {
		g.byName[fixture.Name(d)] = append(g.byName[fixture.Name(d)], d)
	}
	return g, nil
}

// baselineOf finds the baseline of a scenario folder: the scenario at the
// same path under the baseline folder, else the only one of the same
// CATEGORY/NAME. why says why there is none.
func (g *growthCheck) baselineOf(dir string) (found, why string) {
	if rel, err := relPath(g.base, dir); err == nil {
		cand := filepath.Join(g.root, rel)
		if _, err := os.Stat(filepath.Join(cand, scenario.File)); err == nil {
			return cand, ""
		}
	}
	name := fixture.Name(dir)
	switch dirs := g.byName[name]; len(dirs) {
	case 0:
		return "", fmt.Sprintf("no scenario %s under the baseline %s (a new scenario?); its growth is not checked", name, g.display)
	case 1:
		return dirs[0], ""
	default:
		return "", fmt.Sprintf("the baseline %s holds %d scenarios named %s (%s); point --baseline at the folder that mirrors this one", g.display, len(dirs), name, strings.Join(dirs, ", "))
	}
}

// relPath returns dir relative to base when it lies under it.
func relPath(base, dir string) (string, error) {
	ab, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	ad, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ab, ad)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New("not under the working folder")
	}
	return rel, nil
}

// check compares the fixture's recorded usage with its baseline's. It
// returns the failure, "" when within bounds, and a note when the scenario
// cannot be compared (no baseline). A nil check checks nothing.
func (g *growthCheck) check(fx *fixture.Fixture) (problem, note string) {
	if g == nil {
		return "", ""
	}
	baseDir, why := g.baselineOf(fx.Dir)
	if baseDir == "" {
		return "", why
	}
	now, err := budget.Of(fx.Logs)
	if err != nil {
		return "budget: " + err.Error(), ""
	}
	baseLogs, err := session.ReadFolder(baseDir)
	if err != nil {
		return fmt.Sprintf("budget: the baseline %s: %v", baseDir, err), ""
	}
	base, err := budget.Of(baseLogs)
	if err != nil {
		return fmt.Sprintf("budget: the baseline %s: %v", baseDir, err), ""
	}
	// The baseline is read, never replayed: what it holds that budget
	// cannot read would make its counts short and the growth look larger.
	if un := base.Unread(); len(un) > 0 {
		return fmt.Sprintf("budget: the baseline %s: %d event(s) that may hold usage could not be read, so its counts may be short and growth cannot be measured: %s; repair or re-record the baseline", baseDir, len(un), strings.Join(un, "; ")), ""
	}
	prices := g.prices(fx, baseDir)
	gr, err := budget.Compare(base, now, prices)
	if err != nil {
		return fmt.Sprintf("budget: cannot compare with the baseline %s: %s", baseDir, strings.TrimPrefix(err.Error(), "budget: ")), ""
	}
	if !gr.Exceeds(g.max) {
		return "", ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "budget: %s, more than --max-growth %s\n  baseline: %s\n", gr, strconv.FormatFloat(g.max, 'f', -1, 64), baseDir)
	for _, line := range growthTable(base, now, prices) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	b.WriteString("If the growth is intended, raise --max-growth for this change; the baseline moves once it is merged.")
	return b.String(), ""
}

// prices are the scenario's, with the baseline scenario's for models it
// no longer prices, so both trees are priced alike. Without prices of its
// own the scenario grows in tokens.
func (g *growthCheck) prices(fx *fixture.Fixture, baseDir string) budget.Prices {
	if len(fx.Scenario.Prices) == 0 {
		return nil
	}
	out := budget.Prices{}
	if sc, err := scenario.Load(baseDir); err == nil {
		maps.Copy(out, sc.Prices)
	}
	maps.Copy(out, fx.Scenario.Prices)
	return out
}

// growthTable lines up each session's total, baseline against now, by
// lineage path.
func growthTable(base, now *budget.Usage, prices budget.Prices) []string {
	measure := func(s *budget.Session) string {
		if s == nil {
			return "-"
		}
		if prices != nil {
			if c, err := s.Cost(prices); err == nil {
				return budget.FormatCost(c)
			}
			return "?"
		}
		return strconv.Itoa(s.Tokens.Total())
	}
	head := "tokens"
	if prices != nil {
		head = "cost"
	}
	rows := [][]string{{"session", "baseline " + head, "now " + head}}
	paths := map[string]bool{}
	for _, s := range now.Sessions {
		paths[s.Path] = true
		rows = append(rows, []string{s.Path, measure(base.Session(s.Path)), measure(s)})
	}
	for _, s := range base.Sessions {
		if !paths[s.Path] {
			rows = append(rows, []string{s.Path, measure(s), "-"})
		}
	}
	return columns.Align(rows)
}

// parseGrowthFlags builds check's growth check from --max-growth (a share,
// 0.2, or a percentage, 20%) and --baseline; nil when neither is given.
func parseGrowthFlags(e *env, maxGrowth, baseline string) (*growthCheck, error) {
	switch {
	case maxGrowth == "" && baseline == "":
		return nil, nil
	case maxGrowth == "":
		return nil, errors.New("--baseline needs --max-growth SHARE, the growth allowed over it (0.2 or 20%)")
	case baseline == "":
		return nil, errors.New("--max-growth needs --baseline DIR, the fixtures to compare with: a checkout of the main branch (git worktree add ../base origin/main)")
	}
	text, pct := strings.CutSuffix(maxGrowth, "%")
	share, err := strconv.ParseFloat(text, 64)
	if pct {
		share /= 100
	}
	if err != nil || !(share >= 0 && share <= maxGrowthShare) {
		return nil, fmt.Errorf("--max-growth %q: want a share from 0 to %v, such as 0.2 or 20%%", maxGrowth, maxGrowthShare)
	}
	if !pct && share > 1 {
		// A bare 20 is a share, 2000%: a gate that never closes for
		// whoever meant 20%.
		fmt.Fprintf(e.stderr, "agentsnap check: warning: --max-growth %s is a share: it allows growth of %s%%; for %s%% write %s%% (or %s), or write %s%% to say that growth is meant\n",
			text, strconv.FormatFloat(share*100, 'f', -1, 64), text, text, strconv.FormatFloat(share/100, 'f', -1, 64), strconv.FormatFloat(share*100, 'f', -1, 64))
	}
	return newGrowthCheck(e, baseline, share)
}
