package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness/tree"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// repoRoot is the module's folder; go test runs in cmd/agentsnap.
const repoRoot = "../.."

// userCancel is examples/ownloop's fixture whose turn 2 a user cancels
// mid-stream: a call with chunks and no finish, which counted 4 calls by
// finish chunks and 5 by request/header.
const userCancel = "examples/ownloop/testdata/fixtures/errors/user-cancel"

// inspected is what inspect says of one folder's calls, per session id.
type inspected struct {
	usage map[string]int // the "usage N model calls" line
	turns map[string]int // the sum over the session's own turn lines
	table map[string]int // the usage table's calls, per lineage path ("tree" too)
}

var (
	inspectSession = regexp.MustCompile(`^  session   (.+)$`)
	inspectUsage   = regexp.MustCompile(`^  usage     (\d+) model calls?,`)
	inspectTurn    = regexp.MustCompile(`^    turn +\d+ +\d+ steps? +(\d+) model calls? `)
	inspectRow     = regexp.MustCompile(`^  (\S+) +(\d+) +\d+ `)
)

// inspectCalls runs inspect on dir (relative to the repository) and reads
// its counts.
func inspectCalls(dir string) inspected {
	GinkgoHelper()
	r := cli(repoRoot, nil, "inspect", dir)
	Expect(r.code).To(Equal(exitOK), r.stderr)
	in := inspected{usage: map[string]int{}, turns: map[string]int{}, table: map[string]int{}}
	id, inTable := "", false
	for _, line := range strings.Split(r.stdout, "\n") {
		switch m := inspectRow.FindStringSubmatch(line); {
		case strings.HasPrefix(line, "usage (tokens"):
			inTable = true
		case line == "":
			inTable = false
		case inTable && m != nil:
			in.table[m[1]] = atoi(m[2])
		}
		if m := inspectSession.FindStringSubmatch(line); m != nil {
			id = m[1]
		}
		if m := inspectUsage.FindStringSubmatch(line); m != nil {
			in.usage[id] = atoi(m[1])
		}
		if m := inspectTurn.FindStringSubmatch(line); m != nil && !strings.Contains(line, "[inherited]") {
			in.turns[id] += atoi(m[1])
		}
	}
	return in
}

func atoi(s string) int {
	GinkgoHelper()
	n, err := strconv.Atoi(s)
	Expect(err).NotTo(HaveOccurred())
	return n
}

// checked is one scenario of check's JSON.
type checked struct {
	Name, Dir, Status string
	Sessions, Calls   int
}

// checkCalls runs check --format json and the table on dirs; the rows of
// both come in the same order.
func checkCalls(dirs ...string) (rows []checked, table [][]string) {
	GinkgoHelper()
	leaveNoProposal(dirs)
	r := cli(repoRoot, nil, append([]string{"check", "--format", "json"}, dirs...)...)
	var out struct{ Scenarios []checked }
	Expect(json.Unmarshal([]byte(r.stdout), &out)).To(Succeed(), r.stdout+r.stderr)
	for i := range out.Scenarios {
		out.Scenarios[i].Dir = fromRoot(out.Scenarios[i].Dir)
	}
	r = cli(repoRoot, nil, append([]string{"check"}, dirs...)...)
	row := regexp.MustCompile(`^(\S+) +(\d+) +(\d+) +\S`)
	for _, line := range strings.Split(r.stdout, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			table = append(table, m[1:])
		}
	}
	Expect(table).To(HaveLen(len(out.Scenarios)), r.stdout)
	return out.Scenarios, table
}

// reported is what the HTML report says of one scenario's calls.
type reported struct {
	total    int   // the tree total's model calls
	sessions []int // the agent tree table's calls, per session in lineage order
}

var (
	reportScenario = regexp.MustCompile(`<details class="scenario[^>]*>\s*<summary>.*?<span class="dir">([^<]*)</span></summary>`)
	reportTotal    = regexp.MustCompile(`(?:tree total \(.*?\)|golden total): \d+ sessions · (\d+) model calls`)
	reportRow      = regexp.MustCompile(`<td>([^<]*)</td><td>[^<]*</td>(?:<td class="state">[^<]*</td>)?</tr>`)
)

