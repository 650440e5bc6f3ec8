package fakellm_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

// contractLog is a root log of one call, turn 1 step 1 attempt 1: its
// header, a turn/start (line 2), then one assistant/chunk line per chunk
// (from line 3), then the turn's end.
func contractLog(chunks ...string) string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":0,"id":"root","createdAt":1,"delegationDepth":0}` + "\n")
	b.WriteString(`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":"user"}}` + "\n")
	seq := 1
	for _, c := range chunks {
		if strings.HasPrefix(c, `{"type":"text-chunks"`) { // a packed row of two deltas, whole
			fmt.Fprintf(&b, c+"\n", seq)
			seq += 2
			continue
		}
		fmt.Fprintf(&b, `{"type":"assistant/chunk","seq":%d,"time":1,"data":{"turn":1,"step":1,"attempt":1,"chunk":%s}}`+"\n", seq, c)
		seq++
	}
	fmt.Fprintf(&b, `{"type":"turn/end","seq":%d,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}`+"\n", seq)
	return b.String()
}

// Chunks of a valid call, to build broken ones from.
const (
	startText  = `{"type":"block-start","index":0,"blockType":"text"}`
	deltaText  = `{"type":"text-delta","index":0,"text":"hi"}`
	endText    = `{"type":"block-end","index":0,"block":{"type":"text","text":"hi"}}`
	usageOK    = `{"type":"usage","usage":{"inputTokens":3,"outputTokens":1}}`
	finishStop = `{"type":"finish","reason":{"kind":"stop"}}`
)

var _ = Describe("derivation checks what the replay will serve against the contract", func() {
	// deriveBoth derives text from a file, streaming and in memory, and
	// returns both errors; the file's path is in them.
	deriveBoth := func(text string) (string, error, error) {
		path := filepath.Join(GinkgoT().TempDir(), fixture.RootLog)
		Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
		_, streamErr := fakellm.DeriveFile(path, fakellm.DeriveOptions{})
		l, err := session.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		_, memErr := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		return path, streamErr, memErr
	}

	DescribeTable("refuses a chunk that breaks it, naming file, line, member and the values it wants, and what to do",
		func(line int, want string, chunks ...string) {
			path, streamErr, memErr := deriveBoth(contractLog(chunks...))
			for _, err := range []error{streamErr, memErr} {
				Expect(err).To(MatchError(fakellm.ErrContract))
				Expect(err.Error()).To(HavePrefix(fmt.Sprintf("fakellm: derive %s:%d: ", path, line)))
				Expect(err.Error()).To(ContainSubstring("session root, turn 1 step 1 attempt 1, assistant/chunk seq "))
				Expect(err.Error()).To(ContainSubstring(want))
				Expect(err.Error()).To(ContainSubstring("re-record the scenario"))
			}
		},
		Entry("a finish kind no provider sends", 6,
			`finish member "reason.kind" is "sllac-loot"; want "stop", "tool-calls", "max-tokens", "aborted" or "error"`,
			startText, deltaText, endText, `{"type":"finish","reason":{"kind":"sllac-loot"}}`),
		Entry("an empty finish kind", 3, `finish member "reason.kind" is ""; want "stop"`,
			`{"type":"finish","reason":{"kind":""}}`),
		Entry("a chunk type in capitals", 4,
			`chunk member "type" is "TEXT-DELTA"; want block-start, text-delta, reasoning-delta, tool-call-delta, block-end, usage or finish`,
			startText, `{"type":"TEXT-DELTA","index":0,"text":"hi"}`, finishStop),
		Entry("a delta whose block index changed", 4,
			`text-delta member "index" is 1, a block this call has not started (it started block 0); a block-start comes first`,
			startText, `{"type":"text-delta","index":1,"text":"hi"}`, finishStop),
		Entry("a block-end whose index changed", 5,
			`block-end member "index" is 2, a block this call has not started (it started block 0)`,
			startText, deltaText, `{"type":"block-end","index":2,"block":{"type":"text","text":"hi"}}`, finishStop),
		Entry("a delta before any block-start", 3,
			`text-delta member "index" is 0, a block this call has not started (it started none)`,
			deltaText, finishStop),
		Entry("block indices out of order", 3,
			`block-start member "index" is 1; the call's blocks start in order from 0, so want 0`,
			`{"type":"block-start","index":1,"blockType":"text"}`, finishStop),
		Entry("a negative block index", 3,
			`block-start member "index" is -1; the call's blocks start in order from 0, so want 0`,
			`{"type":"block-start","index":-1,"blockType":"text"}`, finishStop),
		Entry("a block started twice", 4,
			`block-start member "index" is 0, a block this call started already (as text); each block starts once`,
			startText, `{"type":"block-start","index":0,"blockType":"reasoning"}`, finishStop),
		Entry("a delta of another block type", 4,
			`reasoning-delta member "index" is 0, a text block; a reasoning-delta belongs to a reasoning block`,
			startText, `{"type":"reasoning-delta","index":0,"text":"hm"}`, finishStop),
		Entry("a block-end of another block type", 5,
			`block-end member "block.type" is "tool-call"; block 0 started as "text"`,
			startText, deltaText, `{"type":"block-end","index":0,"block":{"type":"tool-call","id":"c","name":"n","arguments":"{}"}}`, finishStop),
		Entry("a delta after its block ended", 6,
			`text-delta member "index" is 0, a block that has ended; nothing follows a block's block-end`,
			startText, deltaText, endText, deltaText, finishStop),
		Entry("an unknown block type", 3,
			`block-start member "blockType" is "image"; want "text", "reasoning" or "tool-call"`,
			`{"type":"block-start","index":0,"blockType":"image"}`, finishStop),
		Entry("a block-end without its block", 5, `a block-end chunk needs its "block"`,
			startText, deltaText, `{"type":"block-end","index":0}`, finishStop),
		Entry("a usage chunk without usage", 3, `a usage chunk needs its "usage"`,
			`{"type":"usage"}`, finishStop),
		Entry("a negative token count", 3, `usage member "usage.outputTokens" is -5; a token count is 0 or more`,
			`{"type":"usage","usage":{"inputTokens":3,"outputTokens":-5}}`, finishStop),
		Entry("a packed row of deltas for a block never started, at the row's line", 3,
			`text-delta member "index" is 0, a block this call has not started`,
			`{"type":"text-chunks","seq0":%d,"time0":1,"data":{"turn":1,"step":1,"attempt":1,"index":0,"dt":[1],"texts":["a","b"]}}`, finishStop),
	)

	It("takes what providers stream: blocks that interleave, every attempt numbering its blocks from 0", func() {
		text := contractLog(
			startText, `{"type":"block-start","index":1,"blockType":"tool-call"}`, deltaText,
			`{"type":"tool-call-delta","index":1,"id":"c","name":"n","argumentsDelta":"{}"}`, deltaText,
			endText, `{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"n","arguments":"{}"}}`,
			usageOK, `{"type":"finish","reason":{"kind":"tool-calls"}}`)
		_, streamErr, memErr := deriveBoth(text)
		Expect(streamErr).NotTo(HaveOccurred())
		Expect(memErr).NotTo(HaveOccurred())
	})

	It("starts every call afresh, also a dsh retry that has no attempt numbers", func() {
		log := `{"type":"session","version":0,"id":"root","createdAt":1,"delegationDepth":0}
{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1,"chunk":` + startText + `}}
{"type":"assistant/chunk","seq":1,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"empty"}}}}}
{"type":"assistant/chunk","seq":2,"time":1,"data":{"turn":1,"step":1,"chunk":` + startText + `}}
{"type":"assistant/chunk","seq":3,"time":1,"data":{"turn":1,"step":1,"chunk":` + deltaText + `}}
{"type":"assistant/chunk","seq":4,"time":1,"data":{"turn":1,"step":1,"chunk":` + finishStop + `}}
`
		s, err := fakellm.Derive(strings.NewReader(log), "dsh.jsonl", fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Entries).To(HaveLen(2))
	})

	It("names the session and seq when the log is in memory only", func() {
		l, err := session.Read(strings.NewReader(contractLog(`{"type":"finish","reason":{"kind":"done"}}`)), "")
		Expect(err).NotTo(HaveOccurred())
		l.Path = ""
		_, err = fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		Expect(err).To(MatchError(fakellm.ErrContract))
		Expect(err.Error()).To(HavePrefix("fakellm: derive session root: "))
		Expect(err.Error()).To(ContainSubstring("assistant/chunk seq 1: finish member \"reason.kind\" is \"done\""))
	})
})

