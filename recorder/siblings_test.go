package recorder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// siblingModel answers the siblings runtime: the root spawns task A by
// call_0 in step 1 and task B by call_0 again in step 2 (a server that
// numbers ids per response), then says DONE; a child says what it did. It
// keeps the session and place of every call it answers.
type siblingModel struct {
	mu    sync.Mutex
	asked []string
}

func (m *siblingModel) Stream(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	m.mu.Lock()
	m.asked = append(m.asked, fmt.Sprintf("%s turn %d step %d", req.Session.ID, req.Turn, req.Step))
	m.mu.Unlock()
	msg := llm.Message{Role: session.RoleAssistant}
	switch {
	case req.Session.IsRoot() && req.Step <= 2:
		task := string(rune('A' + req.Step - 1))
		msg.Content = []session.Part{{Type: session.PartToolCall, ID: "call_0", Name: "subagent_spawn", Arguments: `{"task":"` + task + `"}`}}
	case req.Session.IsRoot():
		msg.Content = []session.Part{session.TextPart("DONE")}
	default:
		msg.Content = []session.Part{session.TextPart("did " + req.Messages[len(req.Messages)-1].Text())}
	}
	return slices.Values(llm.StreamMessage(msg, nil, "")), nil
}

// requests returns the calls answered so far, and forgets them.
func (m *siblingModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.asked
	m.asked = nil
	return out
}

// siblings is a runtime whose children run beside their parent: each is
// created (Journal.Child) when its call comes and runs on a goroutine of
// its own, but makes its first call only once released, which happens
// after the root's call of step after (once that step's children exist),
// the child of task first before the other — so a child created later can
// reach the model first, and either may first call after its parent went
// on to a later step that reused the call id.
func siblings(after int, first string) agentsnap.Runtime {
	return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
		root, err := journal.NewRoot(ctx, journal.Config{Store: env.Store, Clock: env.Clock, Cwd: env.Cwd})
		if err != nil {
			return err
		}
		type kid struct {
			start, done chan struct{}
			err         error
		}
		kids := map[string]*kid{}
		var abandon bool // set before start is closed: the kid returns at once
		defer func() {
			abandon = true
			for _, k := range kids {
				select {
				case <-k.start:
				default:
					close(k.start)
				}
				<-k.done
			}
		}()
		release := func() error {
			order := []string{"A", "B"}
			if first == "B" {
				order = []string{"B", "A"}
			}
			for _, task := range order {
				k := kids[task]
				close(k.start)
				<-k.done
				if k.err != nil {
					return k.err
				}
			}
			return nil
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			root.StartTurn(journal.TriggerUser, journal.UserText(prompt))
			for step := 1; ; step++ {
				root.StartStep()
				msg, err := ask(ctx, env, root)
				if err != nil {
					return err
				}
				calls := msg.ToolCalls()
				if len(calls) == 0 {
					if step == after {
						if err := release(); err != nil {
							return err
						}
					}
					if err := root.EndStep(ctx); err != nil {
						return err
					}
					return root.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted})
				}
				if err := root.ToolCalls(ctx, calls); err != nil {
					return err
				}
				for _, c := range calls {
					var args struct{ Task string }
					if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
						return err
					}
					child, err := root.Child(ctx, c.ID, session.ModeSpawn)
					if err != nil {
						return err
					}
					k := &kid{start: make(chan struct{}), done: make(chan struct{})}
					kids[args.Task] = k
					go func() {
						defer close(k.done)
						if <-k.start; abandon {
							return
						}
						child.StartTurn(journal.TriggerSubagent, journal.UserText("task "+args.Task))
						child.StartStep()
						if _, k.err = ask(ctx, env, child); k.err != nil {
							return
						}
						if k.err = child.EndStep(ctx); k.err == nil {
							k.err = child.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted})
						}
					}()
					root.ToolResult(c.ID, c.Name, "started task "+args.Task, false)
				}
				if step == after {
					if err := release(); err != nil {
						return err
					}
				}
				if err := root.EndStep(ctx); err != nil {
					return err
				}
			}
		})
	})
}

