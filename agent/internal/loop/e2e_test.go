package loop_test

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// End to end: the agent runtime records a run against a scripted model into
// a memory store, then replays it through fakellm, and the replayed logs
// must equal the recorded ones.

var prompts = []string{"remember MARMALADE and say OK", "delegate eight tasks"}

const fanOut = 8

// liveModel is the recording's model. Its answers depend only on the
// request, never on timing, so the recording itself is deterministic: the
// root says OK, then delegates eight tasks (spawn and fork alternating) in
// one step, then sums up; each child answers its task, and child 3's first
// attempt fails with a retryable error.
func liveModel(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	last := req.Messages[len(req.Messages)-1]
	speak := func(text string) iter.Seq[llm.Chunk] {
		return slices.Values(llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, &session.Usage{InputTokens: 7, OutputTokens: 2}, ""))
	}
	switch {
	case req.Session.IsRoot() && req.Turn == 1:
		return speak("OK"), nil
	case req.Session.IsRoot() && last.Role == session.RoleUser:
		var calls []session.Part
		for k := 1; k <= fanOut; k++ {
			tool := loop.SpawnToolName
			if k%2 == 0 {
				tool = loop.ForkToolName
			}
			calls = append(calls, session.Part{Type: session.PartToolCall, ID: fmt.Sprintf("call_%d", k), Name: tool,
				Arguments: fmt.Sprintf(`{"description":"task %d","prompt":"task %d: name a colour"}`, k, k)})
		}
		return slices.Values(llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: calls}, nil, "")), nil
	case req.Session.IsRoot():
		return speak(fmt.Sprintf("PARENT_DONE after %d results", len(req.Messages))), nil
	}
	task := last.Text()
	if strings.HasPrefix(task, "task 3:") && req.Attempt == 1 {
		return slices.Values([]llm.Chunk{session.ErrorFinish("RATE_LIMIT", "slow down")}), nil
	}
	return speak(fmt.Sprintf("%s answers %q: colour %d", req.Session.Mode, task, len(task)*len(req.Messages))), nil
}

// runAgent runs the scenario's prompts with drv and returns every log.
func runAgent(drv llm.Driver, ids string, mutate ...func(*loop.Config)) ([]*session.Log, error) {
	GinkgoHelper()
	store := memory.New()
	DeferCleanup(store.Close)
	cfg := loop.Config{
		Driver: drv, Store: store, Provider: "scripted", Model: "m", System: "You are a test agent.",
		Tools: loop.NewRegistry(loop.SpawnTool(), loop.ForkTool()),
		Retry: loop.RetryPolicy{MaxAttempts: 2},
		Clock: loop.FixedClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)),
		IDs:   loop.LineageIDs(ids),
	}
	for _, m := range mutate {
		m(&cfg)
	}
	rt, err := loop.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	_, _, runErr := rt.Run(context.Background(), prompts...)
	return storedLogs(store), runErr
}

func storedLogs(store persistence.Store) []*session.Log {
	GinkgoHelper()
	ctx := context.Background()
	headers, err := store.List(ctx)
	Expect(err).NotTo(HaveOccurred())
	var logs []*session.Log
	for _, h := range headers {
		l, err := store.Load(ctx, h.ID)
		Expect(err).NotTo(HaveOccurred())
		logs = append(logs, l)
	}
	return logs
}

// normalised maps each log's lineage ("root", "root/call_3") to its bytes
// with session ids replaced by lineages; times are fixed by the clock.
func normalised(logs []*session.Log) map[string]string {
	GinkgoHelper()
	byID := map[string]*session.Log{}
	for _, l := range logs {
		byID[l.Header.ID] = l
	}
	var lineage func(id string) string
	lineage = func(id string) string {
		h := byID[id].Header
		if h.ParentSession == "" {
			return "root"
		}
		return lineage(h.ParentSession) + "/" + h.ParentCallID
	}
	out := map[string]string{}
	for _, l := range logs {
		h := l.Header
		h.ID = lineage(h.ID)
		if h.ParentSession != "" {
			h.ParentSession = lineage(h.ParentSession)
		}
		out[h.ID] = string(session.Encode(&h, l.Events))
	}
	return out
}