var _ = Describe("replay.override.json entries are checked against the contract", func() {
	DescribeTable("naming the file and the entry, and what to fix",
		func(sidecar, want string) {
			dir := writeFixture(tree()...)
			path := writeFile(dir, fixture.OverrideFile, sidecar)
			_, err := loadDir(dir)
			Expect(err).To(MatchError(fakellm.ErrBadOverride))
			Expect(err.Error()).To(HavePrefix("fakellm: " + path + ": bad replay override: "))
			Expect(err.Error()).To(ContainSubstring(want))
			Expect(err.Error()).To(HaveSuffix("; fix the entry's chunks as CONTRACT.md (assistant/chunk) describes them"))
		},
		Entry("an unknown finish kind", `{"session.jsonl": {"patch": {"0": {"kind": "chunks", "chunks": [{"type":"finish","reason":{"kind":"sllac-loot"}}]}}}}`,
			`"session.jsonl": patch "0": chunk breaks the session-log contract: chunk 0: finish member "reason.kind" is "sllac-loot"`),
		Entry("a delta for a block never started", `{"session.1.jsonl": {"replace": [{"kind": "hang", "chunks": [`+startText+`, {"type":"text-delta","index":3,"text":"x"}]}]}}`,
			`"session.1.jsonl": replace: chunk breaks the session-log contract: chunk 1: text-delta member "index" is 3, a block this call has not started (it started block 0)`),
	)

	It("bounds an entry's turn, step and attempt", func() {
		dir := writeFixture(tree()...)
		writeFile(dir, fixture.OverrideFile, `{"session.jsonl": {"patch": {"0": {"kind": "throw", "turn": -1, "step": 1, "chunks": [], "code": "X"}}}}`)
		_, err := loadDir(dir)
		Expect(err).To(MatchError(fakellm.ErrBadOverride))
		Expect(err.Error()).To(ContainSubstring(`patch "0": entry member "turn" is -1; use 1 to 1000000 (0: not checked)`))
	})
})
