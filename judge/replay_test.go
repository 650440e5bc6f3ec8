package judge_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// scenario.json's recorded member names the model the logs were recorded
// with, which the replay offers the agent: without it every request would
// read as drift ("the model changed from playbook/playbook to /").
var _ = Describe("a replay of a fixture whose scenario.json has \"recorded\": null", func() {
	It("is refused, naming the file and what to do, and no re-recording is offered for it", func() {
		dir := filepath.Join("..", "fixtures", "fork", "codeword")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Recorded = nil // what "recorded": null, or no member, loads as

		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference})
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(o).To(BeNil())
		path := filepath.Join(dir, scenario.File)
		Expect(err.Error()).To(ContainSubstring(path + ` has no "recorded" member, or it is null, but the fixture holds recorded logs`))
		Expect(err.Error()).To(ContainSubstring("restore it from version control (git checkout -- " + path + ")"))
		Expect(err.Error()).NotTo(ContainSubstring("the model changed"))
		Expect(judge.RecordMends(dir, err)).To(BeFalse())
	})
})

// A runtime that is not agentsnap.Named records no name; the recording's
// by (recorder.ByTests) still tells that a user's test made it.
var _ = Describe("a fixture a user's test recorded with a runtime without a name", func() {
	unnamed := func() (string, *fixture.Fixture) {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), "spawn", "one-child")
		Expect(os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "spawn", "one-child")))).To(Succeed())
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		sc.Recorded.Runtime, sc.Recorded.By = "", recorder.ByTests
		Expect(sc.Save(dir)).To(Succeed())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		return dir, fx
	}

	It("is not replayed with the reference runtime, which did not record it", func() {
		_, fx := unnamed()
		_, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference,
			Hints: judge.Hints{Test: func(fx *fixture.Fixture, args string) string { return "go test ./mine " + args }}})
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(err.Error()).To(ContainSubstring("by a runtime without a name, not by agentsnap's reference runtime, which this replay runs; pass the runtime that recorded it in harness.Options{Runtime: ...}, or re-record with: go test ./mine -record='^spawn/one-child$'"))
	})

	It("is replayed by the user's unnamed runtime, whose re-recording is the test's, not agentsnap record", func() {
		dir, fx := unnamed()
		var mine agentsnap.RuntimeFunc = func(ctx context.Context, env *agentsnap.Env) error { return agent.Reference.Run(ctx, env) }
		test := judge.Hints{Test: func(fx *fixture.Fixture, args string) string { return "go test ./mine " + args }}
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: mine, Hints: test})
		Expect(err).NotTo(HaveOccurred())
		Expect(judge.RecordCommand(o)).To(Equal("go test ./mine -record='^spawn/one-child$'"))

		By("and the CLI's command for it names no empty runtime")
		cmd := judge.RecordCommandFor(dir, judge.Options{Runtime: agent.Reference})
		Expect(cmd).To(Equal("go test ./... -record='^spawn/one-child$' (from the test that recorded it, with a runtime without a name: the CLI runs only agentsnap's reference runtime)"))
	})
})

// The command that re-records a scenario can cost a read of the whole
// fixture (agentsnap serve's names every MCP server its logs called), so a
// replay makes it only when a message names it.
var _ = Describe("the command that re-records a replayed fixture", func() {
	replay := func(edit func(*fixture.Fixture)) (made int, err error) {
		GinkgoHelper()
		fx, err := fixture.Open(filepath.Join("..", "fixtures", "fork", "codeword"))
		Expect(err).NotTo(HaveOccurred())
		edit(fx)
		hints := judge.Hints{Record: func(*fixture.Fixture) string { made++; return "record-it-here" }}
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference, Once: true, Hints: hints})
		if err == nil && !o.Passed() {
			err = errors.New(o.Report())
		}
		return made, err
	}

	It("is not made by a replay that passes", func() {
		made, err := replay(func(*fixture.Fixture) {})
		Expect(err).NotTo(HaveOccurred())
		Expect(made).To(Equal(0))
	})

	It("is made once by a replay that drifts, and named in its verdict", func() {
		made, err := replay(func(fx *fixture.Fixture) { fx.Scenario.Prompts[0] += " Answer in French." })
		Expect(err).To(MatchError(ContainSubstring("record-it-here")))
		Expect(made).To(Equal(1))
	})

	// A schedule search replays one prepared fixture several times, each
	// with a driver of its own: the command is made once for all of them.
	It("is made once by a schedule search whose every replay drifts", func() {
		fx, err := fixture.Open(filepath.Join("..", "fixtures", "parallel", "fan-out"))
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Prompts = append(fx.Scenario.Prompts, "And once more.") // a call the recording lacks
		var made atomic.Int32
		hints := judge.Hints{Record: func(*fixture.Fixture) string { made.Add(1); return "record-it-here" }}
		r, err := judge.SearchSchedules(context.Background(), fx, judge.Options{Runtime: agent.Reference, Hints: hints}, 4)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Seeds).To(HaveLen(4))
		Expect(r.Mismatches).To(Equal(4), "every schedule's driver names the command")
		Expect(made.Load()).To(Equal(int32(1)))
		Expect(r.Report()).To(ContainSubstring("record-it-here"))
		Expect(judge.RecordCommand(r.Mismatch)).To(Equal("record-it-here"))
		Expect(made.Load()).To(Equal(int32(1)), "a report names the command made for the replays")
		Expect(r.Mismatch.Consumption).To(MatchError(ContainSubstring("more model calls than the recording; re-record with: record-it-here")))
	})
})
