package transcript_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// delegationTree is a root that completes turn 1, then in turn 2 spawns one
// child and forks another; the fork inherits turn 1.
func delegationTree() (root, spawned, forked *builder) {
	root = newLog(session.Header{ID: "root-id"}).
		turnStart(1, "user").user("Remember the codeword MARMALADE.").answer("OK").turnEnd(session.TurnCompleted, "")
	inherited := len(root.log.Events)
	root.turnStart(2, "user").user("Delegate both questions.").
		stepStart().header().
		assistant(
			session.Part{Type: session.PartReasoning, Text: "One fresh child, one that remembers."},
			call("call_spawn", "subagent_spawn", `{"prompt":"Largest planet?"}`),
			call("call_fork", "subagent_fork", `{"prompt":"The codeword?"}`),
		).
		toolCall("call_spawn", "subagent_spawn", `{"prompt":"Largest planet?"}`).
		toolCall("call_fork", "subagent_fork", `{"prompt":"The codeword?"}`).
		result("call_spawn", "Jupiter", false).
		result("call_fork", "MARMALADE", false).
		stepEnd().
		answer("Jupiter and MARMALADE.").
		turnEnd(session.TurnCompleted, "")

	spawned = child("spawn-id", "root-id", "call_spawn", session.ModeSpawn, 1).
		turnStart(1, "subagent").user("Largest planet?").answer("Jupiter").turnEnd(session.TurnCompleted, "")
	forked = child("fork-id", "root-id", "call_fork", session.ModeFork, 1).seed(root, inherited).
		turnStart(2, "subagent").user("The codeword?").answer("MARMALADE").turnEnd(session.TurnCompleted, "")
	return root, spawned, forked
}

const delegationTranscript = `== root ==
turn 1 (user)
  user: Remember the codeword MARMALADE.
  step 1
    assistant: OK
  ended completed
turn 2 (user)
  user: Delegate both questions.
  step 1
    thinking: One fresh child, one that remembers.
    call call_spawn subagent_spawn {"prompt":"Largest planet?"}
    call call_fork subagent_fork {"prompt":"The codeword?"}
    result call_spawn: Jupiter
    result call_fork: MARMALADE
  step 2
    assistant: Jupiter and MARMALADE.
  ended completed

== session 1: spawn of root via call_spawn, depth 1 ==
turn 1 (subagent)
  user: Largest planet?
  step 1
    assistant: Jupiter
  ended completed

== session 2: fork of root via call_fork, depth 1 ==
(inherits 9 events from root: turn 1)
turn 2 (subagent)
  user: The codeword?
  step 1
    assistant: MARMALADE
  ended completed
`

