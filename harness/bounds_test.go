package harness_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a fixture's child logs", func() {
	var dir string
	BeforeEach(func() { dir = copyFixture("parallel/fan-out") }) // session.jsonl, session.1..4.jsonl

	// refused asserts that LoadFixture and Inventory both give the problem
	// want, naming the file.
	refused := func(want string) {
		GinkgoHelper()
		_, err := fixture.Load(dir)
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err).To(MatchError(ContainSubstring(want)))
		Expect(fixture.Inventory(filepath.Dir(filepath.Dir(dir)))).To(ContainElement(ContainSubstring(want)))
	}
	log := func(n int) string { return filepath.Join(dir, fixture.ChildLog(n)) }

	It("names a deleted log in the middle of the numbering", func() {
		Expect(os.Remove(log(2))).To(Succeed())
		refused(log(2) + " is missing: session.3.jsonl exists, and child logs are numbered from 1 without a gap; restore it, or re-record the scenario")
	})

	It("names a deleted last log, which leaves no gap, from the golden that shows it", func() {
		Expect(os.Remove(log(4))).To(Succeed())
		refused(log(4) + " is missing: transcript.golden shows session 4 (== session 4: fork of root via call_letter, depth 1 ==); restore the log, or re-record the scenario")
	})

	It("leaves a golden waiting beside its proposal to the review, which may show a session the new recording dropped", func() {
		Expect(os.Remove(log(4))).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, fixture.ProposalFile), []byte("proposal\n"), 0o644)).To(Succeed())
		_, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
	})

	It("names a log that is a directory", func() {
		Expect(os.Remove(log(2))).To(Succeed())
		Expect(os.Mkdir(log(2), 0o755)).To(Succeed())
		refused(log(2) + " is a directory, not a session log")
	})

	It("names a log that is a dangling symlink, and where it points", func() {
		Expect(os.Remove(log(2))).To(Succeed())
		Expect(os.Symlink("gone.jsonl", log(2))).To(Succeed())
		refused(log(2) + " is a symlink to gone.jsonl, which does not exist")
	})

	It("names a log that cannot be read", func() {
		Expect(os.Remove(log(2))).To(Succeed())
		Expect(os.Symlink(filepath.Base(log(2)), log(2))).To(Succeed()) // a loop: unreadable even for root
		refused(log(2) + " is unreadable: stat " + log(2) + ": too many levels of symbolic links")
	})

	It("names a log under a name no fixture uses", func() {
		Expect(os.WriteFile(filepath.Join(dir, "session.01.jsonl"), nil, 0o644)).To(Succeed())
		refused(filepath.Join(dir, "session.01.jsonl") + " is not a fixture log: a fixture holds session.jsonl and session.1.jsonl, session.2.jsonl, ... only")
	})
})

var _ = Describe("Discover, with a symlinked folder in the fixtures tree", func() {
	var root string
	BeforeEach(func() {
		root = GinkgoT().TempDir()
		copyInto(root, "fork/codeword", "fork/codeword")
	})

	DescribeTable("refuses the link, naming it, rather than skip it silently or follow it",
		func(link, target, want string) {
			Expect(os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755)).To(Succeed())
			Expect(os.Symlink(target, filepath.Join(root, link))).To(Succeed())
			_, err := harness.Discover(root)
			Expect(err).To(MatchError(fixture.ErrLinkedFolder))
			Expect(err).To(MatchError(ContainSubstring(filepath.Join(root, link) + want)))
			Expect(fixture.Inventory(root)).To(ConsistOf(ContainSubstring(filepath.Join(root, link) + want)))
		},
		Entry("a scenario folder", "fork/linked", "codeword", " is a symlink to the folder codeword; a fixtures tree holds real folders only"),
		Entry("a category folder", "alias", "fork", " is a symlink to the folder fork;"),
		Entry("a link to nothing", "fork/gone", "nowhere", " is a symlink to nowhere, which does not exist; remove the link"),
	)

	It("ignores a symlink to a file, as it ignores files", func() {
		Expect(os.WriteFile(filepath.Join(root, "README.md"), nil, 0o644)).To(Succeed())
		Expect(os.Symlink("README.md", filepath.Join(root, "NOTES.md"))).To(Succeed())
		dirs, err := harness.Discover(root)
		Expect(err).NotTo(HaveOccurred())
		Expect(dirs).To(Equal([]string{filepath.Join(root, "fork/codeword")}))
	})
})

var _ = Describe("Discover, before the first scenario", func() {
	It("names the missing fixtures folder and the command that scaffolds a scenario in it", func() {
		root := filepath.Join(GinkgoT().TempDir(), "testdata", "fixtures")
		_, err := harness.Discover(root)
		Expect(err).To(MatchError(fs.ErrNotExist))
		Expect(err).To(MatchError(ContainSubstring(root + ": no such file or directory; no scenario is recorded there yet: scaffold one with go tool agentsnap new CATEGORY/NAME --fixtures " + root)))
	})
})

var _ = Describe("the number of schedules to search", func() {
	It("is bounded in Options, naming the range", func(ctx SpecContext) {
		fx, err := fixture.Load("../fixtures/parallel/fan-out")
		Expect(err).NotTo(HaveOccurred())
		// Cancelled, so a search the bound let through stops at once.
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err = judge.Replay(cancelled, fx, harness.Options{Runtime: agent.Reference, Schedules: scenario.SchedulesLimit + 1})
		Expect(err).To(MatchError(ContainSubstring(fmt.Sprintf("%d schedules: want 0 to %d, such as 50", scenario.SchedulesLimit+1, scenario.SchedulesLimit))))
		_, err = judge.SearchSchedules(cancelled, fx, harness.Options{Runtime: agent.Reference}, scenario.SchedulesLimit+1)
		Expect(err).To(MatchError(ContainSubstring("10001 schedules: want 0 to 10000")))
	})

	DescribeTable("is bounded in AGENTSNAP_SCHEDULES",
		func(value string) {
			GinkgoT().Setenv(judge.SchedulesVar, value)
			fx, err := fixture.Load("../fixtures/parallel/fan-out")
			Expect(err).NotTo(HaveOccurred())
			cancelled, cancel := context.WithCancel(context.Background())
			cancel() // a search the bound let through stops at once
			_, err = judge.Replay(cancelled, fx, harness.Options{Runtime: agent.Reference, Hints: inTest})
			Expect(err).To(MatchError(ContainSubstring(`AGENTSNAP_SCHEDULES="` + value + `": want a number of schedules such as 50 (0 turns the search off), at most 10000`)))
		},
		Entry("one too many", "10001"),
		Entry("the largest int, which asked for an impossible allocation", "9223372036854775807"),
	)
})
