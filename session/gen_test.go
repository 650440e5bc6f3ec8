package session_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// words are the vocabulary of generated deltas: mostly plain English, with
// the characters that make a JSON codec work (quotes, escapes, non-ASCII).
var words = strings.Fields(`the a model tool call reads file main.go and then it writes patch
	for function return value error nil map slice index test passes fails because we should
	check "quoted" naïve café 日本語 — ✓ <tag> & path/to/file.go:42 {json} [list] 0.5 x=1`)

// logGen writes a realistic session log: turns of steps that stream
// reasoning and text as many small assistant/chunk deltas, some of them as
// packed rows, plus tool calls, results and messages.
type logGen struct {
	w      *bufio.Writer
	rng    *rand.Rand
	buf    []byte
	seq    int64
	time   int64
	bytes  int64
	turn   int
	calls  int
	packed bool // whether to write packed rows at all
}

// generateLog writes a log of at least size bytes to w and returns the
// number of logical events and of bytes written.
func generateLog(w io.Writer, size int64, packed bool) (events, n int64, err error) {
	g := &logGen{w: bufio.NewWriterSize(w, 1<<16), rng: rand.New(rand.NewPCG(1, 2)), time: 1767225600000, packed: packed}
	g.line(session.AppendHeader(g.buf[:0], &session.Header{ID: "bench", CreatedAt: g.time, Cwd: "/home/dev/project"}))
	for g.bytes < size {
		g.genTurn()
	}
	return g.seq, g.bytes, g.w.Flush()
}

// generateLogFile is generateLog into a new file at path.
func generateLogFile(path string, size int64, packed bool) (events, n int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	events, n, err = generateLog(f, size, packed)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return events, n, err
}

func (g *logGen) line(b []byte) {
	g.buf = b
	g.w.Write(b)
	g.bytes += int64(len(b))
}

func (g *logGen) event(typ string, data []byte) {
	g.time += int64(g.rng.IntN(30))
	e := session.Event{Type: typ, Seq: g.seq, Time: g.time, Data: data}
	g.seq++
	g.line(session.AppendEvent(g.buf[:0], &e))
}

func (g *logGen) payload(typ string, v any) {
	data, err := session.MarshalData(v)
	if err != nil {
		panic(err)
	}
	g.event(typ, data)
}

func (g *logGen) chunk(step int, c session.Chunk) {
	d := session.ChunkData{Turn: g.turn, Step: step, Attempt: 1, Chunk: c}
	g.event(session.TypeAssistantChunk, d.AppendJSON(nil))
}

func (g *logGen) deltas(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = " " + words[g.rng.IntN(len(words))]
		if g.rng.IntN(20) == 0 {
			out[i] += ".\n"
		}
	}
	return out
}

