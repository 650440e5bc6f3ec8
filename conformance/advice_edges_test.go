package conformance_test

import (
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"

	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/session"
)

// The replay refuses some logs before it starts: a model call without
// its finish, a chunk against the contract, a seed cut inside a turn. For
// a fixture on disk that is a stale or broken recording, mended by
// re-recording it; the kit wrote its fixtures moments before with the
// runtime under test, so there it is what that runtime wrote wrong, and
// the message says where, not to re-record or run the CLI.
var _ = Describe("the conformance kit, a log the replay refuses", func() {
	// refusal returns the replay-matches violation of res, checked to
	// blame the runtime and to give no advice that cannot help.
	refusal := func(res *conformance.Result) conformance.Violation {
		GinkgoHelper()
		var found []conformance.Violation
		for _, v := range res.Violations {
			if v.Rule == "replay-matches" {
				found = append(found, v)
			}
		}
		Expect(found).To(HaveLen(1), "violations: %v", res.Violations)
		msg := res.Err().Error()
		for _, advice := range []string{"re-record", "agentsnap derive", "--drop-incomplete", "DropIncomplete", "a crash while recording", "version control", "go tool agentsnap"} {
			Expect(msg).NotTo(ContainSubstring(advice), "the kit's error:\n%s", msg)
		}
		Expect(found[0].Problem).To(HavePrefix("the replay refuses a log the runtime wrote while the kit recorded the scenario: "))
		Expect(found[0].Problem).To(HaveSuffix("the kit recorded this scenario moments before with a runtime from Config.New, so the runtime is at fault, not a stale recording (see the fix below)"))
		return found[0]
	}
	check := func(ctx SpecContext, scenario string, m mutation) *conformance.Result {
		GinkgoHelper()
		cfg := only(reference(), scenario)
		cfg.New = broken(m)
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		return res
	}
	fixFirst := func(scenario string) string {
		return "the recording breaks the rule(s) named before this one in " + scenario + ", and the replay refuses such a recording: fix those first"
	}

	It("names the log of a model call the runtime wrote without its finish", func(ctx SpecContext) {
		res := check(ctx, "spawn", mutation{drop: func(e *session.Event) bool {
			return e.Type == session.TypeAssistantChunk && decodeTo[session.ChunkData](e).Chunk.Type == session.ChunkFinish
		}})
		v := refusal(res)
		log := filepath.Join(res.Dir, "spawn", "spawn", "session.jsonl")
		Expect(v.Problem).To(ContainSubstring("fakellm: derive " + log + ": incomplete model call: session root, turn 1 step 1 attempt 1: 12 chunks and no finish — the kit recorded"))
		Expect(v.Fix).To(Equal(fixFirst("spawn")))
	})

	It("names the file and line of a chunk the runtime wrote against the contract", func(ctx SpecContext) {
		res := check(ctx, "spawn", mutation{events: each(session.TypeAssistantChunk, func(e *session.Event) {
			d := decodeTo[session.ChunkData](e)
			if d.Chunk.Type == session.ChunkUsage {
				d.Chunk.Usage.InputTokens = -1
				e.Data = encode(d)
			}
		})})
		v := refusal(res)
		log := filepath.Join(res.Dir, "spawn", "spawn", "session.jsonl")
		Expect(v.Problem).To(MatchRegexp(`fakellm: derive %s:\d+: chunk breaks the session-log contract: session root, turn 1 step 1 attempt 1, assistant/chunk seq \d+: usage member "usage.inputTokens" is -1`, regexp.QuoteMeta(log)))
		// The usage rule says what the runtime wrote wrong: the refusal
		// sends the reader there, though a replay takes a call without
		// its usage.
		Expect(rules(res.Violations)).To(ContainElement("usage"))
		Expect(v.Fix).To(Equal(fixFirst("spawn")))
	})

	It("names the header line of a fork child whose seed the runtime cut inside a turn", func(ctx SpecContext) {
		res := check(ctx, "fork-later-turn", mutation{header: func(h *session.Header) {
			if h.SeedLength > 0 {
				h.SeedLength--
			}
		}})
		v := refusal(res)
		log := filepath.Join(res.Dir, "fork", "fork-later-turn", "session.1.jsonl")
		Expect(v.Problem).To(ContainSubstring(log + ":1: seedLength does not fall between turns: seedLength 11 ends the seed at seq 10 (step/end)"))
		Expect(v.Problem).To(ContainSubstring("the fork backend must stamp seedLength at the end of the parent's last completed turn (session.CompletedPrefix) — the kit recorded"))
	})

	It("says what to write when no other rule names the chunk the replay refuses", func(ctx SpecContext) {
		res := check(ctx, "spawn", mutation{events: each(session.TypeAssistantChunk, func(e *session.Event) {
			d := decodeTo[session.ChunkData](e)
			if d.Chunk.Type == session.ChunkTextDelta {
				d.Chunk.Index = 7 // a block never started
				e.Data = encode(d)
			}
		})})
		v := refusal(res)
		Expect(v).To(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Problem": ContainSubstring("chunk breaks the session-log contract"),
			"Fix":     Equal("write each session's log as CONTRACT.md describes it (package journal writes it so): the replay refuses what the runtime wrote at the place named"),
		}), "violations: %v", res.Violations)
	})
})
