package conformance_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Rules the other specs leave unguarded: each spec breaks one guarantee a
// runtime could break and asks the kit to name it.
var _ = Describe("the conformance kit, at the edges of its rules", func() {
	violation := func(rule string, problem OmegaMatcher) OmegaMatcher {
		return gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{"Rule": Equal(rule), "Problem": problem})
	}
	check := func(ctx SpecContext, scenario string, m mutation) []conformance.Violation {
		GinkgoHelper()
		cfg := only(reference(), scenario)
		cfg.New = broken(m)
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Passed).To(BeEmpty())
		return res.Violations
	}

	It("names a root that stamps a seedLength (header-root)", func(ctx SpecContext) {
		vs := check(ctx, "model-error", mutation{
			seed: func(seed []session.Event) []session.Event {
				if len(seed) == 0 { // the root: hand it an event it never had
					return []session.Event{{Type: "x/note", Data: []byte(`{}`)}}
				}
				return seed
			},
			header: func(h *session.Header) {
				if !isChild(h) {
					h.SeedLength = 1
				}
			},
		})
		Expect(vs).To(ContainElement(violation("header-root", ContainSubstring("the root session's header has seedLength 1"))), "violations: %v", vs)
	})

	It("says once that the recording failed when the recorder says so itself", func(ctx SpecContext) {
		vs := check(ctx, "spawn", mutation{header: func(h *session.Header) {
			if isChild(h) {
				h.Mode = "bogus"
			}
		}})
		var records []string
		for _, v := range vs {
			if strings.Contains(v.Problem, "recording failed") {
				records = append(records, v.Problem)
			}
		}
		Expect(records).NotTo(BeEmpty())
		for _, p := range records {
			Expect(strings.Count(p, "recording failed")).To(Equal(1), p)
		}
	})

	It("names a child whose parentSession is its own id (header-child)", func(ctx SpecContext) {
		vs := check(ctx, "spawn", mutation{header: func(h *session.Header) {
			if isChild(h) {
				h.ParentSession = h.ID
			}
		}})
		Expect(vs).To(ContainElement(violation("header-child",
			ContainSubstring(`parentSession "root/call_spawn" names no other recorded session`))), "violations: %v", vs)
	})

	It("counts a rule broken again in one session exactly (and N more like it)", func(ctx SpecContext) {
		// Both of the root's turns end naming the next turn: one violation
		// that counts the second.
		vs := check(ctx, "model-error", mutation{events: each(session.TypeTurnEnd, func(e *session.Event) {
			setInt(e, "turn", func(n int) int { return n + 1 })
		})})
		Expect(vs).To(ContainElement(violation("turn-numbering",
			And(ContainSubstring("says turn 2; it ends turn 1"), HaveSuffix("(and 1 more like it)")))), "violations: %v", vs)
	})

	It("names every kind of write the store refused, not only the first", func(ctx SpecContext) {
		vs := check(ctx, "concurrent", mutation{header: func(h *session.Header) {
			switch h.Mode {
			case session.ModeSpawn:
				h.Mode = "bogus" // persistence.ErrInvalid
			case session.ModeFork:
				h.SeedLength += 100 // persistence.ErrBadSeed
			}
		}})
		Expect(vs).To(ContainElement(violation("seed-stamped", ContainSubstring("the store refused a child"))), "violations: %v", vs)
		Expect(vs).To(ContainElement(violation("records", ContainSubstring("the store refused a write"))), "violations: %v", vs)
	})

	It("names tool/call events written in another order than the assistant message's calls", func(ctx SpecContext) {
		vs := check(ctx, "concurrent", mutation{insert: func(_ *created, evs []session.Event) []session.Event {
			var at []int
			for i := range evs {
				if evs[i].Type == session.TypeToolCall {
					at = append(at, i)
				}
			}
			calls := make([]session.Event, len(at))
			for k, i := range at {
				calls[k] = evs[i]
			}
			slices.Reverse(calls)
			for k, i := range at {
				evs[i] = calls[k]
			}
			return evs
		}})
		Expect(vs).To(ContainElement(violation("tool-results-in-order",
			ContainSubstring("the assistant message asks for tool calls [call_count call_recall call_colour], but the step records tool/call events [call_colour call_recall call_count]"))),
			"violations: %v", vs)
	})

	It("says turn 1 has no turn/end when a runtime drops it after a cancel, not how turn 2 ended (hang-turn)", func(ctx SpecContext) {
		vs := check(ctx, "hang-timeout", mutation{drop: func(e *session.Event) bool {
			return e.Type == session.TypeTurnEnd && decodeTo[session.TurnEndData](e).Reason.Kind == session.TurnAborted
		}})
		Expect(vs).To(ContainElement(violation("hang-turn",
			MatchRegexp(`^session\.jsonl \(root\): turn 1 has no turn/end before turn 2's turn/start at seq \d+, but its model call hung until the turn's timeout \(turnTimeout 200ms\) cancelled it: turn 1 must end "aborted"$`))),
			"violations: %v", vs)
		Expect(vs).NotTo(ContainElement(violation("hang-turn", ContainSubstring("turn 2"+" ended"))), "violations: %v", vs)
	})

	It("names a call whose usage the runtime dropped, from its chunks or from its message (usage)", func(ctx SpecContext) {
		isUsage := func(e *session.Event) bool {
			d, err := session.DecodeChunkData(e.Data)
			return e.Type == session.TypeAssistantChunk && err == nil && d.Chunk.Type == session.ChunkUsage
		}
		vs := check(ctx, "spawn", mutation{drop: isUsage})
		Expect(vs).To(ContainElement(violation("usage",
			MatchRegexp(`^session\.jsonl \(root\): the model call of turn 1 step 1 attempt 1 \(chunks from seq \d+\) has no usage chunk, but the playbook's answer reported one`))),
			"violations: %v", vs)

		vs = check(ctx, "spawn", mutation{events: each(session.TypeAssistantMessage, func(e *session.Event) {
			d := decodeTo[session.AssistantMessageData](e)
			d.Usage = nil
			e.Data = encode(d)
		})})
		Expect(vs).To(ContainElement(violation("usage",
			MatchRegexp(`^session\.jsonl \(root\): the assistant/message at seq \d+ says usage none, but the model call of turn 1 step 1 attempt 1 .* reported \d+ in / \d+ out`))),
			"violations: %v", vs)
	})
})

