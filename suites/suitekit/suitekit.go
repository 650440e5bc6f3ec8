// Package suitekit is what the Ginkgo suites under suites/ share: where the
// fixtures are, which categories the suites run, and the table entries and
// golden summary every category suite uses. A category that no suite lists
// in Categories fails the inventory check.
//
// Sharding: with AGENTSNAP_SHARD=K/N in the environment (1 <= K <= N),
// Entries and OtherEntries return only the scenarios of shard K of N, so N
// CI jobs each run one part of every suite. The split is
// fixture.InShard — the FNV-1a hash of CATEGORY/NAME, mod N — the same as
// "agentsnap check --shard K/N", so a scenario always lands in the same
// shard and adding one moves no other. A category with no scenario in the
// shard has no entries (its table runs no spec), and a sharded run reports
// no golden as obsolete. A malformed value panics with the reason while
// the suite is built.
package suitekit

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
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

// ShardVar is the environment variable that selects a shard: K/N.
const ShardVar = "AGENTSNAP_SHARD"

// inShard returns a filter for the shard ShardVar selects: every scenario
// when it is unset.
func inShard() func(dir string) bool {
	v := os.Getenv(ShardVar)
	if v == "" {
		return func(string) bool { return true }
	}
	k, n, err := fixture.ParseShard(v)
	if err != nil {
		panic(fmt.Sprintf("suitekit: %s=%s: %v", ShardVar, v, err))
	}
	return func(dir string) bool { return fixture.InShard(harness.Name(dir), k, n) }
}

// Entries returns one table entry per scenario of category, named
// CATEGORY/NAME (so --focus='fork/codeword$' selects one) and labelled with
// the category; under AGENTSNAP_SHARD only the shard's.
func Entries(category string) []TableEntry {
	keep, dirs := inShard(), Fixtures(category)
	if len(dirs) == 0 {
		return []TableEntry{Entry(fmt.Sprintf("%s (no fixtures)", category), Label(category), "")}
	}
	return entries(keep, category, dirs)
}

// OtherEntries returns one table entry per scenario of the categories no
// built-in suite names, each labelled with its category; under
// AGENTSNAP_SHARD only the shard's.
func OtherEntries() []TableEntry {
	keep := inShard()
	var out []TableEntry
	for _, c := range OtherCategories() {
		out = append(out, entries(keep, c, Fixtures(c))...)
	}
	return out
}

// entries returns the table entries of the scenario folders dirs of
// category that keep keeps.
func entries(keep func(dir string) bool, category string, dirs []string) []TableEntry {
	var out []TableEntry
	for _, d := range dirs {
		if keep(d) {
			out = append(out, Entry(harness.Name(d), Label(category), d))
		}
	}
	return out
}

// options is the options given, with the reference runtime — the one
// agentsnap's own fixtures are recorded with — unless they name another.
func options(opts []judge.Options) judge.Options {
	var o judge.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Runtime == nil {
		o.Runtime = agent.Reference
	}
	return o
}

// Replay replays one fixture and asserts both comparisons: the logs against
// the fixture's, and the transcript against transcript.golden through goldie
// (with GinkgoTB()). The replay driver's consumption check runs at cleanup.
func Replay(dir string, opts ...judge.Options) *judge.Outcome {
	if dir == "" {
		Fail("no fixtures in this category; record one with agentsnap new and agentsnap record")
	}
	o := harness.Run(GinkgoTB(), dir, options(opts))
	ExpectWithOffset(1, o).To(harness.MatchRecording())
	ExpectWithOffset(1, o).To(harness.MatchGolden(GinkgoTB()))
	return o
}

// ReportGoldens prints, after the suite, the goldens it added or changed,
// the golden proposals waiting for "agentsnap review" under its categories
// ("golden pending:  PATH") and, on an unfiltered run, the obsolete
// goldens. Call it at the top level of a suite file.
func ReportGoldens(categories ...string) bool {
	return ReportAfterSuite("goldens: "+strings.Join(categories, ", "), func(r Report) {
		if r.SuiteConfig.DryRun {
			return // nothing ran, so nothing was checked
		}
		// A shard checks part of the goldens; the rest are not obsolete.
		unfiltered := os.Getenv(ShardVar) == "" && len(r.SuiteConfig.FocusStrings) == 0 && len(r.SuiteConfig.SkipStrings) == 0 &&
			r.SuiteConfig.LabelFilter == "" && len(r.SuiteConfig.FocusFiles) == 0 && !focused(r)
		roots := make([]string, len(categories))
		for i, c := range categories {
			roots[i] = filepath.Join(Root(), c)
		}
		if s := judge.GoldenSummary(unfiltered, roots...); s != "" {
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
