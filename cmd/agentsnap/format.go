package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/internal/textdiff"
	"github.com/agentsnap/agentsnap/judge"
)

// printers are check's output formats: each prints the results to stdout
// and returns the exit status.
var printers = map[string]func(*env, []checkResult) int{
	"text":  printCheck,
	"json":  printJSON,
	"junit": printJUnit,
}

// exitFor is check's exit status: 1 when any scenario did not pass.
func exitFor(results []checkResult) (code, failed int) {
	for _, r := range results {
		if r.status != statusPass {
			failed++
		}
	}
	if failed > 0 {
		return exitFail, failed
	}
	return exitOK, 0
}

// jsonScenario is one scenario of --format json; the member order is the
// output's.
type jsonScenario struct {
	Name            string   `json:"name"`
	Dir             string   `json:"dir"`
	Status          string   `json:"status"`
	Sessions        int      `json:"sessions"`
	Calls           int      `json:"calls"`
	FirstDifference string   `json:"firstDifference"`
	Fix             string   `json:"fix"`
	Problems        []string `json:"problems"`
	Notes           []string `json:"notes"`
}

type jsonCheck struct {
	Scenarios []jsonScenario `json:"scenarios"`
	Passed    int            `json:"passed"`
	Failed    int            `json:"failed"`
}

// printJSON prints the results as one JSON object. Lists are [] rather
// than null when empty, so a consumer needs no null check.
func printJSON(e *env, results []checkResult) int {
	code, failed := exitFor(results)
	out := jsonCheck{Scenarios: []jsonScenario{}, Passed: len(results) - failed, Failed: failed}
	for _, r := range results {
		out.Scenarios = append(out.Scenarios, jsonScenario{
			Name: r.name, Dir: r.dir, Status: r.status, Sessions: r.sessions, Calls: r.calls,
			FirstDifference: r.first, Fix: r.fix,
			Problems: append([]string{}, r.problems...), Notes: append([]string{}, r.notes...),
		})
	}
	var b bytes.Buffer
	if err := writeJSON(&b, out); err != nil {
		return fail(e, "check", err)
	}
	// A lost write is runCheck's to judge, as for the other formats: a
	// reader that stopped reading keeps the verdict.
	e.stdout.Write(b.Bytes())
	return code
}

// writeJSON writes v to w as indented JSON that keeps <, > and & as they
// are: what check and review print for tools and people alike.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// The JUnit XML of --format junit: the common subset Jenkins, GitLab and
// GitHub test reporters read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut *junitOutput  `xml:"system-out,omitempty"`
}

type junitOutput struct {
	Text string `xml:",cdata"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"` // the report keeps its lines; see xmlText
}

// printJUnit prints the results as a JUnit XML test suite: one testcase per
// scenario, classname its category; a failing one holds a failure (an
// unloadable or unreplayable one an error) whose message is the first
// difference and whose text is the full report.
func printJUnit(e *env, results []checkResult) int {
	code, _ := exitFor(results)
	suite := junitSuite{Name: "agentsnap check", Tests: len(results)}
	total := 0.0
	for _, r := range results {
		c := junitCase{
			Classname: filepath.Base(filepath.Dir(filepath.Clean(r.dir))),
			Name:      r.name,
			Time:      seconds(r.seconds),
		}
		if len(r.notes) > 0 {
			c.SystemOut = &junitOutput{xmlText("note: " + strings.Join(r.notes, "\nnote: ") + "\n")}
		}
		p := &junitProblem{Message: r.first, Text: xmlText(strings.Join(r.problems, "\n"))}
		switch r.status {
		case statusFail:
			p.Type = strings.TrimPrefix(r.verdict, "FAIL ")
			c.Failure = p
			suite.Failures++
		case statusError:
			p.Type = "error"
			c.Error = p
			suite.Errors++
		}
		total += r.seconds
		suite.Cases = append(suite.Cases, c)
	}
	suite.Time = seconds(total)
	doc := junitSuites{Name: suite.Name, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Time: suite.Time, Suites: []junitSuite{suite}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fail(e, "check", err)
	}
	fmt.Fprintf(e.stdout, "%s%s\n", xml.Header, b)
	return code
}

// xmlText replaces what XML 1.0 cannot hold — control characters other
// than tab and newline, such as a terminal escape in a model's answer —
// with U+FFFD, so the CDATA sections stay valid. (encoding/xml does that
// for attributes and character data, not for CDATA.)
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// firstDifference is the single most telling line of a failing scenario:
// request drift if any (the agent sends something else, so everything
// after it follows), else the replay driver's verdict or a replay error,
// else the first log difference, else a stale recording or a category
// rule, else the transcript's first changed line against golden — the
// golden file's text, nil when the golden was missing or the run updated
// it, and then the golden message's first line.
func firstDifference(o *judge.Outcome, g judge.GoldenResult, golden *string) string {
	switch {
	case o.Drift != nil:
		return o.Drift.Kind() + ": " + o.Drift.String()
	case o.Consumption != nil:
		return "replay driver: " + firstLine(o.Consumption.Error())
	case len(o.RunErrors) > 0:
		return "replay error: " + firstLine(o.RunErrors[0].Error())
	case len(o.Differences) > 0:
		return "log difference: " + o.Differences[0].String()
	case o.Stale != "":
		return "stale recording: " + firstLine(o.Stale)
	case len(o.RuleViolations) > 0:
		return "category " + o.Fixture.Category() + ": " + firstLine(o.RuleViolations[0])
	case g.Message == "":
		return ""
	case golden == nil, strings.Contains(firstLine(g.Message), " only where the diff cannot show it: "):
		return firstLine(g.Message) // the diff's first line would look unchanged
	}
	diff := strings.Split(textdiff.Unified(*golden, o.Transcript, 0), "\n")
	for i, l := range diff {
		if strings.HasPrefix(l, "@@ ") && i+1 < len(diff) {
			return fmt.Sprintf("the transcript differs from %s at %s", g.Path, firstChange(l, diff[i+1:]))
		}
	}
	return firstLine(g.Message)
}

// firstChange gives where a diff's first hunk (its header, then its lines
// without context) changes, and that line: its first line that is not
// blank, so a session removed or added whole is shown by its session
// line rather than by the blank line Render puts before it.
func firstChange(header string, lines []string) string {
	var gl, rl int
	if _, err := fmt.Sscanf(header, "@@ golden line %d, replay line %d @@", &gl, &rl); err != nil {
		return strings.TrimSuffix(strings.TrimPrefix(header, "@@ "), " @@") + ": " + lines[0]
	}
	pick := 0
	for j, l := range lines {
		if !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "+") {
			break // the hunk ended
		}
		if strings.TrimSpace(l[1:]) != "" {
			pick = j
			break
		}
	}
	for _, l := range lines[:pick] {
		if strings.HasPrefix(l, "-") {
			gl++
		} else {
			rl++
		}
	}
	return fmt.Sprintf("golden line %d, replay line %d: %s", gl, rl, lines[pick])
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
