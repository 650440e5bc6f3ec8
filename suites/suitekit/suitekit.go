// Package suitekit is what the Ginkgo suites under suites/ share: where the
// fixtures are, which categories the suites run, and the table entries and
// golden summary every category suite uses. A category that no suite lists
// in Categories fails the inventory check.
package suitekit

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// Categories lists the categories with a suite of their own
// (suites/<category>); suites/custom runs every other category, so a new
// category folder needs no Go file.
var Categories = []string{"spawn", "fork", "mixed", "parallel", "errors"}

// OtherCategories returns the categories under the fixtures folder that no
// built-in suite names, sorted.
func OtherCategories() []string {
	dirs, err := harness.Discover(Root())
	if err != nil {
		panic(err)
	}
	var out []string
	for _, d := range dirs {
		c := filepath.Base(filepath.Dir(d))
		if !slices.Contains(Categories, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

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

// OtherEntries returns one table entry per scenario of the categories no
// built-in suite names, each labelled with its category.
func OtherEntries() []TableEntry {
	var out []TableEntry
	for _, c := range OtherCategories() {
		for _, d := range Fixtures(c) {
			out = append(out, Entry(harness.Name(d), Label(c), d))
		}
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
func ReportGoldens(categories ...string) bool {
	return ReportAfterSuite("goldens: "+strings.Join(categories, ", "), func(r Report) {
		if r.SuiteConfig.DryRun {
			return // nothing ran, so nothing was checked
		}
		unfiltered := len(r.SuiteConfig.FocusStrings) == 0 && len(r.SuiteConfig.SkipStrings) == 0 &&
			r.SuiteConfig.LabelFilter == "" && len(r.SuiteConfig.FocusFiles) == 0 && !focused(r)
		roots := make([]string, len(categories))
		for i, c := range categories {
			roots[i] = filepath.Join(Root(), c)
		}
		if s := harness.GoldenSummary(unfiltered, roots...); s != "" {
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
