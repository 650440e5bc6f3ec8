// Package suitekit is what the Ginkgo suites under suites/ share: where the
// fixtures are, which categories the suites run, and the table entries and
// golden summary every category suite uses. A category that no suite lists
// in Categories fails the inventory check.
package suitekit

import (
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// Categories lists the fixture categories the suites run, one suite each
// (suites/<category>).
var Categories = []string{"spawn", "fork", "mixed", "parallel", "errors"}

// Root returns the fixtures folder, located from this file so suites work
// from any working folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures")
}

// Fixtures returns the scenario folders of a category.
func Fixtures(category string) []string {
	dirs, err := harness.Discover(Root())
	if err != nil {
		panic(err)
	}
	var out []string
	for _, d := range dirs {
		if filepath.Base(filepath.Dir(d)) == category {
			out = append(out, d)
		}
	}
	return out
}

// Entries returns one table entry per scenario of category, named
// CATEGORY/NAME (so --focus=fork/codeword selects one) and labelled with
// the category.
func Entries(category string) []TableEntry {
	var out []TableEntry
	for _, d := range Fixtures(category) {
		out = append(out, Entry(harness.Name(d), Label(category), d))
	}
	if len(out) == 0 {
		out = append(out, Entry(fmt.Sprintf("%s (no fixtures)", category), Label(category), ""))
	}
	return out
}

// Replay replays one fixture and asserts both comparisons: the logs against
// the fixture's, and the transcript against transcript.golden through goldie
// (with GinkgoTB()). The replay driver's consumption check runs at cleanup.
func Replay(dir string, opts ...harness.Options) *harness.Outcome {
	if dir == "" {
		Fail("no fixtures in this category; record one with agentsnap new and agentsnap record")
	}
	o := harness.Run(GinkgoTB(), dir, opts...)
	ExpectWithOffset(1, o).To(harness.MatchRecording())
	ExpectWithOffset(1, o).To(harness.MatchGolden(GinkgoTB()))
	return o
}

// ReportGoldens prints, after the suite, the goldens it added or changed
// and, on an unfiltered run, the obsolete ones. Call it at the top level of
// a suite file.
func ReportGoldens(category string) bool {
	return ReportAfterSuite("goldens: "+category, func(r Report) {
		unfiltered := len(r.SuiteConfig.FocusStrings) == 0 && len(r.SuiteConfig.SkipStrings) == 0 &&
			r.SuiteConfig.LabelFilter == "" && len(r.SuiteConfig.FocusFiles) == 0 && !focused(r)
		if s := harness.GoldenSummary(unfiltered, filepath.Join(Root(), category)); s != "" {
			fmt.Print(s)
		}
	})
}

func focused(r Report) bool {
	for _, s := range r.SpecReports {
		if s.State == types.SpecStateSkipped || s.State == types.SpecStatePending {
			return true
		}
	}
	return false
}
