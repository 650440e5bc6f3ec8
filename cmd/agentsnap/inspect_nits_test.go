package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// logLines builds a log's lines after its header: turns of the given
// steps, each step one model call and the named tool calls, each turn
// ending completed with its number as the text; seq and time count up.
type logLines struct {
	lines []string
	seq   int
}

func (b *logLines) add(typ, data string) {
	b.lines = append(b.lines, fmt.Sprintf(`{"type":%q,"seq":%d,"time":%d,"data":%s}`, typ, b.seq, b.seq, data))
	b.seq++
}

func (b *logLines) turn(turn, steps int, tools ...string) {
	b.add("turn/start", fmt.Sprintf(`{"turn":%d}`, turn))
	for step := 1; step <= steps; step++ {
		b.add("step/start", fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step))
		b.add("assistant/chunk", fmt.Sprintf(`{"turn":%d,"step":%d,"chunk":{"type":"finish","reason":{"kind":"stop"}}}`, turn, step))
		if step == 1 {
			for i, name := range tools {
				b.add("tool/call", fmt.Sprintf(`{"turn":%d,"step":1,"callId":"c%d_%d","name":%q,"arguments":"{}"}`, turn, turn, i, name))
			}
		}
		b.add("step/end", fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step))
	}
	b.add("assistant/message", fmt.Sprintf(`{"turn":%d,"step":%d,"message":{"role":"assistant","content":[{"type":"text","text":"answer %d"}]}}`, turn, steps, turn))
	b.add("turn/end", fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn))
}

func writeLog(path, header string, b *logLines) {
	GinkgoHelper()
	content := header + "\n"
	if b != nil && len(b.lines) > 0 {
		content += strings.Join(b.lines, "\n") + "\n"
	}
	Expect(os.WriteFile(path, []byte(content), 0o644)).To(Succeed())
}

// dshFolder writes a tree the way dsh writes it: children without
// parentCallId or mode, a fork child known only by its seedLength.
func dshFolder() string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	var root logLines
	root.turn(1, 1)
	seed := root.seq
	root.turn(2, 1, "subagent_fork", "subagent_spawn")
	writeLog(filepath.Join(dir, fixture.RootLog), `{"type":"session","version":0,"id":"root","createdAt":1}`, &root)
	fork := logLines{lines: append([]string(nil), root.lines[:seed]...), seq: seed}
	fork.turn(2, 1)
	writeLog(filepath.Join(dir, fixture.ChildLog(1)), fmt.Sprintf(`{"type":"session","version":0,"id":"root/f","createdAt":2,"parentSession":"root","seedLength":%d,"origin":"subagent","delegationDepth":1}`, seed), &fork)
	var spawn logLines
	spawn.turn(1, 1)
	writeLog(filepath.Join(dir, fixture.ChildLog(2)), `{"type":"session","version":0,"id":"root/s","createdAt":3,"parentSession":"root","delegationDepth":1}`, &spawn)
	return dir
}

var _ = Describe("agentsnap inspect, wording", func() {
	It("says when a dsh log recorded no parentCallId or mode, instead of printing a dash", func() {
		dir := dshFolder()
		r := cli(dir, nil, "inspect", ".")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).NotTo(ContainSubstring(" -"))
		Expect(r.stdout).To(ContainSubstring("/session.1.jsonl  fork (by seedLength), call not recorded\n"))
		Expect(r.stdout).To(ContainSubstring("/session.2.jsonl  spawn or fork (mode not recorded), call not recorded\n"))
		Expect(r.stdout).To(ContainSubstring("  lineage   child of root (parentCallId not recorded: a dsh log?), fork (by seedLength), depth 1, origin subagent\n"))
		Expect(r.stdout).To(ContainSubstring("  lineage   child of root (parentCallId not recorded: a dsh log?), spawn or fork (mode not recorded), depth 1\n"))
	})

	It("says a turn without a turn/end did not end", func() {
		dir := GinkgoT().TempDir()
		b := logLines{}
		b.add("turn/start", `{"turn":1}`)
		writeLog(filepath.Join(dir, "open.jsonl"), `{"type":"session","version":0,"id":"x","createdAt":1}`, &b)
		r := cli(dir, nil, "inspect", "open.jsonl")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("    turn 1  0 steps  0 model calls  not ended (no turn/end)\n"))
	})

	It("aligns the turn lines of a session whatever the widths of their counts and tools", func() {
		dir := GinkgoT().TempDir()
		var b logLines
		for turn := 1; turn <= 11; turn++ {
			switch turn {
			case 3:
				b.turn(turn, 12, "read_file", "grep")
			case 10:
				b.turn(turn, 1, "x")
			default:
				b.turn(turn, 1)
			}
		}
		writeLog(filepath.Join(dir, "long.jsonl"), `{"type":"session","version":0,"id":"x","createdAt":1}`, &b)
		r := cli(dir, nil, "inspect", "long.jsonl")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		_, table, _ := strings.Cut(r.stdout, "  turns\n")
		lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
		Expect(lines).To(HaveLen(11))
		Expect(lines[0]).To(Equal(`    turn  1   1 step    1 model call   ended completed                        "answer 1"`))
		Expect(lines[2]).To(Equal(`    turn  3  12 steps  12 model calls  ended completed  tools read_file,grep  "answer 3"`))
		Expect(lines[9]).To(Equal(`    turn 10   1 step    1 model call   ended completed  tools x               "answer 10"`))
		for _, col := range []string{"step", "model call", "ended", `"answer`} {
			at := strings.Index(lines[0], col)
			for _, l := range lines {
				Expect(strings.Index(l, col)).To(Equal(at), "column %q in %q", col, l)
			}
		}
	})

	DescribeTable("describes the seed boundary, singular for one event, and warns off a turn/end",
		func(seedLength int, want string) {
			dir := GinkgoT().TempDir()
			var b logLines
			b.turn(1, 1)
			b.turn(2, 1)
			writeLog(filepath.Join(dir, "child.jsonl"), fmt.Sprintf(`{"type":"session","version":0,"id":"c","createdAt":1,"parentSession":"p","parentCallId":"call_1","mode":"fork","seedLength":%d,"delegationDepth":1}`, seedLength), &b)
			r := cli(dir, nil, "inspect", "child.jsonl")
			Expect(r.code).To(Equal(exitOK), r.stderr)
			Expect(r.stdout).To(ContainSubstring("\n  seed      " + want + "\n  events "))
		},
		Entry("after the first turn/end", 6, "6 inherited events (seq 0-5); own events from seq 6"),
		Entry("one event, inside a turn", 1, "1 inherited event (seq 0); own events from seq 1\n"+
			"            warning: the seed ends with turn/start at seq 0, not right after a turn/end: a fork inherits completed turns only, so this child would replay a half-done turn; re-record it"),
	)

	It("documents what it shows, the seed boundary rule among it", func() {
		r := cli("", nil, "help", "inspect")
		Expect(r.code).To(Equal(exitOK))
		for _, want := range []string{"lineage", "parentCallId", "seedLength", "[inherited]", "model calls"} {
			Expect(r.stdout).To(ContainSubstring(want))
		}
		Expect(r.stdout).To(MatchRegexp(`boundary must fall right after a turn/end`))
	})
})