// ask makes the model call of j's open step and returns its answer.
func ask(ctx context.Context, env *agentsnap.Env, j *journal.Journal) (session.Message, error) {
	req := &llm.Request{Model: env.Model, System: "Delegate."}
	call, err := j.BeginCall(ctx, env.Provider, req)
	if err != nil {
		return session.Message{}, err
	}
	stream, err := env.Driver.Stream(ctx, req)
	if err != nil {
		return session.Message{}, err
	}
	for c := range llm.Normalize(ctx, stream) {
		call.Chunk(c)
	}
	msg, _ := call.End()
	return msg, nil
}

// recordedSiblings records a fresh scenario with the siblings runtime, its
// children released in creation order at the step that created the last.
func recordedSiblings() (string, *siblingModel) {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "fixtures", "custom", "siblings")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	sc := &scenario.Scenario{Description: "Two children of one call id, the second created in a later step.", Prompts: []string{"Delegate A, then B."}}
	Expect(sc.Save(dir)).To(Succeed())
	m := &siblingModel{}
	_, err := recordSiblings(dir, m, siblings(2, "A"))
	Expect(err).NotTo(HaveOccurred())
	Expect(m.requests()).To(HaveLen(5))
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for _, l := range fx.Logs {
		ids = append(ids, l.Header.ID)
	}
	Expect(ids).To(Equal([]string{"root", "root/call_0", "root/call_0#2"}))
	Expect(fx.Logs[1].Events[1].Data).To(ContainSubstring("task A"), "step 1's child is root/call_0")
	return dir, m
}

func recordSiblings(dir string, m *siblingModel, rt agentsnap.Runtime, mutate ...func(*recorder.Options)) (*recorder.Result, error) {
	GinkgoT().Setenv("CI", "") // a recording is refused under CI
	return record(context.Background(), dir, m, append([]func(*recorder.Options){func(o *recorder.Options) {
		o.Runtime, o.Provider, o.Model = rt, "scripted", "scripted-model"
	}}, mutate...)...)
}

var _ = Describe("children of a call id the parent reused, the later created reaching the model first", func() {
	DescribeTable("replay each from its own recording under any order of their first calls",
		func(after int, first string) {
			dir, m := recordedSiblings()

			By("an only-changed recording of the unchanged agent sends nothing")
			res, err := recordSiblings(dir, m, siblings(after, first), onlyChanged)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.requests()).To(BeEmpty(), "no child is tied to its sibling's recording")
			Expect(res.Unchanged).To(BeTrue())

			By("a replay matches the recording")
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: siblings(after, first)})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
		},
		Entry("step 1's child first calls once its parent is at step 2, which reused the id", 2, "A"),
		Entry("step 2's child first calls once its parent is at step 3", 3, "B"),
		Entry("step 1's child first calls once its parent is at step 3", 3, "A"),
		Entry("step 2's child first calls at the step that created it", 2, "B"),
	)
})

var _ = Describe("record --session naming a child of a call id the parent reused", func() {
	DescribeTable("re-records the child of that name, whichever sibling reaches the recorder first",
		func(after int, first string) {
			dir, m := recordedSiblings()
			res, err := recordSiblings(dir, m, siblings(after, first), func(o *recorder.Options) { o.Session = "root/call_0#2" })
			Expect(err).NotTo(HaveOccurred())
			Expect(m.requests()).To(Equal([]string{"root/call_0#2 turn 1 step 1"}), "step 2's child, task B")
			Expect(res.Reuse.Kept).To(ConsistOf("root", "root/call_0"))
			Expect(res.Reuse.Changed).To(HaveLen(1))
			Expect(res.Reuse.Changed[0].Session).To(Equal("root/call_0#2"))
			Expect(res.Reuse.Changed[0].Why).To(ContainSubstring("--session"))
		},
		Entry("step 2's child first, at the step that created it", 2, "B"),
		Entry("step 2's child first, once its parent is at step 3", 3, "B"),
		Entry("step 1's child first (as before)", 2, "A"),
	)
})
