package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap check with several failing scenarios, and what it refuses", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	// setup breaks fork/codeword's golden and spawn/one-child's log and
	// leaves spawn/two-sequential passing.
	setup := func() (root string, before map[string]string) {
		root = fixtureCopy("fork/codeword", "spawn/one-child", "spawn/two-sequential")
		breakGolden(root)
		breakLog(root)
		return root, treeDigest(filepath.Join(root, "fixtures"))
	}

	It("checks a scenario that overlapping arguments name once, also into a kept store", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "check", "--store", "jsonl:kept", "fixtures/spawn/one-child", "fixtures/...", "./fixtures/spawn/one-child/")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout).To(HaveSuffix("\n1 scenario, 1 passed, 0 failed\n"))
	})

	for _, jobs := range []string{"1", "3"} {
		It("reports every failure, each with its folder and fix, exits 1 and leaves the fixtures as they were (--jobs "+jobs+")", func() {
			root, before := setup()
			codeword := filepath.Join(root, "fixtures/fork/codeword")
			oneChild := filepath.Join(root, "fixtures/spawn/one-child")
			r := cli(root, nil, "check", "--jobs", jobs, "fixtures")
			Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
			Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+FAIL golden$`))
			Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+FAIL replay$`))
			Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/two-sequential\s+3\s+5\s+ok$`))
			Expect(r.stdout).To(ContainSubstring("\n--- fork/codeword (" + codeword + ")\n"))
			Expect(r.stdout).To(ContainSubstring("\n--- spawn/one-child (" + oneChild + ")\n"))
			Expect(r.stdout).NotTo(ContainSubstring("--- spawn/two-sequential"))
			Expect(r.stdout).To(ContainSubstring("go tool agentsnap check --update " + codeword))
			Expect(r.stdout).To(ContainSubstring("go tool agentsnap record " + oneChild))
			Expect(r.stdout).To(HaveSuffix("\n3 scenarios, 1 passed, 2 failed\n"))

			after := treeDigest(filepath.Join(root, "fixtures"))
			proposal := filepath.Join("fork/codeword", fixture.GoldenFile+".new")
			Expect(after).To(HaveKey(proposal), "the golden failure leaves its proposal beside the golden")
			delete(after, proposal)
			Expect(after).To(Equal(before), "check writes no fixture file")
		})

		It("lists every scenario in --format json (--jobs "+jobs+")", func() {
			root, _ := setup()
			r := cli(root, nil, "check", "--jobs", jobs, "--format", "json", "fixtures")
			Expect(r.code).To(Equal(exitFail), r.stderr)
			var got checkJSON
			Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed(), r.stdout)
			var names, statuses []string
			for _, s := range got.Scenarios {
				names, statuses = append(names, s.Name), append(statuses, s.Status)
			}
			Expect(names).To(Equal([]string{"fork/codeword", "spawn/one-child", "spawn/two-sequential"}))
			Expect(statuses).To(Equal([]string{"fail", "fail", "pass"}))
			Expect(got.Passed).To(Equal(1))
			Expect(got.Failed).To(Equal(2))
		})
	}

	It("takes --timeout at its bounds, 1s and 24h, and refuses just past them", func() {
		root := fixtureCopy("spawn/one-child")
		for _, d := range []string{"24h", "1s"} {
			r := cli(root, nil, "check", "--timeout", d, "fixtures")
			Expect(r.code).To(Equal(exitOK), d+": "+r.stdout+r.stderr)
		}
		for _, d := range []string{"24h0m1s", "999ms"} {
			r := cli(root, nil, "check", "--timeout", d, "fixtures")
			Expect(r.code).To(Equal(exitUsage), d)
			Expect(r.stderr).To(ContainSubstring("want a duration from 1s to 24h0m0s"), d)
		}
	})

	It("refuses --update under CI before replaying anything", func() {
		GinkgoT().Setenv("CI", "true")
		root := fixtureCopy("spawn/one-child")
		before := treeDigest(filepath.Join(root, "fixtures"))
		r := cli(root, nil, "check", "--update", "fixtures")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(HavePrefix("agentsnap check: refusing to update goldens with CI=true"))
		Expect(r.stdout).To(BeEmpty(), "no scenario was replayed")
		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(before))
	})

	It("fails when there is no scenario to check, rather than pass on nothing", func() {
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "fixtures"), 0o755)).To(Succeed())
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(BeEmpty())
		Expect(r.stderr).To(Equal("agentsnap check: no scenarios under fixtures; create one with: go tool agentsnap new CATEGORY/NAME\n"))
	})

	It("gives an unfinished replay's first line as its first difference in --format json", Label("deadline"), func() {
		root := GinkgoT().TempDir()
		stuckScenario(root)
		r := cli(root, nil, "check", "--timeout", "1s", "--format", "json", "fixtures")
		Expect(r.code).To(Equal(exitFail))
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed(), r.stdout)
		Expect(got.Scenarios).To(HaveLen(1))
		Expect(got.Scenarios[0].Status).To(Equal("error"))
		Expect(got.Scenarios[0].FirstDifference).To(Equal("judge: parallel/stuck: the replay did not finish (context deadline exceeded); it waits for:"))
		Expect(got.Scenarios[0].Problems[0]).To(HavePrefix(got.Scenarios[0].FirstDifference + "\n  session root/call_slow"))
	})

	It("refuses a path after memory:", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "check", "fixtures", "--store", "memory:kept")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(ContainSubstring("--store: memory takes no path; use --store memory:"))
	})

	It("says what to do with a --store that does not open: a database in a folder that does not exist", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "check", "fixtures", "--store", "sqlite:gone/replays.db")
		Expect(r.code).NotTo(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout + r.stderr).To(ContainSubstring("the folder " + filepath.Join(root, "gone")))
		Expect(r.stdout + r.stderr).To(ContainSubstring("create the folder it names, or give a path in a folder that exists"))
		Expect(filepath.Join(root, "gone")).NotTo(BeAnExistingFile())
	})

	It("refuses a --store that already holds a single session, and writes nothing there", func() {
		root := fixtureCopy("spawn/one-child")
		store := filepath.Join(root, "replays")
		Expect(os.Mkdir(store, 0o755)).To(Succeed())
		held := filepath.Join(store, jsonl.FileName("root"))
		log := readFile(filepath.Join(root, "fixtures/spawn/one-child", fixture.RootLog))
		Expect(os.WriteFile(held, []byte(log), 0o644)).To(Succeed())
		r := cli(root, nil, "check", "fixtures", "--store", "jsonl:replays")
		Expect(r.code).To(Equal(exitUsage), r.stdout+r.stderr)
		Expect(r.stderr).To(ContainSubstring("already holds 1 session (such as"))
		Expect(r.stderr).To(ContainSubstring("such as root"))
		Expect(readFile(held)).To(Equal(log))
		entries, err := os.ReadDir(store)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1))
	})

	It("under --update, names a stale proposal it cannot remove rather than a transcript difference", func() {
		root := fixtureCopy("spawn/one-child")
		dir := filepath.Join(root, "fixtures/spawn/one-child")
		golden := filepath.Join(dir, fixture.GoldenFile)
		committed := readFile(golden)
		replaceIn(golden, "Jupiter", "Saturn")
		// A proposal that is a folder with a file in it cannot be removed.
		stale := golden + ".new"
		Expect(os.MkdirAll(filepath.Join(stale, "x"), 0o755)).To(Succeed())

		r := cli(root, nil, "check", "--update", "--format", "json", "fixtures")
		Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
		Expect(readFile(golden)).To(Equal(committed), "the golden itself was updated")
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed(), r.stdout)
		Expect(got.Scenarios).To(HaveLen(1))
		first := got.Scenarios[0].FirstDifference
		Expect(first).To(ContainSubstring("removing " + stale))
		Expect(first).NotTo(ContainSubstring("the transcript differs"), "the golden now holds the replay's transcript")
		Expect(strings.Join(got.Scenarios[0].Problems, "\n")).To(ContainSubstring("delete it by hand"))
	})
})