// reportCalls writes the report of dirs and reads each scenario's counts,
// by folder.
func reportCalls(dirs ...string) map[string]reported {
	GinkgoHelper()
	leaveNoProposal(dirs)
	out := filepath.Join(GinkgoT().TempDir(), "report.html")
	r := cli(repoRoot, nil, append([]string{"report", "-o", out}, dirs...)...)
	Expect(r.code).To(Equal(exitOK), r.stderr)
	b, err := os.ReadFile(out)
	Expect(err).NotTo(HaveOccurred())
	html := string(b)
	got := map[string]reported{}
	starts := reportScenario.FindAllStringSubmatchIndex(html, -1)
	for i, s := range starts {
		end := len(html)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		part := html[s[0]:end]
		var rep reported
		m := reportTotal.FindStringSubmatch(part)
		Expect(m).NotTo(BeNil(), "no tree total for %s", html[s[2]:s[3]])
		rep.total = atoi(m[1])
		// The agent tree table comes before the sessions themselves.
		table, _, _ := strings.Cut(part, "</table>")
		for _, row := range reportRow.FindAllStringSubmatch(table, -1) {
			rep.sessions = append(rep.sessions, atoi(row[1]))
		}
		got[fromRoot(html[s[2]:s[3]])] = rep
	}
	return got
}

// fromRoot returns a folder the commands name (run in repoRoot, they join
// it) relative to the repository again.
func fromRoot(dir string) string {
	return strings.TrimPrefix(filepath.ToSlash(dir), repoRoot+"/")
}

// recordCalls records a copy of the reference runtime's fixture dir (under
// fixtures/) from its playbook and reads the count of record's summary.
func recordCalls(dir string) int {
	GinkgoHelper()
	name, ok := strings.CutPrefix(dir, "fixtures/")
	Expect(ok).To(BeTrue(), "%s: a fixture of the reference runtime lives in fixtures/", dir)
	r := cli(fixtureCopy(name), nil, "record", "fixtures/"+name)
	Expect(r.code).To(Equal(exitOK), r.stderr)
	m := regexp.MustCompile(`(?m)^recorded \S+: \d+ sessions?, (\d+) model calls?`).FindStringSubmatch(r.stdout)
	Expect(m).NotTo(BeNil(), r.stdout)
	return atoi(m[1])
}

// lineagePaths returns the fixture's sessions as lineage paths, in
// lineage order, with their ids.
func lineagePaths(fx *fixture.Fixture) (paths, ids []string) {
	keys := session.LineageKeys(fx.Logs)
	for _, l := range fx.Logs {
		paths, ids = append(paths, keys[l.Header.ID]), append(ids, l.Header.ID)
	}
	return paths, ids
}

// leaveNoProposal keeps the repository's fixtures as committed while the
// commands run on them in place: a transcript that no longer matches its
// golden makes check write a proposal beside it, which the spec then fails
// on and removes, so it cannot change a later spec's fixtures.
func leaveNoProposal(dirs []string) {
	GinkgoHelper()
	roots := make([]string, len(dirs))
	for i, d := range dirs {
		roots[i] = filepath.Join(repoRoot, d)
	}
	before := fixture.FindProposals(roots...)
	DeferCleanup(func() {
		var made []string
		for _, p := range fixture.FindProposals(roots...) {
			if !slices.Contains(before, p) {
				made = append(made, p)
				Expect(os.Remove(p)).To(Succeed())
			}
		}
		Expect(made).To(BeEmpty(), "the commands wrote proposals into the repository's fixtures (removed): their transcripts differ from the goldens")
	})
}

// repoFixtures returns every fixture folder of the repository, relative to
// it: fixtures/, the examples', the commands' testdata.
func repoFixtures() []string {
	GinkgoHelper()
	var dirs []string
	Expect(filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == fixture.ScenarioFile {
			rel, err := filepath.Rel(repoRoot, filepath.Dir(p))
			dirs = append(dirs, rel)
			return err
		}
		return nil
	})).To(Succeed())
	return dirs
}