var _ = Describe("Replay with the agent runtime", Ordered, func() {
	var recorded []*session.Log
	var want map[string]string

	BeforeAll(func() {
		var err error
		recorded, err = runAgent(llm.DriverFunc(liveModel), "rec")
		Expect(err).NotTo(HaveOccurred())
		want = normalised(recorded)
		Expect(want).To(HaveLen(1 + fanOut))
		Expect(want["root/call_3"]).To(ContainSubstring(`"attempt":2`), "child 3 recovered from a failed attempt")
		Expect(want["root/call_2"]).To(MatchRegexp(`"seedLength":[1-9]`), "fork children inherit the root's first turn")
	})

	It("replays 8 concurrent spawn and fork children to identical logs, 50 times in a row", func() {
		for run := range 50 {
			drv, err := fakellm.New(recorded)
			Expect(err).NotTo(HaveOccurred())
			got, err := runAgent(drv, fmt.Sprintf("live%d", run))
			Expect(err).NotTo(HaveOccurred())
			Expect(drv.Check()).To(Succeed())
			Expect(normalised(got)).To(Equal(want), "run %d", run)
		}
	})

	It("replays the fixture files through Load", func() {
		ordered, err := session.LineageOrder(recorded)
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		for i, l := range ordered {
			name := fixture.RootLog
			if i > 0 {
				name = fixture.ChildLog(i)
			}
			Expect(session.WriteFile(filepath.Join(dir, name), l)).To(Succeed())
		}
		logs, err := session.ReadFolder(dir)
		Expect(err).NotTo(HaveOccurred())
		drv, err := fakellm.New(logs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(drv.Check)
		got, err := runAgent(drv, "live")
		Expect(err).NotTo(HaveOccurred())
		Expect(normalised(got)).To(Equal(want))
	})

	It("replays only the acted-on attempts when asked, so the failure is not met again", func() {
		drv, err := fakellm.New(recorded, fakellm.WithAttempts(fakellm.AttemptsActedOn))
		Expect(err).NotTo(HaveOccurred())
		got, err := runAgent(drv, "live")
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Check()).To(Succeed())
		replayed := normalised(got)
		Expect(replayed["root/call_3"]).NotTo(ContainSubstring(`"attempt":2`))
		Expect(replayed["root/call_3"]).NotTo(ContainSubstring("RATE_LIMIT"))
		Expect(replayed["root/call_5"]).To(Equal(want["root/call_5"]))
	})

	It("fails a whole-log deriver at the fork children's first calls, even though the runtime swallows it", func() {
		drv, err := fakellm.New(recorded, fakellm.WithDeriver(func(l *session.Log) (*fakellm.Script, error) {
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}))
		Expect(err).NotTo(HaveOccurred())
		_, err = runAgent(drv, "live")
		// A failed child is an error tool result for the root, whose turn
		// goes on; only the driver saw the original error.
		Expect(err).NotTo(HaveOccurred())
		check := drv.Check()
		Expect(check).To(MatchError(fakellm.ErrPathMismatch))
		Expect(check).To(MatchError(fakellm.ErrNotConsumed))
		Expect(check.Error()).To(ContainSubstring("fakellm: path mismatch: session root/call_2 (fork; call_2): live call at turn 2 step 1, the recording's next call (1 of 2) was at turn 1 step 1"))
		for _, k := range []int{2, 4, 6, 8} {
			Expect(check.Error()).To(ContainSubstring(fmt.Sprintf("session root/call_%d (fork; call_%d): live session live/call_%d used 0 of 2 recorded calls", k, k, k)))
		}
		Expect(strings.Index(check.Error(), "root/call_2 (fork")).To(BeNumerically("<", strings.Index(check.Error(), "root/call_4 (fork")), "listed in call order")
	})

	It("names the child that stopped early when the agent takes another path", func() {
		drv, err := fakellm.New(recorded)
		Expect(err).NotTo(HaveOccurred())
		// Without retries, child 3 stops at its failed attempt.
		_, err = runAgent(drv, "live", func(c *loop.Config) { c.Retry.MaxAttempts = 1 })
		Expect(err).NotTo(HaveOccurred())
		check := drv.Check()
		Expect(check).To(MatchError(fakellm.ErrNotConsumed))
		Expect(check.Error()).To(ContainSubstring("session root/call_3 (spawn; call_3): live session live/call_3 used 1 of 2 recorded calls (the next was at turn 1 step 1)"))
	})

	It("reports a child the recording never had", func() {
		detour := llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: "call_99", Name: loop.SpawnToolName,
			Arguments: `{"description":"new","prompt":"a task nobody recorded"}`}}}, nil, "")
		root := recorded[0]
		Expect(root.Header.IsChild()).To(BeFalse())
		ov := &fakellm.Override{Path: "inline", Sessions: map[string]fakellm.SessionOverride{root.Header.ID: {Patch: map[int]fakellm.Entry{1: {Kind: fakellm.KindChunks, Chunks: detour}}}}}
		drv, err := fakellm.New(recorded, fakellm.WithOverride(ov))
		Expect(err).NotTo(HaveOccurred())
		_, err = runAgent(drv, "live")
		Expect(err).NotTo(HaveOccurred())
		check := drv.Check()
		Expect(check).To(MatchError(fakellm.ErrUnrecordedSession))
		Expect(check.Error()).To(ContainSubstring(`fakellm: unrecorded session: session root/call_99 (live spawn call at turn 1 step 1, last message user: "a task nobody recorded")`))
		Expect(check.Error()).To(ContainSubstring("session root/call_1 (spawn; call_1): never called (1 recorded call)"))
	})
})