var _ = Describe("Render", func() {
	It("renders the root, then each child with its lineage, a fork with its inherited prefix instead of the inherited turn", func() {
		root, spawned, forked := delegationTree()
		got, err := transcript.Render([]*session.Log{root.log, spawned.log, forked.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(delegationTranscript))
	})

	It("orders sessions by lineage whatever order the logs come in", func() {
		root, spawned, forked := delegationTree()
		got, err := transcript.Render([]*session.Log{forked.log, root.log, spawned.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(delegationTranscript))
	})

	It("labels a grandchild by its parent's place in the tree", func() {
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").user("Go.").
			stepStart().assistant(call("call_a", "subagent_spawn", `{}`)).toolCall("call_a", "subagent_spawn", `{}`).
			result("call_a", "deep answer", false).stepEnd().turnEnd(session.TurnCompleted, "")
		mid := child("m", "r", "call_a", session.ModeSpawn, 1).turnStart(1, "subagent").user("Ask deeper.").
			stepStart().assistant(call("call_x", "subagent_spawn", `{}`)).toolCall("call_x", "subagent_spawn", `{}`).
			result("call_x", "deep answer", false).stepEnd().turnEnd(session.TurnCompleted, "")
		leaf := child("l", "m", "call_x", session.ModeSpawn, 2).turnStart(1, "subagent").user("Answer.").
			answer("deep answer").turnEnd(session.TurnCompleted, "")

		got, err := transcript.Render([]*session.Log{leaf.log, mid.log, root.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(`== root ==
turn 1 (user)
  user: Go.
  step 1
    call call_a subagent_spawn {}
    result call_a: deep answer
  ended completed

== session 1: spawn of root via call_a, depth 1 ==
turn 1 (subagent)
  user: Ask deeper.
  step 1
    call call_x subagent_spawn {}
    result call_x: deep answer
  ended completed

== session 2: spawn of session 1 via call_x, depth 2 ==
turn 1 (subagent)
  user: Answer.
  step 1
    assistant: deep answer
  ended completed
`))
	})

	It("indents the continuation lines of multi-line text under the first, keeping blank lines empty", func() {
		root := newLog(session.Header{ID: "r"}).turnStart(1, "").user("first line\nsecond line").
			stepStart().
			assistant(
				session.Part{Type: session.PartReasoning, Text: "think\n  indented\n"},
				session.TextPart("line one\nline two\n\nline four\n"),
				call("c1", "lookup", "{\n  \"key\": \"k\"\n}"),
			).
			result("c1", "row 1\nrow 2", false).
			stepEnd().turnEnd(session.TurnCompleted, "")
		got, err := transcript.Render([]*session.Log{root.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(`== root ==
turn 1
  user: first line
        second line
  step 1
    thinking: think
                indented
    assistant: line one
               line two

               line four
    call c1 lookup {
                     "key": "k"
                   }
    result c1: row 1
               row 2
  ended completed
`))
	})

	It("shows model calls that failed, were aborted or were cut off, and error tool results", func() {
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").user("Try.").
			stepStart().
			chunk(1, session.Chunk{Type: session.ChunkTextDelta, Text: "par"}).
			chunk(1, session.ErrorFinish("SERVER", "upstream reset")).
			chunk(2, session.ErrorFinish("", "no code given")).
			chunk(3, session.Finish(session.FinishMaxTokens)).
			assistant(session.TextPart("partial"), call("c1", "lookup", `{"key":"x"}`)).
			result("c1", `no fact with key "x"`, true).
			stepEnd().
			stepStart().
			chunk(0, session.Finish(session.FinishAborted)).
			stepEnd().
			turnEnd(session.TurnAborted, "cancelled between steps")
		got, err := transcript.Render([]*session.Log{root.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(`== root ==
turn 1 (user)
  user: Try.
  step 1
    model call failed (attempt 1): SERVER: upstream reset
    model call failed (attempt 2): no code given
    model call hit the token limit (attempt 3)
    assistant: partial
    call c1 lookup {"key":"x"}
    result c1 (error): no fact with key "x"
  step 2
    model call aborted
  ended aborted: cancelled between steps
`))
	})

	It("names events it does not know instead of dropping them", func() {
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").
			event("custom/marker", json.RawMessage(`{"note":"kept"}`)).
			turnEnd(session.TurnError, "model failed")
		got, err := transcript.Render([]*session.Log{root.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(`== root ==
turn 1 (user)
  event custom/marker
  ended error: model failed
`))
	})

	It("labels a child without parentCallId or mode as a child via an unrecorded call", func() {
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user").user("Hi.").answer("Hello.").turnEnd(session.TurnCompleted, "")
		dsh := newLog(session.Header{ID: "c", ParentSession: "r", Origin: session.OriginSubagent, DelegationDepth: 1}).
			turnStart(1, "subagent").user("Sub.").answer("Done.").turnEnd(session.TurnCompleted, "")
		got, err := transcript.Render([]*session.Log{root.log, dsh.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(`== root ==
turn 1 (user)
  user: Hi.
  step 1
    assistant: Hello.
  ended completed

== session 1: child of root via an unrecorded call, depth 1 ==
turn 1 (subagent)
  user: Sub.
  step 1
    assistant: Done.
  ended completed
`))
	})

	DescribeTable("summarises the turns a fork inherits",
		func(turns int, want string) {
			root := newLog(session.Header{ID: "r"})
			for t := 1; t <= turns; t++ {
				root.turnStart(t, "user").user("x").turnEnd(session.TurnCompleted, "")
			}
			root.event("custom/marker", json.RawMessage(`{}`)) // a seed of at least one event
			n := len(root.log.Events)
			root.turnStart(turns+1, "user").user("fork now").turnEnd(session.TurnCompleted, "")
			fork := child("f", "r", "call_f", session.ModeFork, 1).seed(root, n)
			got, err := transcript.Render([]*session.Log{root.log, fork.log})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(HaveSuffix("== session 1: fork of root via call_f, depth 1 ==\n" + want + "\n"))
		},
		Entry("no turns", 0, "(inherits 1 events from root: no turns)"),
		Entry("one turn", 1, "(inherits 4 events from root: turn 1)"),
		Entry("two turns", 2, "(inherits 7 events from root: turns 1, 2)"),
	)

	It("fails for logs with two roots", func() {
		a := newLog(session.Header{ID: "a"}).turnStart(1, "user")
		b := newLog(session.Header{ID: "b"}).turnStart(1, "user")
		_, err := transcript.Render([]*session.Log{a.log, b.log})
		Expect(err).To(MatchError(session.ErrLineage))
		Expect(err).To(MatchError("transcript: logs do not form one session tree: found 2 root sessions (without parentSession): a, b; want 1"))
	})

	It("fails, instead of panicking, on a log whose seedLength is past its events", func() {
		root := newLog(session.Header{ID: "r"}).turnStart(1, "user")
		bad := child("c", "r", "call_1", session.ModeFork, 1).turnStart(1, "subagent")
		bad.log.Header.SeedLength = 5
		_, err := transcript.Render([]*session.Log{root.log, bad.log})
		Expect(err).To(MatchError(session.ErrSeedPastEnd))
		Expect(err).To(MatchError(ContainSubstring("transcript: session c: ")))
		Expect(err).To(MatchError(ContainSubstring("seedLength 5, 1 events")))
	})
})

var _ = Describe("Labels", func() {
	It("names the root and numbers the rest as their fixture files", func() {
		root, spawned, forked := delegationTree()
		Expect(transcript.Labels([]*session.Log{root.log, spawned.log, forked.log})).To(Equal(map[string]string{
			"root-id":  "root",
			"spawn-id": "session 1",
			"fork-id":  "session 2",
		}))
	})
})
