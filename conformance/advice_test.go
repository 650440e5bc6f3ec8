package conformance_test

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// The kit records every scenario afresh before replaying it, so a replay
// that fails is the runtime's bug: its violations say what to look at in
// the runtime, never how to re-record the scenario or run the CLI on the
// kit's folder.
var _ = Describe("the conformance kit, what a failed replay's violations advise", func() {
	// noRecordAdvice checks the error lists the failures without advice
	// that cannot help, and names the folder kept.
	noRecordAdvice := func(res *conformance.Result) string {
		GinkgoHelper()
		Expect(res.Violations).NotTo(BeEmpty())
		msg := res.Err().Error()
		for _, advice := range []string{"re-record", "go tool agentsnap record", "go test", "agentsnap CLI", "serve", "--update", "review"} {
			Expect(msg).NotTo(ContainSubstring(advice), "the kit's error:\n%s", msg)
		}
		Expect(msg).To(ContainSubstring("the recordings are kept in " + res.Dir))
		return msg
	}

	It("says a replay that writes other events is the runtime's fault", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		cfg.New = broken(mutation{replayOnly: true, events: each(session.TypeTurnStart, func(e *session.Event) {
			d := decodeTo[session.TurnStartData](e)
			d.Trigger = "replay"
			e.Data = encode(d)
		})})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(rules(res.Violations)).To(ConsistOf("replay-matches", "golden-matches"))
		msg := noRecordAdvice(res)
		Expect(msg).To(ContainSubstring("the kit recorded this scenario moments before with a runtime from Config.New, so the runtime is at fault, not a stale recording"))
	})

	It("says a runtime whose name changes between runs must keep it, not to replay it with the CLI or serve", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		var runs atomic.Int32
		cfg.New = func() agentsnap.Runtime {
			name := "recording-agent"
			if runs.Add(1) > 1 {
				name = "another-agent"
			}
			return renamed{Runtime: broken(mutation{})(), name: name}
		}
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		msg := noRecordAdvice(res)
		Expect(msg).To(ContainSubstring(`it was recorded by a runtime named "recording-agent" and is replayed by one named "another-agent", made the same way: a runtime's name (agentsnap.Named) must not change from run to run`))
	})

	It("says a replay that calls the model where the recording did not is the runtime's fault", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		cfg.New = wrapped(func(env *agentsnap.Env) {
			if !env.Recording {
				env.Driver = &twiceDriver{Driver: env.Driver}
			}
		})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		msg := noRecordAdvice(res)
		Expect(msg).To(ContainSubstring("the agent took another path; the kit recorded this scenario moments before"))
	})
})

// twiceDriver sends the first model call twice, throwing the first answer
// away: a runtime that retries in replay what it did not while recording.
type twiceDriver struct {
	llm.Driver
	once sync.Once
}

func (d *twiceDriver) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	d.once.Do(func() {
		if seq, err := d.Driver.Stream(ctx, req); err == nil {
			for range seq {
			}
		}
	})
	return d.Driver.Stream(ctx, req)
}
