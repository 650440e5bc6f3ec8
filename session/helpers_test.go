package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// oldTime is the mtime test logs get, so that any write by a reader would
// show as a changed mtime even on file systems with coarse timestamps.
var oldTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// rootHeader is a minimal header line of a root session.
const rootHeader = `{"type":"session","version":0,"id":"s1","createdAt":1767225600000,"delegationDepth":0}`

// lines joins log lines, each with its newline.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// ev is one event line with the members the runtime always writes.
func ev(typ string, seq int, data string) string {
	return fmt.Sprintf(`{"type":%q,"seq":%d,"time":%d,"data":%s}`, typ, seq, 1767225600000+seq, data)
}

// writeLog writes content to dir/name with an old mtime and returns the path.
func writeLog(dir, name, content string) string {
	GinkgoHelper()
	path := filepath.Join(dir, name)
	Expect(os.WriteFile(path, []byte(content), 0o644)).To(Succeed())
	Expect(os.Chtimes(path, oldTime, oldTime)).To(Succeed())
	return path
}

// fileState is what a reader must leave alone: the bytes, the mtime and the
// folder's listing (no temp or lock files either).
type fileState struct {
	Content []byte
	ModTime time.Time
	Listing []string
}

func stateOf(path string) fileState {
	GinkgoHelper()
	content, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	info, err := os.Stat(path)
	Expect(err).NotTo(HaveOccurred())
	entries, err := os.ReadDir(filepath.Dir(path))
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return fileState{Content: content, ModTime: info.ModTime(), Listing: names}
}

// turnEvents returns the events of one complete turn: a text answer, or,
// with callIDs, a step that calls those tools, their results and a final
// text step. Seqs start at seq.
func turnEvents(seq, turn int, callIDs ...string) []session.Event {
	var out []session.Event
	add := func(typ, data string) {
		out = append(out, session.Event{Type: typ, Seq: int64(seq), Time: int64(1000 + seq), Data: []byte(data)})
		seq++
	}
	add(session.TypeTurnStart, fmt.Sprintf(`{"turn":%d,"trigger":"user"}`, turn))
	add(session.TypeUserMessage, `{"role":"user","content":[{"type":"text","text":"go"}]}`)
	step := 1
	if len(callIDs) > 0 {
		add(session.TypeStepStart, fmt.Sprintf(`{"turn":%d,"step":1}`, turn))
		for _, id := range callIDs {
			add(session.TypeToolCall, fmt.Sprintf(`{"turn":%d,"step":1,"callId":%q,"name":"subagent_spawn","arguments":"{}"}`, turn, id))
		}
		for _, id := range callIDs {
			add(session.TypeToolResult, fmt.Sprintf(`{"turn":%d,"step":1,"message":{"role":"tool","content":[{"type":"tool-result","toolCallId":%q,"content":[],"isError":false}]}}`, turn, id))
		}
		add(session.TypeStepEnd, fmt.Sprintf(`{"turn":%d,"step":1}`, turn))
		step = 2
	}
	add(session.TypeStepStart, fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step))
	add(session.TypeAssistantMessage, fmt.Sprintf(`{"turn":%d,"step":%d,"message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}`, turn, step))
	add(session.TypeStepEnd, fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step))
	add(session.TypeTurnEnd, fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn))
	return out
}