var _ = Describe("a model call, counted by every command, report and matcher", func() {
	It("is the same number for user-cancel, whose cancelled call has no finish", func() {
		fx, err := fixture.Load(filepath.Join(repoRoot, userCancel))
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(1))
		const want = 5 // one request/header per call

		in := inspectCalls(userCancel)
		Expect(in.usage).To(Equal(map[string]int{"root": want}), "inspect's usage line")
		Expect(in.turns).To(Equal(map[string]int{"root": want}), "inspect's turn lines add up")
		r := cli(repoRoot, nil, "inspect", userCancel)
		Expect(r.stdout).To(ContainSubstring("    turn 2  1 step   1 model call   ended aborted\n"), "the cancelled call counts in its turn")

		rows, table := checkCalls(userCancel)
		Expect(rows).To(HaveLen(1))
		Expect(rows[0].Calls).To(Equal(want), "check --format json")
		Expect(table).To(Equal([][]string{{"errors/user-cancel", "1", strconv.Itoa(want)}}), "check's table")

		rep := reportCalls(userCancel)[userCancel]
		Expect(rep.total).To(Equal(want), "the report's tree total")
		Expect(rep.sessions).To(Equal([]int{want}), "the report's agent tree")

		Expect(fx).To(tree.ModelCalls("root", want))
	})

	It("is the same number on every fixture of the repository, session by session", func() {
		dirs := repoFixtures()
		Expect(len(dirs)).To(BeNumerically(">=", 30), "the fixtures of fixtures/, examples/ and testdata/")
		rows, table := checkCalls(dirs...)
		reports := reportCalls(dirs...)
		Expect(rows).To(HaveLen(len(dirs)))
		replayed := 0
		for i, row := range rows {
			fx, err := fixture.Load(filepath.Join(repoRoot, row.Dir))
			Expect(err).NotTo(HaveOccurred())
			paths, ids := lineagePaths(fx)
			in := inspectCalls(row.Dir)
			total, perSession := 0, []int{}
			for k, id := range ids {
				n := in.usage[id]
				Expect(in.turns[id]).To(Equal(n), "%s: session %s: inspect's own turn lines add up to its usage line", row.Dir, id)
				if len(ids) > 1 {
					Expect(in.table[paths[k]]).To(Equal(n), "%s: %s: inspect's usage table", row.Dir, paths[k])
				}
				Expect(fx).To(tree.ModelCalls(paths[k], n), "%s: %s: tree.ModelCalls", row.Dir, paths[k])
				total += n
				perSession = append(perSession, n)
			}
			Expect(total).To(Equal(modelCalls(fx.Logs)), row.Dir)
			if len(ids) > 1 {
				Expect(in.table["tree"]).To(Equal(total), "%s: inspect's usage table, tree", row.Dir)
			}
			Expect(row.Calls).To(Equal(total), "%s: check --format json", row.Dir)
			Expect(table[i][2]).To(Equal(strconv.Itoa(total)), "%s: check's table", row.Dir)
			Expect(reports).To(HaveKey(row.Dir))
			Expect(reports[row.Dir].total).To(Equal(total), "%s: the report's tree total", row.Dir)
			Expect(reports[row.Dir].sessions).To(Equal(perSession), "%s: the report's agent tree", row.Dir)
			if row.Status == statusPass { // the reference runtime's: replayed
				o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference})
				Expect(err).NotTo(HaveOccurred())
				Expect(o.Calls).To(Equal(total), "%s: the judge's count (serve's and the harness's summary)", row.Dir)
				Expect(recordCalls(row.Dir)).To(Equal(total), "%s: record's summary", row.Dir)
				replayed++
			}
			GinkgoWriter.Printf("%s: %s, %d model calls\n", row.Dir, row.Status, total)
		}
		Expect(replayed).To(BeNumerically(">=", 10), "fixtures/ replays with the reference runtime")
	})
})