var _ = Describe("the conformance kit, a fork child shorter than its inheritance", func() {
	It("names a fork child whose log ends inside the events it inherited (seed-verbatim)", func(ctx SpecContext) {
		cfg := only(reference(), "fork-later-turn")
		cfg.New = broken(mutation{
			seedFrom: func(h *session.Header, parent, seed []session.Event) []session.Event {
				if h.Mode != session.ModeFork {
					return seed
				}
				return slices.Clone(parent[:5]) // a cut copy of the parent's turn 1
			},
			restamp: true,
			insert: func(c *created, evs []session.Event) []session.Event {
				if c.header.Mode == session.ModeFork {
					return nil // and no events of its own
				}
				return evs
			},
		})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("seed-verbatim"),
			"Problem": ContainSubstring("the log holds 5 events, but it must start with the 12 it inherited from root"),
		})), "violations: %v", res.Violations)
	})
})

var _ = Describe("the conformance kit, request/header and replay details", func() {
	It("names the first message whose digest differs, counting from 1", func(ctx SpecContext) {
		cfg := only(reference(), "fork-later-turn")
		cfg.New = broken(mutation{events: each(session.TypeRequestHeader, func(e *session.Event) {
			d := decodeTo[session.RequestHeaderData](e)
			if len(d.MessageDigests) >= 2 {
				d.MessageDigests[1] = "000000000000"
				d.MessagesDigest = "0000000000000000"
				e.Data = encode(d)
			}
		})})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("request-header"),
			"Problem": ContainSubstring("; message 2 (assistant) is the first that differs"),
		})), "violations: %v", res.Violations)
	})

	It("names a replay that wrote fewer sessions than replay 1", func(ctx SpecContext) {
		var runs atomic.Int64
		cfg := only(reference(), "concurrent")
		cfg.New = func() agentsnap.Runtime {
			run := runs.Add(1) - 1 // the recording is run 0
			return agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
				e := *env
				if run == 3 {
					e.Store = &losingStore{Store: env.Store, lose: "root/call_colour"}
				}
				return agent.Reference.Run(ctx, &e)
			})
		}
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("deterministic"),
			"Problem": ContainSubstring("replay 3: 3 sessions instead of 4"),
		})), "violations: %v", res.Violations)
	})
})

// losingStore silently keeps nothing of the session lose: a runtime whose
// store loses a session's log in one run.
type losingStore struct {
	persistence.Store
	lose string
}

func (s *losingStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	if h.ID == s.lose {
		return nil
	}
	return s.Store.Create(ctx, h, seed)
}

func (s *losingStore) Append(ctx context.Context, id string, events []session.Event) error {
	if id == s.lose {
		return nil
	}
	return s.Store.Append(ctx, id, events)
}

var _ = Describe("the conformance kit, a seed copied wrong in several places", func() {
	It("names only the first inherited event that differs, its data cut at 80 characters", func(ctx SpecContext) {
		long := strings.Repeat("z", 200)
		cfg := only(reference(), "fork-later-turn")
		cfg.New = broken(mutation{seed: inherited(func(seed []session.Event) {
			seed[1].Data = encode(session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(long)}})
			seed[3].Type = "x/request"
		})})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		var verbatim []conformance.Violation
		for _, v := range res.Violations {
			if v.Rule == "seed-verbatim" {
				verbatim = append(verbatim, v)
			}
		}
		Expect(verbatim).To(HaveLen(1), "violations: %v", res.Violations)
		Expect(verbatim[0].Problem).To(ContainSubstring("inherited event 1 is seq 1 user/message "))
		Expect(verbatim[0].Problem).To(ContainSubstring(strings.Repeat("z", 20) + "…"))
		Expect(verbatim[0].Problem).NotTo(ContainSubstring(long[:100]))
		Expect(verbatim[0].Problem).NotTo(ContainSubstring("more like it"))
	})
})

