package conformance_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// concurrentSessions are the sessions of the concurrent scenario, in
// lineage order (fixture file order).
var concurrentSessions = []string{"root", "root/call_count", "root/call_recall", "root/call_colour"}

// The concurrent scenario is replayed 20 times, and replays 2 to 20 — the
// 19 compared — must each write replay 1's bytes. A runtime that writes
// other bytes in exactly one of them, in one session, is named whichever
// replay and session it is.
var _ = Describe("the conformance kit, replays that differ in exactly one of the 19 compared", func() {
	entries := []TableEntry{}
	for replay := 2; replay <= 20; replay++ {
		target := concurrentSessions[(replay-2)%len(concurrentSessions)]
		entries = append(entries, Entry(fmt.Sprintf("replay %d, session %s", replay, target), replay, target))
	}
	DescribeTable("names the replay, the session and the line",
		func(ctx SpecContext, replay int, target string) {
			cfg := only(reference(), "concurrent")
			cfg.New = oddReplay(replay, target)
			res, err := conformance.Check(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())

			// The first line that differs: the first of the session's own
			// events, after its header and inherited ones.
			recorded, err := session.ReadFolder(filepath.Join(cfg.Dir, "parallel", "concurrent"))
			Expect(err).NotTo(HaveOccurred())
			Expect(recorded).To(HaveLen(len(concurrentSessions)))
			line := -1
			for _, l := range recorded {
				if l.Header.ID == target {
					line = 2 + l.Header.SeedLength
				}
			}
			Expect(line).To(BeNumerically(">", 0), "the spec's premise: the recording has session %s", target)

			Expect(res.Violations).To(ConsistOf(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
				"Scenario": Equal("concurrent"),
				"Rule":     Equal("deterministic"),
				"Problem": HavePrefix("1 of 19 replays wrote other bytes than replay 1; the first: replay %d: session %s line %d:\n  replay 1: ",
					replay, target, line),
				"Fix": ContainSubstring("independent of scheduling and of earlier runs"),
			})), "violations: %v", res.Violations)
			Expect(res.Passed).To(BeEmpty())
		},
		entries,
	)

	It("takes 20 replays that write the same bytes for a deterministic runtime", func(ctx SpecContext) {
		var runs atomic.Int64
		cfg := only(reference(), "concurrent")
		cfg.New = func() agentsnap.Runtime { runs.Add(1); return agent.Reference }
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(BeEmpty())
		Expect(runs.Load()).To(Equal(int64(21)), "one recording and 20 replays")
	})
})

// oddReplay returns a factory of reference runtimes of which the one that
// makes replay n (the recording is run 0) stamps the own events of the
// session target a millisecond later: a runtime that keeps state between
// runs. The replay still matches the recording, whose times are
// normalised; its bytes do not match replay 1's.
func oddReplay(n int, target string) func() agentsnap.Runtime {
	var runs atomic.Int64
	return func() agentsnap.Runtime {
		run := int(runs.Add(1)) - 1
		return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			e := *env
			if run == n {
				e.Store = &lateStore{Store: env.Store, target: target, ids: map[string]string{}}
			}
			return agent.Reference.Run(ctx, &e)
		})
	}
}

// lateStore stamps the appended events of one session, named by its
// lineage id, a millisecond later.
type lateStore struct {
	persistence.Store
	target string
	mu     sync.Mutex
	ids    map[string]string // session id -> lineage id (root/call_count)
}

func (s *lateStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	s.mu.Lock()
	s.ids[h.ID] = h.ID
	if h.ParentSession != "" {
		s.ids[h.ID] = s.ids[h.ParentSession] + "/" + h.ParentCallID
	}
	s.mu.Unlock()
	return s.Store.Create(ctx, h, seed)
}

func (s *lateStore) Append(ctx context.Context, id string, events []session.Event) error {
	s.mu.Lock()
	late := s.ids[id] == s.target
	s.mu.Unlock()
	if late {
		shifted := make([]session.Event, len(events))
		copy(shifted, events)
		for i := range shifted {
			shifted[i].Time += time.Millisecond.Milliseconds()
		}
		events = shifted
	}
	return s.Store.Append(ctx, id, events)
}