func (g *logGen) genTurn() {
	g.turn++
	g.payload(session.TypeTurnStart, session.TurnStartData{Turn: g.turn, Trigger: "user"})
	g.payload(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(strings.Join(g.deltas(40), ""))}})
	steps := 1 + g.rng.IntN(3)
	for step := 1; step <= steps; step++ {
		g.genStep(step, step < steps)
	}
	g.payload(session.TypeTurnEnd, session.TurnEndData{Turn: g.turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
}

func (g *logGen) genStep(step int, callTool bool) {
	g.payload(session.TypeStepStart, session.StepData{Turn: g.turn, Step: step})
	g.payload(session.TypeRequestHeader, session.RequestHeaderData{Turn: g.turn, Step: step, Attempt: 1, Provider: "openai-compatible",
		Model: "test-model", SystemDigest: "sha256:1f2e3d", SystemChars: 4000, ToolsDigest: "sha256:9a0b", ToolCount: 3, MessagesDigest: "sha256:77aa", MessageCount: 2 * g.turn})
	msg := session.Message{Role: session.RoleAssistant}
	reasoning := g.block(step, 0, session.BlockReasoning, 40+g.rng.IntN(200))
	text := g.block(step, 1, session.BlockText, 20+g.rng.IntN(300))
	msg.Content = append(msg.Content, session.Part{Type: session.PartReasoning, Text: reasoning}, session.TextPart(text))
	var call session.Part
	if callTool {
		call = g.toolCall(step)
		msg.Content = append(msg.Content, call)
	}
	usage := &session.Usage{InputTokens: 1000 * g.turn, OutputTokens: 300}
	g.chunk(step, session.Chunk{Type: session.ChunkUsage, Usage: usage})
	kind := session.FinishStop
	if callTool {
		kind = session.FinishToolCalls
	}
	g.chunk(step, session.Finish(kind))
	g.payload(session.TypeAssistantMessage, session.AssistantMessageData{Turn: g.turn, Step: step, Message: msg, Usage: usage})
	if callTool {
		g.payload(session.TypeToolCall, session.ToolCallData{Turn: g.turn, Step: step, CallID: call.ID, Name: call.Name, Arguments: call.Arguments})
		out := strings.Repeat("line of tool output\t\"x\"\n", 20+g.rng.IntN(100))
		g.payload(session.TypeToolResult, session.ToolResultData{Turn: g.turn, Step: step, Message: session.Message{Role: session.RoleTool,
			Content: []session.Part{{Type: session.PartToolResult, ToolCallID: call.ID, Name: call.Name, Content: []session.Part{session.TextPart(out)}}}}})
	}
	g.payload(session.TypeStepEnd, session.StepData{Turn: g.turn, Step: step})
}

// block streams one text or reasoning block, as plain deltas or, one time
// in four, as a packed row, and returns its text.
func (g *logGen) block(step, index int, blockType string, n int) string {
	g.chunk(step, session.Chunk{Type: session.ChunkBlockStart, Index: index, BlockType: blockType})
	texts := g.deltas(n)
	deltaType, rowType := session.ChunkTextDelta, session.TypeTextChunks
	if blockType == session.BlockReasoning {
		deltaType, rowType = session.ChunkReasoningDelta, session.TypeReasoningChunks
	}
	if g.packed && g.rng.IntN(4) == 0 {
		g.row(rowType, step, index, "texts", texts, "")
	} else {
		for _, t := range texts {
			g.chunk(step, session.Chunk{Type: deltaType, Index: index, Text: t})
		}
	}
	full := strings.Join(texts, "")
	g.chunk(step, session.Chunk{Type: session.ChunkBlockEnd, Index: index, Block: &session.Block{Type: blockType, Text: full}})
	return full
}

func (g *logGen) toolCall(step int) session.Part {
	g.calls++
	id := fmt.Sprintf("call_%d", g.calls)
	args := fmt.Sprintf(`{"path":"src/file_%d.go","query":"%s"}`, g.calls, words[g.rng.IntN(len(words))])
	var pieces []string
	for rest := args; rest != ""; {
		k := min(len(rest), 1+g.rng.IntN(6))
		pieces, rest = append(pieces, rest[:k]), rest[k:]
	}
	g.chunk(step, session.Chunk{Type: session.ChunkBlockStart, Index: 2, BlockType: session.BlockToolCall})
	if g.packed && g.rng.IntN(2) == 0 {
		g.row(session.TypeToolCallChunks, step, 2, "args", pieces, id)
	} else {
		for i, p := range pieces {
			c := session.Chunk{Type: session.ChunkToolCallDelta, Index: 2, ArgumentsDelta: p}
			if i == 0 {
				c.ID, c.Name = id, "read_file"
			}
			g.chunk(step, c)
		}
	}
	block := &session.Block{Type: session.BlockToolCall, ID: id, Name: "read_file", Arguments: args}
	g.chunk(step, session.Chunk{Type: session.ChunkBlockEnd, Index: 2, Block: block})
	return session.Part{Type: session.PartToolCall, ID: id, Name: "read_file", Arguments: args}
}

// row writes a packed row the way dsh does; the session package reads
// packed rows but has no writer for them.
func (g *logGen) row(typ string, step, index int, key string, texts []string, id string) {
	b := fmt.Appendf(g.buf[:0], `{"type":%q,"seq0":%d,"time0":%d,"data":{"turn":%d,"step":%d,"attempt":1,"index":%d,"dt":[`,
		typ, g.seq, g.time, g.turn, step, index)
	for i := 1; i < len(texts); i++ {
		if i > 1 {
			b = append(b, ',')
		}
		dt := g.rng.IntN(30)
		g.time += int64(dt)
		b = fmt.Appendf(b, "%d", dt)
	}
	b = fmt.Appendf(b, `],%q:[`, key)
	for i, t := range texts {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonscan.AppendString(b, t)
	}
	b = append(b, ']')
	if id != "" {
		b = fmt.Appendf(b, `,"id":%q,"name":"read_file"`, id)
	}
	g.seq += int64(len(texts))
	g.line(append(b, "}}\n"...))
}