var _ = Describe("the conformance kit, a parentCallId naming an inherited call", func() {
	It("looks for a child's creator among its parent's own calls, not the ones it inherited", func(ctx SpecContext) {
		// The fork child inherits its parent's running turn, with the
		// tool/call that created it; the grandchild names that call.
		cfg := only(reference(), "fork-of-fork")
		cfg.New = broken(mutation{seedFrom: withRunningTurn, restamp: true, header: func(h *session.Header) {
			if h.DelegationDepth == 2 {
				h.ParentCallID = "call_child"
			}
		}})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("header-child"),
			"Problem": ContainSubstring(`parentCallId "call_child" is no tool/call of its parent root/call_child (its calls: call_grandchild)`),
		})), "violations: %v", res.Violations)
	})
})

var _ = Describe("the conformance kit, a recording that fails on its tree", func() {
	It("names the headers of the sessions the store created, not of one it refused", func(ctx SpecContext) {
		vs := func() []conformance.Violation {
			cfg := only(reference(), "concurrent")
			cfg.New = broken(mutation{header: func(h *session.Header) {
				switch h.ParentCallID {
				case "call_count":
					h.ParentSession = "nobody" // stored: the tree breaks
				case "call_colour":
					h.ParentSession, h.Mode = "", "bogus" // refused by the store
				}
			}})
			res, err := conformance.Check(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())
			return res.Violations
		}()
		Expect(vs).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("header-child"),
			"Problem": ContainSubstring(`session root/call_count: parentSession "nobody" names no other recorded session`),
		})), "violations: %v", vs)
		for _, v := range vs {
			if v.Rule == "header-child" {
				Expect(v.Problem).NotTo(ContainSubstring("root/call_colour"), "violations: %v", vs)
			}
		}
	})
})

var _ = Describe("the conformance kit, a fork seed handed over one event short", func() {
	It("names the seed that ends inside a turn (seed-stamped), not only the events the store refused", func(ctx SpecContext) {
		cfg := only(reference(), "fork-later-turn")
		cfg.New = wrapped(func(env *agentsnap.Env) { env.Store = shortSeedStore{env.Store} })
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(rules(res.Violations)).To(ContainElements("seq-dense", "records"))
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule": Equal("seed-stamped"),
			"Problem": MatchRegexp(`^session root/call_fork \(parent root\): seedLength \d+ ends its seed at seq \d+ \(step/end\), not at a turn/end: ` +
				`a fork child inherits its parent's events through the parent's last turn/end before the fork, whole turns only$`),
		})), "violations: %v", res.Violations)
	})
})

// shortSeedStore hands a fork child its seed one event short and stamps
// that length, as a runtime that copies the parent's log by hand might; the
// child's own events, numbered after the whole seed, are then refused.
type shortSeedStore struct{ persistence.Store }

func (s shortSeedStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	if h.SeedLength > 0 {
		h.SeedLength--
		seed = seed[:h.SeedLength]
	}
	return s.Store.Create(ctx, h, seed)
}

var _ = Describe("the conformance kit, a recording the replay refuses", func() {
	It("sends the reader to the rules the recording broke, not to how a replay may differ", func(ctx SpecContext) {
		cfg := only(reference(), "fork-later-turn")
		cfg.New = broken(mutation{header: func(h *session.Header) {
			if h.SeedLength > 0 {
				h.SeedLength-- // the seed handed over is whole; the stamp is one short
			}
		}})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(rules(res.Violations)).To(ContainElement("seed-stamped"))
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("replay-matches"),
			"Problem": ContainSubstring("the replay refuses a log the runtime wrote while the kit recorded the scenario"),
			"Fix":     Equal("the recording breaks the rule(s) named before this one in fork-later-turn, and the replay refuses such a recording: fix those first"),
		})), "violations: %v", res.Violations)
	})
})

var _ = Describe("the conformance kit, a fork child that sends more than it inherited", func() {
	It("says a fork child's request sends its seed and its own events, not its parent's whole log (request-header)", func(ctx SpecContext) {
		cfg := only(reference(), "fork-later-turn")
		cfg.New = broken(mutation{events: func(c *created, evs []session.Event) {
			if c.header.Mode != session.ModeFork {
				return
			}
			for i := range evs {
				if evs[i].Type == session.TypeRequestHeader {
					setInt(&evs[i], "messageCount", func(n int) int { return n + 2 }) // the parent's running turn too
				}
			}
		}})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("request-header"),
			"Problem": HaveSuffix("; a fork child's request sends the conversation of its seed (seedLength 12) and of its own events, not more of its parent root's log"),
		})), "violations: %v", res.Violations)
	})
})
